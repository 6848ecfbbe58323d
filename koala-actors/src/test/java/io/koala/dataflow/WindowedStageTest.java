package io.koala.dataflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.function.AggregateFunction;
import io.koala.function.Collector;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.OutputTag;
import io.koala.plan.OperatorId;
import io.koala.window.ProcessWindowFunction;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The window DSL: what it adds to the plan, and the definition errors {@code build()} reports. */
class WindowedStageTest {

  /** Sums without merge(): fine for tumbling and sliding windows, not for sessions. */
  static final class Sum implements AggregateFunction<Long, Long, Long> {
    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Long value, Long acc) {
      return acc + value;
    }

    @Override
    public Long result(Long acc) {
      return acc;
    }
  }

  static final class MergingSum implements AggregateFunction<Long, Long, Long> {
    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Long value, Long acc) {
      return acc + value;
    }

    @Override
    public Long result(Long acc) {
      return acc;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  private static KeyedStage<Long, Long> keyed(DataflowBuilder b) {
    return keyed(b, "numbers");
  }

  private static KeyedStage<Long, Long> keyed(DataflowBuilder b, String source) {
    return b.source(SourceSpec.collection(source, List.of(1L, 2L)).timestamps(x -> x))
        .keyBy(x -> x % 2);
  }

  @Test
  void eachTerminalOperationAddsAKeyedOperator() {
    DataflowBuilder b = Dataflow.builder("w");
    WindowedStage<Long, Long> tumbling =
        keyed(b).window(WindowAssigner.tumbling(Duration.ofSeconds(1)));
    tumbling.reduce("reduced", Long::sum).sink(SinkSpec.discarding("o1"));
    tumbling.aggregate("aggregated", new Sum()).sink(SinkSpec.discarding("o2"));
    keyed(b, "more")
        .window(WindowAssigner.session(Duration.ofSeconds(1)))
        .process(
            "processed",
            () ->
                new ProcessWindowFunction<Long, Long, Long>() {
                  @Override
                  public void process(
                      Long key, TimeWindow window, List<Long> elements, Collector<Long> out) {
                    out.collect((long) elements.size());
                  }
                })
        .sink(SinkSpec.discarding("o3"));
    Dataflow d = b.build();
    for (String name : List.of("reduced", "aggregated", "processed")) {
      assertThat(d.plan().node(new OperatorId(name)).keyedState()).as(name).isTrue();
      assertThat(d.plan().node(new OperatorId(name)).hasKeyedInput()).as(name).isTrue();
    }
  }

  @Test
  void anAggregateWithoutMergeOnSessionWindowsFailsAtBuildNamingTheOperator() {
    DataflowBuilder b = Dataflow.builder("w");
    Stage<WindowResult<Long, Long>> sums =
        keyed(b).window(WindowAssigner.session(Duration.ofSeconds(1))).aggregate("sums", new Sum());
    sums.sink(SinkSpec.discarding("out"));
    assertThatThrownBy(b::build)
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'sums'")
        .hasMessageContaining(Sum.class.getName())
        .hasMessageContaining("merge")
        .hasMessageContaining("session");
  }

  @Test
  void anAggregateWithMergeOnSessionsAndOneWithoutOnTumblingWindowsBuild() {
    DataflowBuilder b = Dataflow.builder("w");
    keyed(b)
        .window(WindowAssigner.session(Duration.ofSeconds(1)))
        .aggregate("sessions", new MergingSum())
        .sink(SinkSpec.discarding("o1"));
    keyed(b, "more")
        .window(WindowAssigner.sliding(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .aggregate("sliding", new Sum())
        .sink(SinkSpec.discarding("o2"));
    assertThat(b.build().plan().node(new OperatorId("sessions"))).isNotNull();
  }

  @Test
  void negativeAllowedLatenessIsRejected() {
    WindowedStage<Long, Long> w =
        keyed(Dataflow.builder("w")).window(WindowAssigner.tumbling(Duration.ofSeconds(1)));
    assertThatThrownBy(() -> w.allowedLateness(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be negative");
  }

  @Test
  void theLateDataSideOutputIsReadLikeAnyOther() {
    DataflowBuilder b = Dataflow.builder("w");
    OutputTag<Long> late = new OutputTag<>("late");
    Stage<WindowResult<Long, Long>> sums =
        keyed(b)
            .window(WindowAssigner.tumbling(Duration.ofSeconds(1)))
            .sideOutputLateData(late)
            .reduce("sums", Long::sum);
    sums.sink(SinkSpec.discarding("out"));
    sums.sideOutput(late).sink(SinkSpec.discarding("late-out"));
    assertThat(b.build().plan().node(new OperatorId("late-out")).inputs().get(0).sideOutput())
        .isEqualTo("late");
  }
}
