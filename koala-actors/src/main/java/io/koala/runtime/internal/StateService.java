package io.koala.runtime.internal;

import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateServiceAddress;
import io.koala.protocol.TaskMessage;
import io.koala.store.LmdbStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.StoreOptions;
import io.koala.store.WriteTxn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * A remote state service (the {@code remote} state backend, DESIGN §4.4 and §7's Remote baseline):
 * holds the keyed state of the buckets {@link StateServiceAddress#ofBucket} assigns it, for every
 * job and operator, in one LMDB environment per (job, operator) under its directory. Tasks read a
 * batch's keys with one {@link StateMessage.ServiceFetch} and write them back with one {@link
 * StateMessage.ServiceWrite}. A read waits until the writes its barriers name are applied; the
 * writes of one task arrive in order (Pekko's per-pair FIFO), numbered without gaps, so a gap is a
 * lost message and fails the writer.
 */
final class StateService extends AbstractBehavior<StateService.Command> {

  /** What a state service is asked. */
  sealed interface Command extends KoalaMessage permits Read, Write {}

  /** Read {@code fetch.fetch()} of {@code operator} in {@code jobId}; answer {@code replyTo}. */
  record Read(String jobId, StateMessage.ServiceFetch fetch, ActorRef<TaskMessage> replyTo)
      implements Command {}

  /** Apply {@code write} to the state of its writer's operator in {@code jobId}. */
  record Write(String jobId, StateMessage.ServiceWrite write, ActorRef<TaskMessage> replyTo)
      implements Command {}

  private record Writer(String jobId, TaskId task) {}

  private final StateServiceAddress address;
  private final Path dir;
  private final StoreOptions options;
  private final Map<String, StateStore> stores = new HashMap<>(); // "job/operator" → store
  private final Map<Writer, Long> applied = new HashMap<>();
  private final List<Read> waiting = new ArrayList<>();

  static Behavior<Command> create(int index, Path dir, StoreOptions options) {
    return Behaviors.setup(ctx -> new StateService(ctx, index, dir, options));
  }

  private StateService(ActorContext<Command> ctx, int index, Path dir, StoreOptions options) {
    super(ctx);
    this.address = new StateServiceAddress(index);
    this.dir = dir;
    this.options = options;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Read.class, this::onRead)
        .onMessage(Write.class, this::onWrite)
        .onSignal(PostStop.class, s -> onStop())
        .build();
  }

  private StateStore store(String jobId, TaskId task) {
    return stores.computeIfAbsent(
        jobId + "/" + task.operator().name(),
        k -> LmdbStateStore.open(dir.resolve(jobId).resolve(task.operator().name()), options));
  }

  private Behavior<Command> onRead(Read r) {
    if (readable(r)) {
      serve(r);
    } else {
      waiting.add(r);
    }
    return this;
  }

  private boolean readable(Read r) {
    for (StateMessage.WriteBarrier b : r.fetch().barriers()) {
      if (applied.getOrDefault(new Writer(r.jobId(), b.writer()), 0L) < b.seq()) {
        return false;
      }
    }
    return true;
  }

  private void serve(Read r) {
    StateMessage.Fetch f = r.fetch().fetch();
    StateMessage.StateReply reply;
    try (ReadTxn txn = store(r.jobId(), f.owner()).beginRead()) {
      reply = StateServing.serve(txn, f, address.id());
    }
    r.replyTo().tell(new TaskActor.StateReplied(reply));
  }

  private Behavior<Command> onWrite(Write w) {
    StateMessage.ServiceWrite write = w.write();
    Writer writer = new Writer(w.jobId(), write.writer());
    long expected = applied.getOrDefault(writer, 0L) + 1;
    if (write.seq() != expected) {
      w.replyTo()
          .tell(
              new StateMessage.ServiceFailed(
                  "state service "
                      + address.index()
                      + " got write "
                      + write.seq()
                      + " of task "
                      + write.writer()
                      + " where it expected write "
                      + expected
                      + ": a write was lost between the nodes, and the state it carried with it"));
      return this;
    }
    try (WriteTxn txn = store(w.jobId(), write.writer()).beginWrite()) {
      for (StateMessage.KeyState ks : write.keys()) {
        StateServing.replace(txn, ks);
      }
      txn.commit();
    }
    applied.put(writer, write.seq());
    for (Iterator<Read> it = waiting.iterator(); it.hasNext(); ) {
      Read r = it.next();
      if (readable(r)) {
        it.remove();
        serve(r);
      }
    }
    return this;
  }

  private Behavior<Command> onStop() {
    stores.values().forEach(StateStore::close);
    stores.clear();
    return this;
  }
}
