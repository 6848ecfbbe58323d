package io.koala.testkit;

import static io.koala.testkit.KoalaAssertions.assertEquivalentToReferenceRun;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.function.KeyValue;
import io.koala.function.KeyedProcessFunction;
import io.koala.routing.PartitionPolicy;
import io.koala.window.WindowAssigner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KoalaAssertionsTest {

  static final ReconfigurationSchedule SCHEDULE =
      ReconfigurationSchedule.create()
          .rescale(100, "count", 5)
          .rebalance(250, "count", PartitionPolicy.consistentHashing())
          .migrate(300, "count", 2)
          .rescale(420, "count", 1);

  static List<String> words(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add("w" + (i * 13 % 40));
    }
    return out;
  }

  static Dataflow keyed(String name, KeyedStage stage) {
    DataflowBuilder b = Dataflow.builder(name).parallelism(2);
    stage.add(b.source(SourceSpec.<String>collection("words", List.of())).keyBy(w -> w));
    return b.build();
  }

  /** Appends the keyed operator "count" and a collecting sink "counts". */
  interface KeyedStage {
    void add(io.koala.dataflow.KeyedStage<String, String> words);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {0, 1, 2, 3})
  void aKeyedCountIsUnchangedByReconfigurations(long seed) {
    Dataflow dataflow = keyed("count", s -> s.count("count").sink(SinkSpec.collecting("counts")));
    List<TestRecord<?>> input = new ArrayList<>();
    words(500).forEach(w -> input.add(TestRecord.of("words", w)));
    assertEquivalentToReferenceRun(dataflow, input, SCHEDULE, seed);
  }

  @Test
  void eventTimeWindowsAreUnchangedByReconfigurations() {
    DataflowBuilder b = Dataflow.builder("windows").parallelism(2);
    b.source(
            SourceSpec.<String>collection("words", List.of()),
            WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(50)))
        .keyBy(w -> w)
        .window(WindowAssigner.tumbling(Duration.ofMillis(100)))
        .count("count")
        .sink(SinkSpec.collecting("per-window"));
    List<TestRecord<?>> input = new ArrayList<>();
    List<String> words = words(500);
    for (int i = 0; i < words.size(); i++) {
      input.add(TestRecord.of("words", words.get(i), 3L * i + (i % 7) * 10));
    }
    assertEquivalentToReferenceRun(b.build(), input, SCHEDULE, 7);
  }

  /**
   * The classic bug: a count kept in a field of the function instead of in keyed state. It works at
   * a fixed parallelism, but a key whose bucket moves starts again from zero at its new task.
   */
  static final class HeapCount
      extends KeyedProcessFunction<String, String, KeyValue<String, Long>> {
    private final Map<String, Long> counts = new HashMap<>();

    @Override
    public void process(String w, Context<String> ctx, Collector<KeyValue<String, Long>> out) {
      out.collect(new KeyValue<>(w, counts.merge(w, 1L, Long::sum)));
    }
  }

  @Test
  void stateOutsideKeyedStateFailsTheAssertion() {
    Dataflow dataflow =
        keyed(
            "heap-count",
            s -> s.process("count", HeapCount::new).sink(SinkSpec.collecting("counts")));
    assertThatThrownBy(
            () ->
                assertEquivalentToReferenceRun(
                    dataflow,
                    "words",
                    words(500),
                    ReconfigurationSchedule.create().rescale(200, "count", 4)))
        .isInstanceOf(AssertionError.class)
        .hasMessageMatching(
            "(?s)sink 'counts' of dataflow 'heap-count' differs from the reference run: key w\\d+:"
                + " value \\d+ is KeyValue\\[key=w\\d+, value=1\\], expected KeyValue\\[key=w\\d+,"
                + " value=\\d+\\].*");
    // without reconfigurations the bug does not show
    assertEquivalentToReferenceRun(dataflow, "words", words(500), ReconfigurationSchedule.create());
  }
}
