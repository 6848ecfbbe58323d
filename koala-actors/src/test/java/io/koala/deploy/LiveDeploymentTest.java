package io.koala.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The deployment is a value: each change gives a new one and leaves the one it changed as it was
 * (what a checkpoint kept stays what it kept), and a change that would break the deployment's
 * invariants is refused.
 */
class LiveDeploymentTest {
  private static final OperatorId COUNT = new OperatorId("count");

  private static LiveDeployment deployment() {
    DataflowBuilder b = Dataflow.builder("live").parallelism(2);
    b.source(SourceSpec.generator("n", (i, seed) -> i % 10).count(100))
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());
    return LiveDeployment.of(
        plan, DeploymentPlan.of("live-1", plan, 2, new ChannelSettings(16, 4096, 5, 4)));
  }

  /** Task count-2, a copy of count-0's setup reading on {@code channel}. */
  private static TaskSetup third(LiveDeployment d, int channel) {
    TaskSetup like = d.setup(new TaskId(COUNT, 0));
    List<InputSpec> inputs = new ArrayList<>();
    for (InputSpec in : like.inputs()) {
      inputs.add(new InputSpec(channel, in.from(), in.input()));
    }
    return new TaskSetup(
        like.jobId(),
        new TaskId(COUNT, 2),
        3,
        like.buckets(),
        inputs,
        like.outputs(),
        like.inputRouting(),
        channel + 1,
        like.settings());
  }

  @Test
  void aChangeLeavesTheValueItChangedAsItWas() {
    LiveDeployment before = deployment();
    int channel = before.nextChannel();
    TaskId one = new TaskId(COUNT, 1);
    int wasOn = before.placement(one);
    LiveDeployment after =
        before
            .withChannelsFrom(channel + 2)
            .withNewTasks(List.of(third(before, channel)), Map.of(new TaskId(COUNT, 2), 1))
            .withRetired(List.of(new TaskId(COUNT, 0)))
            .relocated(Map.of(one, 1 - wasOn));

    assertThat(after.liveTasks(COUNT)).containsExactly(1, 2);
    assertThat(after.highestIndex(COUNT)).isEqualTo(2);
    assertThat(after.retired()).containsExactly(new TaskId(COUNT, 0));
    assertThat(after.placement(new TaskId(COUNT, 2))).isEqualTo(1);
    assertThat(after.placement(one)).isEqualTo(1 - wasOn);
    assertThat(after.nextChannel()).isEqualTo(channel + 2);

    assertThat(before.liveTasks(COUNT)).containsExactly(0, 1);
    assertThat(before.highestIndex(COUNT)).isEqualTo(1);
    assertThat(before.retired()).isEmpty();
    assertThat(before.setups()).doesNotContainKey(new TaskId(COUNT, 2));
    assertThat(before.placement(one)).isEqualTo(wasOn);
    assertThat(before.nextChannel()).isEqualTo(channel);
  }

  @Test
  void aNewTaskReadsOnlyChannelsTheDeploymentHasTaken() {
    LiveDeployment d = deployment();
    TaskSetup reads = third(d, d.nextChannel());
    assertThatThrownBy(() -> d.withNewTasks(List.of(reads), Map.of(reads.task(), 0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not below the next free");
  }

  @Test
  void aTaskIsAddedOnceAndWithAWorker() {
    LiveDeployment d = deployment().withChannelsFrom(deployment().nextChannel() + 2);
    TaskSetup s = third(d, d.nextChannel() - 2);
    assertThatThrownBy(() -> d.withNewTasks(List.of(s), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(new TaskId(COUNT, 2).toString());
    LiveDeployment added = d.withNewTasks(List.of(s), Map.of(s.task(), 0));
    assertThatThrownBy(() -> added.withNewTasks(List.of(s), Map.of(s.task(), 0)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void onlyTasksItHasChangeOrMove() {
    LiveDeployment d = deployment();
    TaskId unknown = new TaskId(COUNT, 7);
    assertThatThrownBy(() -> d.withRetired(List.of(unknown)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.relocated(Map.of(unknown, 0)))
        .isInstanceOf(IllegalArgumentException.class);
    TaskSetup s = d.setup(new TaskId(COUNT, 0));
    assertThatThrownBy(
            () ->
                d.withSetups(
                    List.of(
                        new TaskSetup(
                            s.jobId(),
                            unknown,
                            s.parallelism(),
                            s.buckets(),
                            s.inputs(),
                            s.outputs(),
                            s.inputRouting(),
                            s.clientChannel(),
                            s.settings()))))
        .isInstanceOf(IllegalArgumentException.class);
    LiveDeployment retired = d.withRetired(List.of(new TaskId(COUNT, 0)));
    assertThatThrownBy(() -> retired.withRetired(List.of(new TaskId(COUNT, 0))))
        .as("retired already")
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theChannelsTakenNeverGoBack() {
    LiveDeployment d = deployment();
    assertThatThrownBy(() -> d.withChannelsFrom(d.nextChannel() - 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
