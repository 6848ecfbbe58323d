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
 * A reconfiguration request as the checkpoint-metadata journal stores it: the change and the actors
 * that wait for its outcome, so that a coordinator that starts again elsewhere (a sharded cluster)
 * answers the callers still alive. Journals written before the callers were kept hold a bare {@link
 * Change}, read as a request nobody waits for.
 */
record RequestRecord(Change change, List<ActorRef<JobReply.Outcome>> replyTo) {

  /** The bytes of {@code request}: its callers that are actors (the only ones a host keeps). */
  static byte[] encode(KryoSerde serde, JobInput.JournaledRequest request) {
    List<ActorRef<JobReply.Outcome>> refs = new ArrayList<>();
    for (ReplyTo<JobReply.Outcome> to : request.replyTo()) {
      if (to instanceof ActorReply<JobReply.Outcome> a) {
        refs.add(a.ref());
      }
    }
    return serde.toBytes(new RequestRecord(request.change(), refs));
  }

  /** The request {@code bytes} hold. */
  static JobInput.JournaledRequest decode(KryoSerde serde, byte[] bytes) {
    Object value = serde.fromBytes(bytes);
    if (value instanceof Change c) {
      return new JobInput.JournaledRequest(c, List.of());
    }
    RequestRecord r = (RequestRecord) value;
    List<ReplyTo<JobReply.Outcome>> replyTo = new ArrayList<>();
    for (ActorRef<JobReply.Outcome> ref : r.replyTo()) {
      replyTo.add(new ActorReply<>(ref));
    }
    return new JobInput.JournaledRequest(r.change(), replyTo);
  }
}
