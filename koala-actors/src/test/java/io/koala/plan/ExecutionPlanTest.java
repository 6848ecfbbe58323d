package io.koala.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.ExecutionPlan.VertexInput;
import io.koala.plan.ExecutionPlan.VertexOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Operator chaining: which operators share a task, and the edges between vertices. */
class ExecutionPlanTest {

  private static Stage<Integer> numbers(DataflowBuilder b, String name, int partitions) {
    return b.source(SourceSpec.collection(name, List.of(1, 2, 3, 4)).partitions(partitions));
  }

  private static List<List<String>> chains(ExecutionPlan plan) {
    return plan.vertices().stream()
        .map(v -> v.chain().stream().map(n -> n.id().name()).toList())
        .toList();
  }

  private static OperatorId id(String name) {
    return new OperatorId(name);
  }

  @Test
  void sourceMapFilterSinkAtEqualParallelismFormOneVertex() {
    DataflowBuilder b = Dataflow.builder("chain").parallelism(2);
    numbers(b, "src", 2)
        .map("double", x -> x * 2)
        .filter("even", x -> x % 2 == 0)
        .sink(SinkSpec.discarding("out"));
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());

    assertThat(chains(plan)).containsExactly(List.of("src", "double", "even", "out"));
    Vertex v = plan.vertices().get(0);
    assertThat(v.id()).isEqualTo(id("src"));
    assertThat(v.parallelism()).isEqualTo(2);
    assertThat(v.isSource()).isTrue();
    assertThat(v.isKeyed()).isFalse();
    assertThat(v.head().id()).isEqualTo(id("src"));
    assertThat(v.tail().id()).isEqualTo(id("out"));
    assertThat(v.inputs()).isEmpty();
    assertThat(v.outputs()).isEmpty();
    assertThat(v.tasks()).containsExactly(new TaskId(id("src"), 0), new TaskId(id("src"), 1));
    assertThat(plan.vertexOf(id("even"))).isSameAs(plan.vertex(id("src")));
  }

  @Test
  void keyByCutsTheChainAndAnEqualParallelismSinkChainsIntoTheKeyedOperator() {
    DataflowBuilder b = Dataflow.builder("keyed").parallelism(2);
    numbers(b, "src", 2)
        .map("toText", x -> "k" + x)
        .keyBy(s -> s)
        .count("count")
        .sink(SinkSpec.discarding("out"));
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());

    assertThat(chains(plan)).containsExactly(List.of("src", "toText"), List.of("count", "out"));
    Vertex src = plan.vertex(id("src"));
    Vertex count = plan.vertex(id("count"));
    assertThat(count.isKeyed()).isTrue();
    assertThat(src.isKeyed()).isFalse();
    assertThat(src.outputs()).hasSize(1);
    VertexOutput out = src.outputs().get(0);
    assertThat(out.to()).isEqualTo(id("count"));
    assertThat(out.inputIndex()).isZero();
    assertThat(out.partitioning()).isEqualTo(Partitioning.KEYED);
    assertThat(out.keySelector()).isNotNull();
    assertThat(count.inputs()).hasSize(1);
    VertexInput in = count.inputs().get(0);
    assertThat(in.index()).isZero();
    assertThat(in.from()).isEqualTo(id("src"));
    assertThat(in.partitioning()).isEqualTo(Partitioning.KEYED);
    assertThat(in.keySelector()).isSameAs(out.keySelector());
  }

  @Test
  void fanOutCutsTheChain() {
    DataflowBuilder b = Dataflow.builder("fan");
    Stage<Integer> mapped = numbers(b, "src", 1).map("mapped", x -> x + 1);
    mapped.filter("small", x -> x < 3).sink(SinkSpec.discarding("smallOut"));
    mapped.filter("large", x -> x >= 3).sink(SinkSpec.discarding("largeOut"));
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());

    assertThat(chains(plan))
        .containsExactlyInAnyOrder(
            List.of("src", "mapped"), List.of("small", "smallOut"), List.of("large", "largeOut"));
    Vertex src = plan.vertex(id("src"));
    assertThat(src.outputs())
        .extracting(VertexOutput::to)
        .containsExactly(id("small"), id("large"));
    assertThat(src.outputs())
        .extracting(VertexOutput::partitioning)
        .containsOnly(Partitioning.FORWARD);
    assertThat(plan.vertex(id("small")).inputs().get(0).from()).isEqualTo(id("src"));
  }

  @Test
  void differentParallelismCutsTheChain() {
    DataflowBuilder b = Dataflow.builder("wide");
    numbers(b, "src", 1)
        .map("wide", x -> x)
        .parallelism(3)
        .sink(SinkSpec.discarding("out"))
        .parallelism(3);
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());

    assertThat(chains(plan)).containsExactly(List.of("src"), List.of("wide", "out"));
    assertThat(plan.vertex(id("src")).parallelism()).isEqualTo(1);
    assertThat(plan.vertex(id("wide")).parallelism()).isEqualTo(3);
    assertThat(plan.vertex(id("src")).outputs().get(0).partitioning())
        .isEqualTo(Partitioning.REBALANCE);
    assertThat(plan.vertex(id("wide")).inputs().get(0).partitioning())
        .isEqualTo(Partitioning.REBALANCE);
  }

  @Test
  void aUnionHeadsItsOwnVertexWithOneInputPerUnitedStage() {
    DataflowBuilder b = Dataflow.builder("union");
    Stage<Integer> left = numbers(b, "left", 1).map("leftMap", x -> x);
    Stage<Integer> right = numbers(b, "right", 1);
    left.union(right).map("merged", x -> x).sink(SinkSpec.discarding("out"));
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());

    assertThat(chains(plan))
        .containsExactlyInAnyOrder(
            List.of("left", "leftMap"), List.of("right"), List.of("merged", "out"));
    Vertex merged = plan.vertex(id("merged"));
    assertThat(merged.inputs()).extracting(VertexInput::index).containsExactly(0, 1);
    assertThat(merged.inputs())
        .extracting(VertexInput::from)
        .containsExactly(id("left"), id("right"));
    assertThat(plan.vertex(id("left")).outputs())
        .containsExactly(new VertexOutput(id("merged"), 0, Partitioning.FORWARD, null, null));
    assertThat(plan.vertex(id("right")).outputs())
        .containsExactly(new VertexOutput(id("merged"), 1, Partitioning.FORWARD, null, null));
  }

  @Test
  void verticesComeInTopologicalOrder() {
    DataflowBuilder b = Dataflow.builder("topo").parallelism(2);
    numbers(b, "src", 2)
        .keyBy(x -> x % 3)
        .reduce("sum", Integer::sum)
        .map("wider", x -> x)
        .parallelism(4)
        .sink(SinkSpec.discarding("out"))
        .parallelism(4);
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());
    assertThat(plan.vertices())
        .extracting(Vertex::id)
        .containsExactly(id("src"), id("sum"), id("wider"));
    assertThat(plan.logical().name()).isEqualTo("topo");
    assertThatThrownBy(() -> plan.vertex(id("out")))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("out");
    assertThatThrownBy(() -> plan.vertexOf(id("missing")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("missing");
  }

  /**
   * Each vertex outside the dead letters' own way sends them from its tail: the job's chains stay
   * as they are, and the dead letters' reader has one rebalancing edge per vertex.
   */
  @Test
  void everyVertexSendsItsDeadLettersFromItsTailAndTheChainsStay() {
    DataflowBuilder b =
        Dataflow.builder("dlq")
            .parallelism(2)
            .onRecordError(io.koala.function.RecordErrorPolicy.deadLetter(10));
    numbers(b, "src", 2)
        .map("double", x -> x * 2)
        .keyBy(x -> x % 3)
        .count("keyed")
        .sink(SinkSpec.discarding("out"));
    b.deadLetters().map("describe", d -> d.operator()).sink(SinkSpec.discarding("dead"));
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());

    assertThat(chains(plan))
        .containsExactly(
            List.of("src", "double"), List.of("keyed", "out"), List.of("describe", "dead"));
    for (String v : List.of("src", "keyed")) {
      assertThat(plan.vertex(id(v)).sendsDeadLetters()).as(v).isTrue();
      assertThat(plan.vertex(id(v)).outputs())
          .filteredOn(o -> InputEdge.DEAD_LETTERS.equals(o.sideOutput()))
          .extracting(VertexOutput::to, VertexOutput::partitioning)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(id("describe"), Partitioning.REBALANCE));
    }
    Vertex dead = plan.vertex(id("describe"));
    assertThat(dead.sendsDeadLetters()).as("on their own way").isFalse();
    assertThat(dead.inputs()).extracting(VertexInput::from).containsExactly(id("src"), id("keyed"));
  }
}
