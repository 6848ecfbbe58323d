package io.koala.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.function.KeyValue;
import io.koala.function.KeyedProcessFunction;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.routing.PartitionPolicy;
import io.koala.runtime.JobFailedException;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DataflowTestDriverTest {

  /** A running count per word at {@code parallelism} tasks. */
  static Dataflow wordCount(int parallelism) {
    DataflowBuilder b = Dataflow.builder("word-count").parallelism(parallelism);
    b.source(SourceSpec.<String>collection("words", List.of()))
        .keyBy(w -> w)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  static List<String> words(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add("w" + (i * 7 % 50));
    }
    return out;
  }

  @Test
  void countsPerKeyAfterEveryPipe() {
    try (DataflowTestDriver driver = new DataflowTestDriver(wordCount(2))) {
      TestInput<String> words = driver.input("words");
      words.pipe("a");
      words.pipe("b");
      words.pipe("a");
      assertThat(driver.<KeyValue<String, Long>>readOutput("counts"))
          .containsExactlyInAnyOrder(
              new KeyValue<>("a", 1L), new KeyValue<>("b", 1L), new KeyValue<>("a", 2L));
      assertThat(driver.readOutput("counts")).isEmpty(); // drained
      assertThat(driver.state("count", "a", "accumulator", Long.class)).isEqualTo(2L);
      assertThat(driver.state("count", "nobody", "accumulator", Long.class)).isNull();
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void stateReadsFollowKeysThroughRescales(long seed) {
    List<String> input = words(400);
    try (DataflowTestDriver driver = new DataflowTestDriver(wordCount(2), seed)) {
      TestInput<String> words = driver.input("words");
      words.pipeAll(input);
      Map<String, Long> expected = new TreeMap<>();
      input.forEach(w -> expected.merge(w, 1L, Long::sum));

      ReconfigurationReport out = driver.rescale("count", 5);
      assertThat(out.bucketsMoved()).isPositive();
      assertThat(out.tasksAfter()).hasSize(5);
      assertThat(driver.tasks("count")).containsExactly(0, 1, 2, 3, 4);
      // no key was touched since: the moved keys' state still sits at the old owners
      assertThat(out.keysTransferred()).isZero();
      expected.forEach(
          (w, n) -> assertThat(driver.state("count", w, "accumulator", Long.class)).isEqualTo(n));

      words.pipe("w7");
      expected.merge("w7", 1L, Long::sum);
      assertThat(driver.<KeyValue<String, Long>>readOutput("counts"))
          .endsWith(new KeyValue<>("w7", expected.get("w7")));

      driver.rescale("count", 1); // scale-in: tasks 1..4 retire; their keys are drained lazily
      driver.rebalance("count", PartitionPolicy.consistentHashing());
      driver.migrate("count", 0);
      expected.forEach(
          (w, n) -> assertThat(driver.state("count", w, "accumulator", Long.class)).isEqualTo(n));
      words.pipeAll(input);
      List<KeyValue<String, Long>> last = driver.readOutput("counts");
      Map<String, Long> finals = new TreeMap<>();
      last.forEach(kv -> finals.merge(kv.key(), kv.value(), Math::max));
      expected.replaceAll((w, n) -> 2 * n - (w.equals("w7") ? 1 : 0));
      assertThat(finals).isEqualTo(expected);
    }
  }

  @Test
  void eventTimeWindowsFireWhenTheWatermarkPassesThem() {
    DataflowBuilder b = Dataflow.builder("windows").parallelism(2);
    b.source(SourceSpec.<String>collection("clicks", List.of()))
        .keyBy(page -> page)
        .window(WindowAssigner.tumbling(Duration.ofSeconds(10)))
        .count("per-10s")
        .sink(SinkSpec.collecting("out"));
    try (DataflowTestDriver driver = new DataflowTestDriver(b.build())) {
      TestInput<String> clicks = driver.input("clicks");
      clicks.pipe("home", 1_000);
      clicks.pipe("home", 9_000);
      clicks.pipe("cart", 12_000);
      assertThat(driver.readOutput("out")).isEmpty();
      clicks.advanceWatermark(9_999);
      assertThat(driver.<WindowResult<String, Long>>readOutput("out"))
          .containsExactly(new WindowResult<>("home", 0, 10_000, 2L));
      clicks.end(); // event time runs to its end
      assertThat(driver.<WindowResult<String, Long>>readOutput("out"))
          .containsExactly(new WindowResult<>("cart", 10_000, 20_000, 1L));
    }
  }

  @Test
  void watermarksFollowTheSourcesStrategy() {
    DataflowBuilder b = Dataflow.builder("windows").parallelism(2);
    b.source(
            SourceSpec.<String>collection("clicks", List.of()),
            WatermarkStrategy.boundedOutOfOrderness(Duration.ofSeconds(2)))
        .keyBy(page -> page)
        .window(WindowAssigner.tumbling(Duration.ofSeconds(10)))
        .count("per-10s")
        .sink(SinkSpec.collecting("out"));
    try (DataflowTestDriver driver = new DataflowTestDriver(b.build())) {
      TestInput<String> clicks = driver.input("clicks");
      clicks.pipe("home", 1_000);
      clicks.pipe("home", 11_000); // watermark 8_999: [0, 10s) may still get records
      assertThat(driver.readOutput("out")).isEmpty();
      clicks.pipe("home", 12_001); // watermark 10_000
      assertThat(driver.<WindowResult<String, Long>>readOutput("out"))
          .containsExactly(new WindowResult<>("home", 0, 10_000, 1L));
    }
  }

  /** Emits "key:n" one minute of processing time after the first of n records of a key. */
  static final class Debounce extends KeyedProcessFunction<String, String, String> {
    private ValueState<Long> pending;

    @Override
    public void open(KeyedStateContext ctx) {
      pending = ctx.valueState("pending", Long.class);
    }

    @Override
    public void process(String value, Context<String> ctx, Collector<String> out) {
      Long n = pending.value();
      if (n == null) {
        ctx.timerService()
            .registerProcessingTimeTimer(ctx.timerService().currentProcessingTime() + 60_000);
      }
      pending.update(n == null ? 1 : n + 1);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext<String> ctx, Collector<String> out) {
      out.collect(ctx.currentKey() + ":" + pending.value() + "@" + timestamp);
      pending.clear();
    }
  }

  @Test
  void processingTimeTimersFireAsTheClockAdvances() {
    DataflowBuilder b = Dataflow.builder("debounce").parallelism(2);
    b.source(SourceSpec.<String>collection("events", List.of()))
        .keyBy(e -> e)
        .process("debounce", Debounce::new)
        .sink(SinkSpec.collecting("out"));
    try (DataflowTestDriver driver = new DataflowTestDriver(b.build())) {
      TestInput<String> events = driver.input("events");
      events.pipe("a");
      driver.advanceProcessingTime(Duration.ofSeconds(30));
      events.pipe("a");
      events.pipe("b");
      driver.advanceProcessingTime(Duration.ofSeconds(29));
      assertThat(driver.readOutput("out")).isEmpty();
      assertThat(driver.state("debounce", "a", "pending", Long.class)).isEqualTo(2L);
      driver.advanceProcessingTime(Duration.ofSeconds(1));
      assertThat(driver.<String>readOutput("out")).containsExactly("a:2@60000");
      assertThat(driver.state("debounce", "a", "pending", Long.class)).isNull();
      driver.rescale("debounce", 3); // b's timer moves with its bucket, if it moves
      driver.advanceProcessingTime(Duration.ofSeconds(30));
      assertThat(driver.<String>readOutput("out")).containsExactly("b:1@90000");
      assertThat(driver.currentProcessingTime()).isEqualTo(90_000);
    }
  }

  @Test
  void aThrowingFunctionFailsTheCallThatRanIt() {
    DataflowBuilder b = Dataflow.builder("failing");
    b.source(SourceSpec.<String>collection("in", List.of()))
        .map(
            "parse",
            s -> {
              if (s.isEmpty()) {
                throw new IllegalArgumentException("empty record");
              }
              return s;
            })
        .sink(SinkSpec.collecting("out"));
    try (DataflowTestDriver driver = new DataflowTestDriver(b.build())) {
      TestInput<String> in = driver.input("in");
      in.pipe("x");
      assertThat(driver.<String>readOutput("out")).containsExactly("x");
      assertThatThrownBy(() -> in.pipe(""))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("parse")
          .hasMessageContaining("empty record");
    }
  }

  @Test
  void invalidRequestsAndNamesAreRefused() {
    try (DataflowTestDriver driver = new DataflowTestDriver(wordCount(2))) {
      assertThatThrownBy(() -> driver.rescale("nope", 2))
          .isInstanceOf(ReconfigurationException.class)
          .hasMessageContaining("nope");
      assertThatThrownBy(() -> driver.rescale("count", 0))
          .isInstanceOf(ReconfigurationException.class)
          .extracting(e -> ((ReconfigurationException) e).reason())
          .isEqualTo(ReconfigurationException.Reason.INVALID_REQUEST);
      assertThatThrownBy(() -> driver.migrate("count", 7))
          .isInstanceOf(ReconfigurationException.class);
      assertThatThrownBy(() -> driver.input("nope")).hasMessageContaining("words");
      assertThatThrownBy(() -> driver.readOutput("nope")).hasMessageContaining("counts");
      assertThat(driver.rescale("count", 2).bucketsMoved()).isZero();
      driver.input("words").end();
      assertThatThrownBy(() -> driver.rescale("count", 3))
          .isInstanceOf(ReconfigurationException.class)
          .extracting(e -> ((ReconfigurationException) e).reason())
          .isEqualTo(ReconfigurationException.Reason.JOB_ENDING);
    }
  }
}
