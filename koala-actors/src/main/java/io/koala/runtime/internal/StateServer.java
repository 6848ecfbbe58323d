package io.koala.runtime.internal;

import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.StateMessage;
import io.koala.protocol.TaskMessage;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The read-only state server of a task (DESIGN §4.2, D1): answers fetches for the state the task
 * holds from LMDB read transactions, in its own mailbox, so a fetch never waits behind the task's
 * data, alignment or backpressure. The worker spawns it beside its task and watches both: when
 * either stops it stops the other, and it closes the store only once both have stopped.
 */
final class StateServer {

  /** Task → state server: answer {@code fetch} to {@code replyTo} (the owner task). */
  record Serve(StateMessage.Fetch fetch, ActorRef<TaskMessage> replyTo) implements KoalaMessage {}

  private StateServer() {}

  static Behavior<Serve> create(TaskId task, StateStore store) {
    return Behaviors.receive(Serve.class)
        .onMessage(
            Serve.class,
            s -> {
              StateMessage.StateReply reply;
              try (ReadTxn txn = store.beginRead()) {
                reply = StateServing.serve(txn, s.fetch(), task);
              }
              s.replyTo().tell(new TaskActor.StateReplied(reply));
              return Behaviors.same();
            })
        .build();
  }
}
