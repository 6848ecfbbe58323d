package io.koala.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SourceSpec;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.KeySelector;
import io.koala.operator.MapOperator;
import io.koala.operator.OperatorFactory;
import io.koala.plan.OperatorNode.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Validation of plans the DSL cannot produce, built from {@link OperatorNode}s directly: cycles,
 * keyed state on non-keyed edges, forward edges between different parallelisms.
 */
class LogicalPlanTest {
  private static final OperatorFactory<Object, Object> IDENTITY = () -> new MapOperator<>(x -> x);
  private static final KeySelector<Object, Object> BY_VALUE = x -> x;

  static OperatorNode source(String name, int parallelism, int partitions) {
    return new OperatorNode(
        new OperatorId(name),
        Kind.SOURCE,
        parallelism,
        List.of(),
        SourceSpec.collection(name, List.of(1, 2, 3)).partitions(partitions),
        null,
        false);
  }

  static OperatorNode transform(String name, int parallelism, InputEdge... inputs) {
    return new OperatorNode(
        new OperatorId(name), Kind.TRANSFORM, parallelism, List.of(inputs), null, IDENTITY, false);
  }

  static OperatorNode keyed(String name, int parallelism, InputEdge... inputs) {
    return new OperatorNode(
        new OperatorId(name), Kind.TRANSFORM, parallelism, List.of(inputs), null, IDENTITY, true);
  }

  static OperatorNode sink(String name, int parallelism, InputEdge... inputs) {
    return new OperatorNode(
        new OperatorId(name), Kind.SINK, parallelism, List.of(inputs), null, IDENTITY, false);
  }

  static InputEdge forward(String from) {
    return new InputEdge(new OperatorId(from), Partitioning.FORWARD, null);
  }

  static InputEdge rebalance(String from) {
    return new InputEdge(new OperatorId(from), Partitioning.REBALANCE, null);
  }

  static InputEdge byKey(String from) {
    return new InputEdge(new OperatorId(from), Partitioning.KEYED, BY_VALUE);
  }

  private static LogicalPlan plan(OperatorNode... nodes) {
    return LogicalPlan.of("test", List.of(nodes), 16, List.of());
  }

  @Test
  void aValidPlanListsEveryOperatorAfterItsInputs() {
    // Defined out of order on purpose: the topological order must not follow definition order.
    LogicalPlan p =
        plan(
            sink("out", 2, forward("join")),
            transform("join", 2, forward("a"), rebalance("b")),
            source("a", 2, 2),
            source("b", 1, 1));
    List<String> order = p.topologicalOrder().stream().map(n -> n.id().name()).toList();
    assertThat(order.indexOf("a")).isLessThan(order.indexOf("join"));
    assertThat(order.indexOf("b")).isLessThan(order.indexOf("join"));
    assertThat(order.indexOf("join")).isLessThan(order.indexOf("out"));
    assertThat(order).hasSize(4);
    assertThat(p.name()).isEqualTo("test");
    assertThat(p.buckets()).isEqualTo(16);
    assertThat(p.consumers(new OperatorId("a")))
        .extracting(n -> n.id().name())
        .containsExactly("join");
    assertThat(p.contains(new OperatorId("nope"))).isFalse();
    assertThatThrownBy(() -> p.node(new OperatorId("nope")))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("nope");
  }

