package io.koala.dataflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.function.Collector;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.InputEdge;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.Partitioning;
import io.koala.window.WindowAssigner;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What connect, join and intervalJoin define, and the definition errors they report. */
class TwoInputDefinitionTest {

  private static Stage<String> words(DataflowBuilder b, String name) {
    return b.source(SourceSpec.collection(name, List.of("a", "b")));
  }

  private static final class Concat extends KeyedCoProcessFunction<String, String, String, String> {
    @Override
    public void processElement1(String value, Context<String> ctx, Collector<String> out) {
      out.collect(value);
    }

    @Override
    public void processElement2(String value, Context<String> ctx, Collector<String> out) {
      out.collect(value);
    }
  }

  private static OperatorNode node(Dataflow d, String name) {
    return d.plan().node(new OperatorId(name));
  }

  @Test
  void connectAddsOneKeyedOperatorWithTheFirstStageOnInput0AndTheSecondOnInput1() {
    DataflowBuilder b = Dataflow.builder("co").parallelism(3);
    Stage<String> left = words(b, "left");
    Stage<String> right = words(b, "right").union(words(b, "right2"));
    left.keyBy(w -> w)
        .connect(right.keyBy(w -> w))
        .process("co", Concat::new)
        .sink(SinkSpec.discarding("out"));
    Dataflow d = b.build();

    OperatorNode co = node(d, "co");
    assertThat(co.keyedState()).isTrue();
    assertThat(co.inputs())
        .extracting(InputEdge::from, InputEdge::logicalInput, InputEdge::partitioning)
        .containsExactly(
            tuple(new OperatorId("left"), 0, Partitioning.KEYED),
            tuple(new OperatorId("right"), 1, Partitioning.KEYED),
            tuple(new OperatorId("right2"), 1, Partitioning.KEYED));
    // A two-input operator heads its own task; the sink chains to it.
    ExecutionPlan plan = ExecutionPlan.of(d.plan());
    assertThat(plan.vertexOf(new OperatorId("out")).head().id()).isEqualTo(new OperatorId("co"));
    assertThat(plan.vertex(new OperatorId("co")).inputs()).hasSize(3);
  }

  @Test
  void windowAndIntervalJoinsAreKeyedTwoInputOperators() {
    DataflowBuilder b = Dataflow.builder("joins");
    KeyedStage<String, String> l = words(b, "l").keyBy(w -> w);
    KeyedStage<String, String> r = words(b, "r").keyBy(w -> w);
    l.join(r)
        .window(WindowAssigner.tumbling(Duration.ofSeconds(10)))
        .apply("window-join", (x, y) -> x + y)
        .sink(SinkSpec.discarding("out1"));
    l.join(r)
        .window(WindowAssigner.session(Duration.ofSeconds(5)))
        .apply("session-join", (x, y) -> x + y)
        .sink(SinkSpec.discarding("out2"));
    l.intervalJoin(r)
        .between(Duration.ofSeconds(-1), Duration.ofSeconds(1))
        .apply("interval-join", (x, y) -> x + y)
        .sink(SinkSpec.discarding("out3"));
    Dataflow d = b.build();
    for (String join : List.of("window-join", "session-join", "interval-join")) {
      OperatorNode n = node(d, join);
      assertThat(n.keyedState()).as(join).isTrue();
      assertThat(n.inputs()).extracting(InputEdge::logicalInput).containsExactly(0, 1);
      assertThat(n.inputs()).extracting(InputEdge::partitioning).containsOnly(Partitioning.KEYED);
    }
  }

  @Test
  void aStageJoinsItself() {
    DataflowBuilder b = Dataflow.builder("self");
    KeyedStage<String, String> s = words(b, "s").keyBy(w -> w);
    s.intervalJoin(s)
        .between(Duration.ZERO, Duration.ZERO)
        .apply("self", (x, y) -> x + y)
        .sink(SinkSpec.discarding("out"));
    Dataflow d = b.build();
    assertThat(node(d, "self").inputs())
        .extracting(InputEdge::from)
        .containsExactly(new OperatorId("s"), new OperatorId("s"));
  }

  @Test
  void stagesOfDifferentDataflowsCannotBeConnectedOrJoined() {
    DataflowBuilder b1 = Dataflow.builder("one");
    DataflowBuilder b2 = Dataflow.builder("two");
    KeyedStage<String, String> mine = words(b1, "mine").keyBy(w -> w);
    KeyedStage<String, String> theirs = words(b2, "theirs").keyBy(w -> w);
    assertThatThrownBy(() -> mine.connect(theirs))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("cannot connect stages of different dataflows");
    assertThatThrownBy(() -> mine.join(theirs))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("cannot join stages of different dataflows");
    assertThatThrownBy(() -> mine.intervalJoin(theirs))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("different dataflows");
  }

  @Test
  void anIntervalWithTheLowerBoundAboveTheUpperIsRejected() {
    DataflowBuilder b = Dataflow.builder("bad");
    KeyedStage<String, String> l = words(b, "l").keyBy(w -> w);
    KeyedStage<String, String> r = words(b, "r").keyBy(w -> w);
    IntervalJoin<String, String, String> join = l.intervalJoin(r);
    assertThatThrownBy(() -> join.between(Duration.ofMillis(5), Duration.ofMillis(4)))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("lower bound 5 ms must not exceed upper bound 4 ms");
    // Equal bounds are an exact-timestamp join; negative bounds are fine.
    join.between(Duration.ofMillis(-5), Duration.ofMillis(-5));
  }

  @Test
  void aJoinWithoutANameFailsAtBuild() {
    DataflowBuilder b = Dataflow.builder("nameless");
    KeyedStage<String, String> l = words(b, "l").keyBy(w -> w);
    l.join(words(b, "r").keyBy(w -> w))
        .window(WindowAssigner.tumbling(Duration.ofSeconds(1)))
        .apply(null, (x, y) -> x + y)
        .sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("has no name");
  }
}
