package io.koala.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.ExecutionPlan.VertexOutput;
import io.koala.plan.OperatorId;
import io.koala.plan.Partitioning;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.routing.RoutingTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The first deployment of a job: channels, routing tables and placement. */
class DeploymentPlanTest {
  private static final ChannelSettings SETTINGS = new ChannelSettings(16, 4096, 5, 4);

  static Stream<Arguments> plans() {
    return Stream.of(
        Arguments.of("wordCount", wordCount(), 2),
        Arguments.of("wordCount", wordCount(), 3),
        Arguments.of("unionAndRebalance", unionAndRebalance(), 1),
        Arguments.of("unionAndRebalance", unionAndRebalance(), 4),
        Arguments.of("fanOutKeyed", fanOutKeyed(), 5));
  }

  private static ExecutionPlan wordCount() {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(3);
    b.source(SourceSpec.collection("lines", List.of("a b")).partitions(3))
        .map("upper", String::toUpperCase)
        .keyBy(w -> w)
        .count("count")
        .parallelism(4)
        .sink(SinkSpec.discarding("out"))
        .parallelism(4);
    return ExecutionPlan.of(b.build().plan());
  }

  private static ExecutionPlan unionAndRebalance() {
    DataflowBuilder b = Dataflow.builder("union").parallelism(2).buckets(32);
    Stage<String> a = b.source(SourceSpec.collection("a", List.of("x")).partitions(2));
    Stage<String> c = b.source(SourceSpec.collection("c", List.of("y")).partitions(1));
    a.union(c).map("merged", s -> s).parallelism(3).sink(SinkSpec.discarding("out")).parallelism(3);
    return ExecutionPlan.of(b.build().plan());
  }

  private static ExecutionPlan fanOutKeyed() {
    DataflowBuilder b = Dataflow.builder("fan").parallelism(2).buckets(7);
    Stage<String> src = b.source(SourceSpec.collection("src", List.of("x")).partitions(2));
    src.keyBy(s -> s)
        .count("left")
        .parallelism(3)
        .sink(SinkSpec.discarding("leftOut"))
        .parallelism(3);
    src.union(src).keyBy(s -> s).count("right").sink(SinkSpec.discarding("rightOut"));
    src.map("plain", s -> s).sink(SinkSpec.discarding("plainOut"));
    return ExecutionPlan.of(b.build().plan());
  }

  @ParameterizedTest(name = "{0} on {2} workers")
  @MethodSource("plans")
  void everyTaskHasASetupAndAWorker(String name, ExecutionPlan plan, int workers) {
    DeploymentPlan d = DeploymentPlan.of("job-1", plan, workers, SETTINGS);
    List<TaskId> tasks = new ArrayList<>();
    for (Vertex v : plan.vertices()) {
      tasks.addAll(v.tasks());
    }
    assertThat(d.setups().keySet()).containsExactlyElementsOf(tasks);
    assertThat(d.placement().keySet()).containsExactlyElementsOf(tasks);
    for (TaskId t : tasks) {
      TaskSetup s = d.setups().get(t);
      Vertex v = plan.vertex(t.operator());
      assertThat(s.task()).isEqualTo(t);
      assertThat(s.jobId()).isEqualTo("job-1");
      assertThat(s.parallelism()).isEqualTo(v.parallelism());
      assertThat(s.buckets()).isEqualTo(plan.logical().buckets());
      assertThat(s.settings()).isEqualTo(SETTINGS);
      assertThat(s.outputs()).hasSameSizeAs(v.outputs());
    }
  }

  @ParameterizedTest(name = "{0} on {2} workers")
  @MethodSource("plans")
  void placementIsRoundRobinOverWorkersInTopologicalOrder(
      String name, ExecutionPlan plan, int workers) {
    DeploymentPlan d = DeploymentPlan.of("job", plan, workers, SETTINGS);
    int i = 0;
    int[] perWorker = new int[workers];
    for (Map.Entry<TaskId, Integer> e : d.placement().entrySet()) {
      assertThat(e.getValue()).as("%s", e.getKey()).isEqualTo(i % workers);
      perWorker[e.getValue()]++;
      i++;
    }
    for (int w = 0; w < workers; w++) {
      assertThat(perWorker[w]).isBetween(i / workers, (i + workers - 1) / workers);
      int worker = w;
      assertThat(d.tasksOn(w))
          .extracting(TaskSetup::task)
          .containsExactlyElementsOf(
              d.placement().entrySet().stream()
                  .filter(e -> e.getValue() == worker)
                  .map(Map.Entry::getKey)
                  .toList());
    }
  }

