package io.koala.runtime.internal;

import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.QueryMessage;
import io.koala.protocol.StateMessage;
import io.koala.protocol.TaskMessage;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.task.KeyQueries;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The read-only state server of a task (DESIGN §4.2, D1): answers fetches for the state the task
 * holds from LMDB read transactions, in its own mailbox, so a fetch never waits behind the task's
 * data, alignment or backpressure; and state queries its owner forwards to it as a holder. Owners'
 * releases of the copies it serves pass through it to its task, so that the task deletes a copy
 * only after every request the owner sent before releasing it has been answered (docs/decisions.md,
 * "State queries during live moves"). The worker spawns it beside its task and watches both: when
 * either stops it stops the other, and it closes the store only once both have stopped.
 */
final class StateServer {

  /** What a state server is asked. */
  sealed interface Command extends KoalaMessage permits Serve, Answer, ScanKeys, Release {}

  /** Task → state server: answer {@code fetch} to {@code replyTo} (the owner task). */
  record Serve(StateMessage.Fetch fetch, ActorRef<TaskMessage> replyTo) implements Command {}

  /**
   * Owner task → state server: answer a state query from this holder's store, to the query's client
   * ({@link io.koala.task.KeyQueries}).
   */
  record Answer(QueryMessage.HolderRead read) implements Command {}

  /**
   * Owner task → state server: what this holder's store has of a scan's bucket, answered to {@code
   * owner}.
   */
  record ScanKeys(QueryMessage.HolderScan scan, ActorRef<TaskMessage> owner) implements Command {}

  /**
   * Owner task → state server: {@code release}, for the server's task, after whatever the owner
   * asked of this server before it.
   */
  record Release(StateMessage.Release release) implements Command {}

  private StateServer() {}

  /** The state server of {@code task}, reading {@code store}, passing releases to {@code self}. */
  @SuppressWarnings("unchecked")
  static Behavior<Command> create(TaskId task, StateStore store, ActorRef<TaskMessage> self) {
    return Behaviors.receive(Command.class)
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
        .onMessage(
            Answer.class,
            a -> {
              QueryMessage.Read read = a.read().read();
              ((ActorReply<KoalaMessage>) read.replyTo())
                  .tell(KeyQueries.answer(read, store, task.index(), true, a.read().declared()));
              return Behaviors.same();
            })
        .onMessage(
            ScanKeys.class,
            k -> {
              KeyQueries.KeysPage page;
              try (ReadTxn txn = store.beginRead()) {
                page = KeyQueries.scan(txn, k.scan().scan(), key -> true);
              }
              k.owner()
                  .tell(
                      new TaskActor.Query(
                          new QueryMessage.HolderScanned(
                              k.scan().scan().id(), task.index(), page.keys(), page.more())));
              return Behaviors.same();
            })
        .onMessage(
            Release.class,
            r -> {
              self.tell(r.release());
              return Behaviors.same();
            })
        .build();
  }
}
