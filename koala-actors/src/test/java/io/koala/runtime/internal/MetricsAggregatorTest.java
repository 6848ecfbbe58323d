package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.coordinator.JobInput;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskSnapshots;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.TaskMessage;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A job's metrics are gathered from the tasks that answer and, without waiting for the timeout,
 * leave out those that stopped (issue 48, N5: a retired holder released while the metrics were
 * asked for held every snapshot for {@code koala.metrics-timeout}).
 */
class MetricsAggregatorTest {
  private static final ActorTestKit KIT = ActorTestKit.create();
  private static final Duration NEVER = Duration.ofMinutes(10);

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private static TaskMetricsSnapshot metrics(TaskId task) {
    return TaskSnapshots.of(task).build();
  }

  @Test
  void aTaskThatStoppedIsLeftOutAtOnce() {
    TaskId live = new TaskId(new OperatorId("count"), 0);
    TaskId released = new TaskId(new OperatorId("count"), 1);
    TestProbe<TaskMessage> liveTask = KIT.createTestProbe();
    TestProbe<TaskMessage> releasedTask = KIT.createTestProbe();
    releasedTask.stop();
    TestProbe<JobInput> coordinator = KIT.createTestProbe();
    KIT.spawn(
        MetricsAggregator.create(
            List.of(
                new TaskActor.TaskRef(live, liveTask.getRef(), null),
                new TaskActor.TaskRef(released, releasedTask.getRef(), null)),
            7,
            coordinator.getRef(),
            NEVER));
    liveTask.expectMessageClass(TaskActor.GetMetrics.class).replyTo().tell(metrics(live));
    JobInput.MetricsGathered gathered =
        coordinator.expectMessageClass(JobInput.MetricsGathered.class, Duration.ofSeconds(10));
    assertThat(gathered.request()).isEqualTo(7);
    assertThat(gathered.tasks()).extracting(TaskMetricsSnapshot::task).containsExactly(live);
  }

  @Test
  void everyTaskThatAnswersIsGatheredOnce() {
    TaskId a = new TaskId(new OperatorId("count"), 0);
    TaskId b = new TaskId(new OperatorId("count"), 1);
    TestProbe<TaskMessage> taskA = KIT.createTestProbe();
    TestProbe<TaskMessage> taskB = KIT.createTestProbe();
    TestProbe<JobInput> coordinator = KIT.createTestProbe();
    KIT.spawn(
        MetricsAggregator.create(
            List.of(
                new TaskActor.TaskRef(a, taskA.getRef(), null),
                new TaskActor.TaskRef(b, taskB.getRef(), null)),
            8,
            coordinator.getRef(),
            NEVER));
    taskA.expectMessageClass(TaskActor.GetMetrics.class).replyTo().tell(metrics(a));
    taskB.expectMessageClass(TaskActor.GetMetrics.class).replyTo().tell(metrics(b));
    taskB.stop(); // after it answered: counted once
    JobInput.MetricsGathered gathered =
        coordinator.expectMessageClass(JobInput.MetricsGathered.class, Duration.ofSeconds(10));
    assertThat(gathered.tasks()).extracting(TaskMetricsSnapshot::task).containsExactly(a, b);
    coordinator.expectNoMessage(Duration.ofMillis(200));
  }
}
