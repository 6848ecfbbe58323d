package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.Credit;
import io.koala.protocol.StateMessage;
import io.koala.protocol.TaskMessage;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The mailbox of task actors ({@code koala.task-mailbox}) hands a state server's reply over ahead
 * of the messages queued before it, which keep their order.
 */
class TaskMailboxTest {
  private static final ActorTestKit KIT = ActorTestKit.create();

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  /**
   * Says it has {@code entered} its first message and waits on {@code gate} there, then reports
   * every message to {@code seen}.
   */
  static Behavior<TaskMessage> recorder(
      CountDownLatch entered, CountDownLatch gate, ActorRef<TaskMessage> seen) {
    return Behaviors.receive(TaskMessage.class)
        .onAnyMessage(
            m -> {
              entered.countDown();
              gate.await(10, TimeUnit.SECONDS);
              seen.tell(m);
              return Behaviors.same();
            })
        .build();
  }

  @Test
  void aStateReplyOvertakesTheDataQueuedBeforeIt() throws InterruptedException {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    TestProbe<TaskMessage> seen = KIT.createTestProbe();
    ActorRef<TaskMessage> task =
        KIT.spawn(
            recorder(entered, gate, seen.getRef()),
            "task",
            DispatcherSelector.fromConfig("koala.task-dispatcher")
                .withMailboxFromConfig("koala.task-mailbox"));
    Credit busy = new Credit(0, 1);
    task.tell(busy);
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue(); // busy with it: the rest queues
    List<TaskMessage> queued = List.of(new Credit(1, 1), new Credit(2, 1), new Credit(3, 1));
    queued.forEach(task::tell);
    TaskActor.StateReplied reply =
        new TaskActor.StateReplied(
            new StateMessage.StateReply(
                7, new TaskId(new OperatorId("count"), 0), List.of(), null, List.of()));
    task.tell(reply);
    gate.countDown();

    assertThat(seen.receiveMessage()).isEqualTo(busy);
    assertThat(seen.receiveMessage()).as("the reply goes first").isEqualTo(reply);
    for (TaskMessage m : queued) {
      assertThat(seen.receiveMessage()).isEqualTo(m);
    }
  }
}