  @Test
  void aCycleIsRejectedNamingItsOperators() {
    assertThatThrownBy(
            () ->
                plan(
                    source("src", 1, 1),
                    transform("x", 1, forward("src"), forward("y")),
                    transform("y", 1, forward("x")),
                    sink("out", 1, forward("y"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("cycle")
        .hasMessageContaining("x")
        .hasMessageContaining("y");
  }

  @Test
  void aSelfLoopIsACycle() {
    assertThatThrownBy(
            () ->
                plan(
                    source("src", 1, 1),
                    transform("self", 1, forward("src"), forward("self")),
                    sink("out", 1, forward("self"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("cycle")
        .hasMessageContaining("self");
  }

  @Test
  void keyedStateOnANonKeyedEdgeIsRejected() {
    assertThatThrownBy(
            () ->
                plan(
                    source("src", 1, 1),
                    keyed("counter", 1, forward("src")),
                    sink("out", 1, forward("counter"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'counter'")
        .hasMessageContaining("keyed state")
        .hasMessageContaining("'src'");
  }

  @Test
  void keyedStateNeedsEveryInputKeyed() {
    assertThatThrownBy(
            () ->
                plan(
                    source("a", 1, 1),
                    source("b", 1, 1),
                    keyed("counter", 2, byKey("a"), rebalance("b")),
                    sink("out", 2, forward("counter"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'counter'")
        .hasMessageContaining("'b'");
  }

  @Test
  void aForwardEdgeBetweenDifferentParallelismsIsRejected() {
    assertThatThrownBy(
            () ->
                plan(
                    source("src", 2, 2),
                    transform("m", 3, forward("src")),
                    sink("o", 3, forward("m"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'m'")
        .hasMessageContaining("forward edge from 'src'")
        .hasMessageContaining("got 2 and 3");
  }

  @Test
  void noSourceIsRejected() {
    assertThatThrownBy(() -> plan(sink("out", 1)))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("no source");
  }

  @Test
  void aSourceWithInputsIsRejected() {
    OperatorNode src =
        new OperatorNode(
            new OperatorId("src"),
            Kind.SOURCE,
            1,
            List.of(forward("other")),
            SourceSpec.collection("src", List.of(1)),
            null,
            false);
    assertThatThrownBy(() -> plan(source("other", 1, 1), src, sink("out", 1, forward("src"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'src'")
        .hasMessageContaining("cannot have inputs");
  }

  @Test
  void anOperatorWithoutInputsIsRejected() {
    assertThatThrownBy(
            () -> plan(source("src", 1, 1), sink("out", 1, forward("src")), sink("orphan", 1)))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'orphan'")
        .hasMessageContaining("no input");
  }

  @Test
  void readingFromAnUnknownOperatorIsRejected() {
    assertThatThrownBy(() -> plan(source("src", 1, 1), sink("out", 1, forward("ghost"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'out'")
        .hasMessageContaining("unknown operator 'ghost'");
  }

  @Test
  void readingFromASinkIsRejected() {
    assertThatThrownBy(
            () ->
                plan(
                    source("src", 1, 1),
                    sink("first", 1, forward("src")),
                    sink("second", 1, forward("first"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'second'")
        .hasMessageContaining("sink 'first'");
  }

  @Test
  void parallelismAboveBucketsIsRejectedForAnyOperator() {
    assertThatThrownBy(() -> plan(source("src", 17, 32), sink("out", 17, forward("src"))))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'src'")
        .hasMessageContaining("parallelism 17 outside [1, 16]");
  }

  @Test
  void inputEdgeTiesTheKeySelectorToKeyedPartitioning() {
    assertThatThrownBy(() -> new InputEdge(new OperatorId("a"), Partitioning.KEYED, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new InputEdge(new OperatorId("a"), Partitioning.FORWARD, BY_VALUE))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void operatorIdValidity() {
    assertThat(OperatorId.isValid("a")).isTrue();
    assertThat(OperatorId.isValid("0-a.b_c")).isTrue();
    assertThat(OperatorId.isValid("a".repeat(64))).isTrue();
    assertThat(OperatorId.isValid("a".repeat(65))).isFalse();
    assertThat(OperatorId.isValid("_a")).isFalse();
    assertThat(OperatorId.isValid(null)).isFalse();
    assertThat(new TaskId(new OperatorId("count"), 3)).hasToString("count#3");
    assertThatThrownBy(() -> new TaskId(new OperatorId("count"), -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