  @ParameterizedTest(name = "{0} on {2} workers")
  @MethodSource("plans")
  void everyOutputChannelHasExactlyOneMatchingInputAtItsTarget(
      String name, ExecutionPlan plan, int workers) {
    DeploymentPlan d = DeploymentPlan.of("job", plan, workers, SETTINGS);
    Set<Integer> dataChannels = new HashSet<>();
    Map<Integer, TaskId> senderOf = new HashMap<>();
    for (TaskSetup s : d.setups().values()) {
      Vertex v = plan.vertex(s.task().operator());
      for (int e = 0; e < s.outputs().size(); e++) {
        OutputSpec out = s.outputs().get(e);
        VertexOutput edge = v.outputs().get(e);
        Vertex to = plan.vertex(edge.to());
        assertThat(out.partitioning()).isEqualTo(edge.partitioning());
        if (out.partitioning() == Partitioning.FORWARD) {
          assertThat(out.targets()).containsExactly(new TaskId(to.id(), s.task().index()));
        } else {
          assertThat(out.targets()).containsExactlyElementsOf(to.tasks());
        }
        for (int i = 0; i < out.channels().size(); i++) {
          int channel = out.channels().get(i);
          assertThat(dataChannels.add(channel)).as("channel %d unique", channel).isTrue();
          senderOf.put(channel, s.task());
          TaskSetup target = d.setups().get(out.targets().get(i));
          List<InputSpec> matching =
              target.inputs().stream().filter(in -> in.channel() == channel).toList();
          assertThat(matching)
              .as("inputs of %s for channel %d", target.task(), channel)
              .containsExactly(new InputSpec(channel, s.task(), edge.inputIndex()));
        }
      }
    }
    // And every input is some output's channel: no input waits for a sender that does not exist.
    for (TaskSetup s : d.setups().values()) {
      for (InputSpec in : s.inputs()) {
        assertThat(senderOf.get(in.channel())).as("sender of %s", in).isEqualTo(in.from());
      }
    }
  }

  @ParameterizedTest(name = "{0} on {2} workers")
  @MethodSource("plans")
  void keyedEdgesCarryTheEvenRoutingTableOfTheirTarget(
      String name, ExecutionPlan plan, int workers) {
    DeploymentPlan d = DeploymentPlan.of("job", plan, workers, SETTINGS);
    int buckets = plan.logical().buckets();
    for (TaskSetup s : d.setups().values()) {
      for (OutputSpec out : s.outputs()) {
        if (out.partitioning() == Partitioning.KEYED) {
          RoutingTable table =
              RoutingTable.of(
                  out.routing().stream().mapToInt(Integer::intValue).toArray(),
                  out.targets().size());
          assertThat(table).isEqualTo(RoutingTable.even(buckets, out.targets().size()));
          // The receiving task owns exactly the buckets the sender routes to it.
          for (int b = 0; b < buckets; b++) {
            TaskSetup target = d.setups().get(out.targets().get(table.owner(b)));
            assertThat(target.inputRouting().get(b)).isEqualTo(target.task().index());
          }
        } else {
          assertThat(out.routing()).isEmpty();
        }
      }
      Vertex v = plan.vertex(s.task().operator());
      if (v.isKeyed()) {
        assertThat(s.inputRouting()).hasSize(buckets);
        assertThat(s.inputRouting()).contains(s.task().index());
      } else {
        assertThat(s.inputRouting()).isEmpty();
      }
    }
  }

  @ParameterizedTest(name = "{0} on {2} workers")
  @MethodSource("plans")
  void clientChannelsAreUniqueAndDistinctFromDataChannels(
      String name, ExecutionPlan plan, int workers) {
    DeploymentPlan d = DeploymentPlan.of("job", plan, workers, SETTINGS);
    Set<Integer> all = new HashSet<>();
    for (TaskSetup s : d.setups().values()) {
      for (OutputSpec out : s.outputs()) {
        all.addAll(out.channels());
      }
    }
    int data = all.size();
    for (TaskSetup s : d.setups().values()) {
      assertThat(all.add(s.clientChannel())).as("client channel of %s", s.task()).isTrue();
    }
    assertThat(all).hasSize(data + d.setups().size());
  }

  @ParameterizedTest(name = "{0} on {2} workers")
  @MethodSource("plans")
  void inputIndicesMatchTheHeadOperatorsInputs(String name, ExecutionPlan plan, int workers) {
    DeploymentPlan d = DeploymentPlan.of("job", plan, workers, SETTINGS);
    for (TaskSetup s : d.setups().values()) {
      Vertex v = plan.vertex(s.task().operator());
      for (InputSpec in : s.inputs()) {
        assertThat(in.input()).isBetween(0, v.inputs().size() - 1);
        OperatorId producer = v.inputs().get(in.input()).from();
        assertThat(in.from().operator()).isEqualTo(producer);
      }
      // One channel per sender task and input edge.
      int expected = 0;
      for (var vi : v.inputs()) {
        Vertex from = plan.vertex(vi.from());
        expected += vi.partitioning() == Partitioning.FORWARD ? 1 : from.parallelism();
      }
      assertThat(s.inputs()).hasSize(expected);
    }
  }
}
