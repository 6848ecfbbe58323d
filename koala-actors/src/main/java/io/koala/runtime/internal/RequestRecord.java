package io.koala.runtime.internal;

import io.koala.coordinator.Change;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.coordinator.ReplyTo;
import io.koala.serialization.KryoSerde;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A reconfiguration request as the checkpoint-metadata journal stores it: the change, the actors
 * that wait for its outcome, and for a migration the worker it moves the task to. A coordinator
 * that starts again elsewhere (a sharded cluster) answers the callers still alive, and finds the
 * migration's worker by its actor's path: worker indices are those of the node that runs the
 * coordinator, and another node numbers the same workers differently. A runtime that restarts (not
 * sharded) numbers its workers as before, and keeps the index. Journals written before these were
 * kept hold a bare {@link Change}, read as a request nobody waits for.
 *
 * @param migrateTo the worker of a {@link Change.Migrate}, null for other changes
 */
record RequestRecord(
    Change change, List<ActorRef<JobReply.Outcome>> replyTo, ActorRef<Worker.Command> migrateTo) {

  /**
   * The bytes of {@code request}: its callers that are actors (the only ones a host keeps), and for
   * a migration {@code workers}' entry at its index.
   */
  static byte[] encode(
      KryoSerde serde, JobInput.JournaledRequest request, List<ActorRef<Worker.Command>> workers) {
    List<ActorRef<JobReply.Outcome>> refs = new ArrayList<>();
    for (ReplyTo<JobReply.Outcome> to : request.replyTo()) {
      if (to instanceof ActorReply<JobReply.Outcome> a) {
        refs.add(a.ref());
      }
    }
    ActorRef<Worker.Command> worker =
        request.change() instanceof Change.Migrate m && m.worker() < workers.size()
            ? workers.get(m.worker())
            : null;
    return serde.toBytes(new RequestRecord(request.change(), refs, worker));
  }

  /**
   * The request {@code bytes} hold; with {@code byPath} (a sharded coordinator) a migration's
   * worker index is that of the worker in {@code workers} at its worker's path, with an {@code
   * error} when none is (its node left), so that the callers are told it cannot run.
   */
  static JobInput.Decoded<JobInput.JournaledRequest> decode(
      KryoSerde serde,
      long seq,
      byte[] bytes,
      List<ActorRef<Worker.Command>> workers,
      boolean byPath) {
    Object value = serde.fromBytes(bytes);
    if (value instanceof Change c) {
      return new JobInput.Decoded<>(seq, new JobInput.JournaledRequest(c, List.of()), null);
    }
    RequestRecord r = (RequestRecord) value;
    List<ReplyTo<JobReply.Outcome>> replyTo = new ArrayList<>();
    for (ActorRef<JobReply.Outcome> ref : r.replyTo()) {
      replyTo.add(new ActorReply<>(ref));
    }
    Change change = r.change();
    String error = null;
    if (byPath && change instanceof Change.Migrate m && r.migrateTo() != null) {
      int index = indexOf(workers, r.migrateTo());
      if (index < 0) {
        error =
            "its target worker "
                + r.migrateTo().path().address()
                + " is not a worker of this coordinator (its node left)";
      } else {
        change = new Change.Migrate(m.operator(), m.task(), index);
      }
    }
    return new JobInput.Decoded<>(seq, new JobInput.JournaledRequest(change, replyTo), error);
  }

  /**
   * The index of the worker at {@code ref}'s path (a path ignores the actor's incarnation: a node
   * restarted at the same address has the same worker path), or -1.
   */
  private static int indexOf(List<ActorRef<Worker.Command>> workers, ActorRef<Worker.Command> ref) {
    for (int i = 0; i < workers.size(); i++) {
      if (workers.get(i).path().equals(ref.path())) {
        return i;
      }
    }
    return -1;
  }
}
