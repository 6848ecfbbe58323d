package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.deploy.LiveDeployment;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.routing.PartitionPolicy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The channels, new tasks and commands of an epoch, worked out before it runs. */
class EpochTopologyTest {
  private static final OperatorId COUNT = new OperatorId("count");

  private static TaskId count(int i) {
    return new TaskId(COUNT, i);
  }

  /** Every channel id the deployment's tasks use now. */
  private static Set<Integer> channelsOf(LiveDeployment d) {
    Set<Integer> used = new HashSet<>();
    for (TaskSetup s : d.setups().values()) {
      used.add(s.clientChannel());
      s.inputs().forEach(in -> used.add(in.channel()));
      s.outputs().forEach(out -> used.addAll(out.channels()));
    }
    return used;
  }

  @Test
  void aScaleOutAddsATaskFedByEveryUpstreamTaskWithAPeerChannelFromEachSender() {
    JobSetup setup = JobSetups.setup(null, null, JobSetups.plan(2), List.of(), false);
    LiveDeployment deployment = JobCore.initialDeployment(setup);
    Set<Integer> before = channelsOf(deployment);
    ExecutionPlan.Vertex vertex = setup.plan().vertex(COUNT);
    ReconfigurationPlan plan =
        new Change.Rescale("count", 3, PartitionPolicy.even()).plan(deployment, COUNT);

    EpochTopology t = EpochTopology.of(1, vertex, plan, deployment, index -> 1);

    assertThat(t.newSetups()).extracting(TaskSetup::task).containsExactly(count(2));
    assertThat(t.newPlacement()).isEqualTo(Map.of(count(2), 1));
    TaskSetup added = t.newSetups().get(0);
    List<TaskId> upstream = deployment.liveTaskIds(vertex.inputs().get(0).from());
    assertThat(added.inputs()).extracting(InputSpec::from).containsExactlyElementsOf(upstream);

    // each upstream task's output after the switch reaches the new task on its new input channel
    assertThat(t.switches().keySet()).containsExactlyElementsOf(upstream);
    for (InputSpec in : added.inputs()) {
      OutputSpec after = t.switches().get(in.from()).values().iterator().next();
      assertThat(after.targets()).containsExactly(count(0), count(1), count(2));
      assertThat(after.channels().get(2)).isEqualTo(in.channel());
    }

    // one peer channel per (sender, receiver); the kept tasks await a marker on every input
    assertThat(t.prepares().keySet()).containsExactly(count(0), count(1), count(2));
    EpochMessage.PrepareTarget receiver = t.prepares().get(count(2));
    assertThat(receiver.peersIn())
        .extracting(EpochMessage.Peer::task)
        .containsExactly(count(0), count(1));
    assertThat(receiver.expectedMarkers()).isEmpty();
    for (int kept : new int[] {0, 1}) {
      EpochMessage.PrepareTarget sender = t.prepares().get(count(kept));
      assertThat(sender.peersOut()).extracting(EpochMessage.Peer::task).containsExactly(count(2));
      assertThat(sender.movesOut()).isNotEmpty().allSatisfy(m -> assertThat(m.to()).isEqualTo(2));
      assertThat(sender.expectedMarkers())
          .containsExactlyElementsOf(
              deployment.setup(count(kept)).inputs().stream().map(InputSpec::channel).toList());
      assertThat(sender.leaving()).isFalse();
    }

    // every channel the epoch opens is fresh, and none is opened twice
    List<Integer> opened = new ArrayList<>();
    opened.add(added.clientChannel());
    added.inputs().forEach(in -> opened.add(in.channel()));
    receiver.peersIn().forEach(p -> opened.add(p.channel()));
    assertThat(opened).doesNotHaveDuplicates().noneMatch(before::contains);
    assertThat(t.downstreamMarkers()).isEmpty(); // not a source
  }

  @Test
  void aScaleInRemovesATaskThatHandsAllItsBucketsToThoseThatStay() {
    JobSetup setup = JobSetups.setup(null, null, JobSetups.plan(3), List.of(), false);
    LiveDeployment deployment = JobCore.initialDeployment(setup);
    ReconfigurationPlan plan =
        new Change.Rescale("count", 2, PartitionPolicy.even()).plan(deployment, COUNT);

    EpochTopology t = EpochTopology.of(1, setup.plan().vertex(COUNT), plan, deployment, index -> 0);

    assertThat(t.newSetups()).isEmpty();
    assertThat(t.prepares().get(count(2)).leaving()).isTrue();
    assertThat(t.prepares().get(count(2)).movesIn()).isEmpty();
    assertThat(t.prepares().get(count(2)).peersOut())
        .extracting(EpochMessage.Peer::task)
        .containsExactlyInAnyOrder(count(0), count(1));
    for (OutputSpec after :
        t.switches().values().stream().flatMap(m -> m.values().stream()).toList()) {
      assertThat(after.targets()).containsExactly(count(0), count(1));
    }
  }
}
