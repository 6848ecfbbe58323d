package io.koala.dataflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.CollectionSource;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.function.Collector;
import io.koala.function.DataflowDefinitionException;
import io.koala.operator.Operator;
import io.koala.operator.OperatorFactory;
import io.koala.plan.InputEdge;
import io.koala.plan.LogicalPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.OperatorNode.Kind;
import io.koala.plan.Partitioning;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The DSL: what it builds, and every definition error it reports at {@link #build}. */
class DataflowBuilderTest {

  private static CollectionSource<String> words(String name) {
    return SourceSpec.collection(name, List.of("a", "b", "c"));
  }

  private static OperatorNode node(Dataflow d, String name) {
    return d.plan().node(new OperatorId(name));
  }

  // ------------------------------------------------------------------ valid plans

  @Test
  void buildsOperatorsInTopologicalOrderWithKinds() {
    DataflowBuilder b = Dataflow.builder("wc");
    b.source(words("lines"))
        .flatMap("split", (String s, Collector<String> out) -> out.collect(s))
        .filter("nonEmpty", s -> !s.isEmpty())
        .keyBy(s -> s)
        .count("count")
        .map("render", kv -> kv.key() + "=" + kv.value())
        .sink(SinkSpec.discarding("out"));
    Dataflow d = b.build();

    assertThat(d.name()).isEqualTo("wc");
    LogicalPlan plan = d.plan();
    List<String> order = new ArrayList<>();
    for (OperatorNode n : plan.topologicalOrder()) {
      order.add(n.id().name());
    }
    assertThat(order).containsExactly("lines", "split", "nonEmpty", "count", "render", "out");
    assertThat(node(d, "lines").kind()).isEqualTo(Kind.SOURCE);
    assertThat(node(d, "count").kind()).isEqualTo(Kind.TRANSFORM);
    assertThat(node(d, "count").keyedState()).isTrue();
    assertThat(node(d, "split").keyedState()).isFalse();
    assertThat(node(d, "out").kind()).isEqualTo(Kind.SINK);
    assertThat(plan.buckets()).isEqualTo(128);
  }

  @Test
  void everyOperatorComesAfterAllOfItsInputsInADiamond() {
    DataflowBuilder b = Dataflow.builder("diamond").parallelism(2);
    Stage<String> src = b.source(words("src").partitions(2));
    Stage<String> left = src.map("left", s -> s + "L");
    Stage<String> right = src.map("right", s -> s + "R").parallelism(3);
    Stage<String> both = left.union(right).map("both", s -> s);
    both.sink(SinkSpec.discarding("sinkA"));
    right.sink(SinkSpec.discarding("sinkB"));
    LogicalPlan plan = b.build().plan();

    Set<OperatorId> seen = new HashSet<>();
    for (OperatorNode n : plan.topologicalOrder()) {
      for (InputEdge e : n.inputs()) {
        assertThat(seen).as("inputs of %s", n.id()).contains(e.from());
      }
      seen.add(n.id());
    }
    assertThat(seen).hasSize(6);
    assertThat(plan.consumers(new OperatorId("right")))
        .extracting(n -> n.id().name())
        .containsExactly("both", "sinkB");
  }

  @Test
  void unionGivesTheNextOperatorOneInputEdgePerUnitedStage() {
    DataflowBuilder b = Dataflow.builder("u").parallelism(2);
    Stage<String> a = b.source(words("a").partitions(2));
    Stage<String> c = b.source(words("c").partitions(1));
    Stage<String> e = b.source(words("e").partitions(2));
    a.union(c, e).map("merged", s -> s).sink(SinkSpec.discarding("out"));
    OperatorNode merged = node(b.build(), "merged");

    assertThat(merged.inputs())
        .extracting(InputEdge::from)
        .containsExactly(new OperatorId("a"), new OperatorId("c"), new OperatorId("e"));
    // "c" has 1 partition, so its source runs with parallelism 1 and feeds "merged" (2) by
    // rebalancing; the others keep task i → task i.
    assertThat(merged.inputs())
        .extracting(InputEdge::partitioning)
        .containsExactly(Partitioning.FORWARD, Partitioning.REBALANCE, Partitioning.FORWARD);
  }

  @Test
  void unionOfKeyedStagesGivesOneKeyedEdgePerInput() {
    DataflowBuilder b = Dataflow.builder("u");
    Stage<String> a = b.source(words("a"));
    Stage<String> c = b.source(words("c"));
    a.union(c).keyBy(s -> s).count("count").sink(SinkSpec.discarding("out"));
    OperatorNode count = node(b.build(), "count");
    assertThat(count.inputs())
        .extracting(InputEdge::partitioning)
        .containsExactly(Partitioning.KEYED, Partitioning.KEYED);
    assertThat(count.inputs()).allSatisfy(e -> assertThat(e.keySelector()).isNotNull());
    assertThat(count.hasKeyedInput()).isTrue();
  }

  @Test
  void edgeIsForwardForEqualParallelismRebalanceOtherwiseAndKeyedAfterKeyBy() {
    DataflowBuilder b = Dataflow.builder("edges").parallelism(2);
    b.source(words("src").partitions(2))
        .map("same", s -> s)
        .map("wider", s -> s)
        .parallelism(4)
        .keyBy(s -> s)
        .reduce("reduce", (x, y) -> x + y)
        .sink(SinkSpec.discarding("out"));
    Dataflow d = b.build();
    assertThat(node(d, "same").inputs().get(0).partitioning()).isEqualTo(Partitioning.FORWARD);
    assertThat(node(d, "wider").inputs().get(0).partitioning()).isEqualTo(Partitioning.REBALANCE);
    assertThat(node(d, "reduce").inputs().get(0).partitioning()).isEqualTo(Partitioning.KEYED);
    assertThat(node(d, "reduce").parallelism()).isEqualTo(2);
    assertThat(node(d, "out").inputs().get(0).partitioning()).isEqualTo(Partitioning.FORWARD);
  }

  @Test
  void sourceParallelismDefaultsToAtMostItsPartitions() {
    DataflowBuilder b = Dataflow.builder("p").parallelism(4);
    b.source(words("src").partitions(3)).sink(SinkSpec.discarding("out"));
    Dataflow d = b.build();
    assertThat(node(d, "src").parallelism()).isEqualTo(3);
    assertThat(node(d, "out").parallelism()).isEqualTo(4);
    assertThat(node(d, "out").inputs().get(0).partitioning()).isEqualTo(Partitioning.REBALANCE);
  }

  @Test
  void registeredTypesReachThePlanOnceEach() {
    record Point(int x, int y) {}
    DataflowBuilder b = Dataflow.builder("types").registerTypes(Point.class, String.class);
    b.registerTypes(Point.class);
    b.source(words("src")).sink(SinkSpec.discarding("out"));
    assertThat(b.build().plan().types()).containsExactly(Point.class, String.class);
  }

  @Test
  void aBuiltDataflowCannotBeExtended() {
    DataflowBuilder b = Dataflow.builder("done");
    Stage<String> src = b.source(words("src"));
    src.sink(SinkSpec.discarding("out"));
    b.build();
    assertThatThrownBy(() -> src.map("late", s -> s))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already built");
  }

  // ------------------------------------------------------------------ definition errors

  @Test
  void duplicateNamesAreRejected() {
    DataflowBuilder b = Dataflow.builder("dup");
    b.source(words("src")).map("twice", s -> s).map("twice", s -> s).sink(SinkSpec.discarding("o"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'twice'")
        .hasMessageContaining("used twice");
  }

  @Test
  void aSinkNamedLikeItsSourceIsADuplicate() {
    DataflowBuilder b = Dataflow.builder("dup");
    b.source(words("same")).sink(SinkSpec.discarding("same"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'same'");
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(
      strings = {
        "",
        "has space",
        "-leading-dash",
        ".dot",
        "slash/name",
        "ümlaut",
        "x12345678901234567890123456789012345678901234567890123456789012345"
      })
  void invalidOperatorNamesAreRejectedNamingTheOperator(String name) {
    DataflowBuilder b = Dataflow.builder("names");
    b.source(words("src")).map(name, s -> s).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'" + name + "'")
        .hasMessageContaining("invalid");
  }

  @Test
  void anInvalidSourceNameIsRejected() {
    DataflowBuilder b = Dataflow.builder("names");
    b.source(words("my source")).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'my source'");
  }

  @Test
  void longestAndShortestValidNamesAreAccepted() {
    String longest = "A" + "b.c_d-9".repeat(9); // 64 characters
    assertThat(longest).hasSize(64);
    DataflowBuilder b = Dataflow.builder("names");
    b.source(words("s")).map(longest, x -> x).sink(SinkSpec.discarding("9"));
    assertThat(b.build().plan().contains(new OperatorId(longest))).isTrue();
  }

  @Test
  void aNullOperatorNameIsADefinitionError() {
    DataflowBuilder b = Dataflow.builder("names");
    b.source(words("src")).map(null, s -> s).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build).isInstanceOf(DataflowDefinitionException.class);
  }

  @Test
  void parallelismZeroIsRejectedNamingTheOperator() {
    DataflowBuilder b = Dataflow.builder("p0");
    b.source(words("src")).map("zero", s -> s).parallelism(0).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'zero'")
        .hasMessageContaining("parallelism 0");
  }

  @Test
  void defaultParallelismZeroIsRejectedAtTheFirstOperator() {
    DataflowBuilder b = Dataflow.builder("p0").parallelism(0);
    b.source(words("src")).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'src'")
        .hasMessageContaining("parallelism 0");
  }

  @Test
  void parallelismAboveTheBucketCountIsRejected() {
    DataflowBuilder b = Dataflow.builder("wide").buckets(4);
    b.source(words("src"))
        .keyBy(s -> s)
        .count("count")
        .parallelism(5)
        .sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'count'")
        .hasMessageContaining("parallelism 5 outside [1, 4]");
  }

  @Test
  void parallelismEqualToTheBucketCountIsAccepted() {
    DataflowBuilder b = Dataflow.builder("wide").buckets(4);
    b.source(words("src"))
        .keyBy(s -> s)
        .count("count")
        .parallelism(4)
        .sink(SinkSpec.discarding("o"));
    assertThat(node(b.build(), "count").parallelism()).isEqualTo(4);
  }

  @Test
  void bucketCountOutsideTheKeyLayoutIsRejected() {
    DataflowBuilder b = Dataflow.builder("buckets").buckets(0);
    b.source(words("src")).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("bucket count 0");
  }

  @Test
  void sourceParallelismAbovePartitionsIsRejected() {
    DataflowBuilder b = Dataflow.builder("src");
    b.source(words("src").partitions(2)).parallelism(3).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'src'")
        .hasMessageContaining("exceeds its 2 partitions");
  }

  @Test
  void anOperatorWithoutDownstreamIsRejected() {
    DataflowBuilder b = Dataflow.builder("dangling");
    Stage<String> src = b.source(words("src"));
    src.sink(SinkSpec.discarding("out"));
    src.map("dangling", s -> s);
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'dangling'")
        .hasMessageContaining("no downstream");
  }

  /** An SPI operator that emits nothing: these tests only build the dataflow. */
  private static Operator<String, String> silent() {
    return (value, timestamp, input) -> {};
  }

  @Test
  void anSpiOperatorDeclaredKeyedOnAStageThatIsNotKeyedFailsTheBuildNamingIt() {
    DataflowBuilder b = Dataflow.builder("spi");
    b.source(words("src"))
        .transform("totals", OperatorFactory.keyed(DataflowBuilderTest::silent))
        .sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'totals'")
        .hasMessageContaining("uses keyed state")
        .hasMessageContaining("keyBy");
  }

  @Test
  void anSpiOperatorDeclaredKeyedAfterKeyByHasKeyedStateAndAnUndeclaredOneHasNone() {
    DataflowBuilder b = Dataflow.builder("spi");
    Stage<String> src = b.source(words("src"));
    src.keyBy(s -> s)
        .transform("keyed", OperatorFactory.keyed(DataflowBuilderTest::silent))
        .sink(SinkSpec.discarding("out1"));
    src.transform("plain", DataflowBuilderTest::silent).sink(SinkSpec.discarding("out2"));
    Dataflow d = b.build();
    assertThat(node(d, "keyed").keyedState()).isTrue();
    assertThat(node(d, "plain").keyedState()).isFalse();
  }

  @Test
  void aLoneSourceHasNoDownstream() {
    DataflowBuilder b = Dataflow.builder("lonely");
    b.source(words("src"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'src'")
        .hasMessageContaining("no downstream");
  }

  @Test
  void aDataflowWithoutSourceIsRejected() {
    assertThatThrownBy(() -> Dataflow.builder("empty").build())
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'empty'")
        .hasMessageContaining("no source");
  }

  @Test
  void aBlankDataflowNameIsRejected() {
    DataflowBuilder b = Dataflow.builder(" ");
    b.source(words("src")).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build).isInstanceOf(DataflowDefinitionException.class);
  }

  @Test
  void aUnionHasNoParallelismOfItsOwn() {
    DataflowBuilder b = Dataflow.builder("u");
    Stage<String> a = b.source(words("a"));
    Stage<String> c = b.source(words("c"));
    assertThatThrownBy(() -> a.union(c).parallelism(2))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("union");
  }

  @Test
  void stagesOfDifferentDataflowsCannotBeUnited() {
    Stage<String> a = Dataflow.builder("one").source(words("a"));
    Stage<String> c = Dataflow.builder("two").source(words("c"));
    assertThatThrownBy(() -> a.union(c))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("different dataflows");
  }

  @Test
  void aFailedBuildCanBeFixedAndRetried() {
    DataflowBuilder b = Dataflow.builder("retry");
    Stage<String> src = b.source(words("src"));
    assertThatThrownBy(b::build).isInstanceOf(DataflowDefinitionException.class);
    src.sink(SinkSpec.discarding("out"));
    assertThat(b.build().plan().topologicalOrder()).hasSize(2);
  }

  @Test
  void deadLettersAreReadExactlyWhenThePolicySendsThemAndGoTheirOwnWay() {
    DataflowBuilder unread =
        Dataflow.builder("unread").onRecordError(io.koala.function.RecordErrorPolicy.deadLetter(5));
    unread.source(words("src")).sink(SinkSpec.discarding("out"));
    assertThatThrownBy(unread::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("deadLetter(5)")
        .hasMessageContaining("no operator reads deadLetters()");

    DataflowBuilder unsent = Dataflow.builder("unsent");
    unsent.source(words("src")).sink(SinkSpec.discarding("out"));
    unsent.deadLetters().sink(SinkSpec.discarding("dead"));
    assertThatThrownBy(unsent::build)
        .hasMessageContaining("operator 'dead' reads deadLetters()")
        .hasMessageContaining("RecordErrorPolicy.deadLetter(n)");

    DataflowBuilder mixed =
        Dataflow.builder("mixed").onRecordError(io.koala.function.RecordErrorPolicy.deadLetter(5));
    Stage<String> src = mixed.source(words("src"));
    src.sink(SinkSpec.discarding("out"));
    mixed.deadLetters().map("text", d -> d.record()).union(src).sink(SinkSpec.discarding("both"));
    assertThatThrownBy(mixed::build)
        .hasMessageContaining("operator 'both' reads the dead letters and operator 'src'");
  }
}
