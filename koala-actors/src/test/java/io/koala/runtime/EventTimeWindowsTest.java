package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedStage;
import io.koala.dataflow.Stage;
import io.koala.dataflow.WindowedStage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.AggregateFunction;
import io.koala.function.Collector;
import io.koala.function.OutputTag;
import io.koala.job.JobStatus;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.window.ProcessWindowFunction;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Event-time windows end to end, with hand-computed results. Inputs are chosen so that the results
 * do not depend on when the sources emit watermarks: either no record can be late, or (for late
 * data) the late records follow the first watermark by construction.
 */
class EventTimeWindowsTest {
  private static KoalaRuntime runtime;

  /** An event of {@code key} at {@code ts} carrying {@code v}. */
  record Ev(String key, long ts, long v) {}

  @BeforeAll
  static void start() {
    runtime = KoalaRuntime.embedded(KoalaConfig.load());
  }

  @AfterAll
  static void stop() {
    runtime.close();
  }

  private static Ev ev(String key, long ts, long v) {
    return new Ev(key, ts, v);
  }

  private static <V> WindowResult<String, V> result(String key, long start, long end, V value) {
    return new WindowResult<>(key, start, end, value);
  }

  /** Timestamps in order per key and overall, so nothing is ever late. */
  private static final List<Ev> IN_ORDER =
      List.of(
          ev("a", 0, 1),
          ev("b", 3, 10),
          ev("a", 4, 2),
          ev("a", 12, 4),
          ev("b", 14, 20),
          ev("a", 25, 8),
          ev("b", 40, 40),
          ev("a", 41, 16));

  private static KeyedStage<String, Ev> keyed(
      DataflowBuilder b, List<Ev> input, WatermarkStrategy watermarks) {
    b.registerTypes(Ev.class);
    return b.source(SourceSpec.collection("events", input).timestamps(Ev::ts), watermarks)
        .keyBy(Ev::key);
  }

  private static List<Object> run(DataflowBuilder b) {
    JobHandle job = runtime.submit(b.build());
    assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
    return job.collected("out");
  }

  /** Sums the values of the records. */
  static final class Sum implements AggregateFunction<Ev, Long, Long> {
    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Ev value, Long acc) {
      return acc + value.v();
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

  /** Emits "key [start, end): sorted values". */
  static final class ListValues extends ProcessWindowFunction<String, Ev, String> {
    @Override
    public void process(String key, TimeWindow window, List<Ev> elements, Collector<String> out) {
      out.collect(
          key
              + " ["
              + window.start()
              + ", "
              + window.end()
              + "): "
              + elements.stream().map(Ev::v).sorted().toList());
    }
  }

  // ------------------------------------------------------------------ known answers

  @Test
  void tumblingWindowsReduce() {
    DataflowBuilder b = Dataflow.builder("tumbling").parallelism(2);
    keyed(b, IN_ORDER, WatermarkStrategy.monotonousTimestamps())
        .window(WindowAssigner.tumbling(Duration.ofMillis(10)))
        .reduce("sum", (x, y) -> new Ev(x.key(), Math.max(x.ts(), y.ts()), x.v() + y.v()))
        .map("value", r -> result(r.key(), r.start(), r.end(), r.value().v()))
        .sink(SinkSpec.collecting("out"));
    assertThat(run(b))
        .containsExactlyInAnyOrder(
            result("a", 0, 10, 3L),
            result("a", 10, 20, 4L),
            result("a", 20, 30, 8L),
            result("a", 40, 50, 16L),
            result("b", 0, 10, 10L),
            result("b", 10, 20, 20L),
            result("b", 40, 50, 40L));
  }

  @Test
  void aRecordBelongsToSizeOverSlideSlidingWindows() {
    DataflowBuilder b = Dataflow.builder("sliding").parallelism(2);
    keyed(b, IN_ORDER, WatermarkStrategy.monotonousTimestamps())
        .window(WindowAssigner.sliding(Duration.ofMillis(10), Duration.ofMillis(5)))
        .aggregate("sum", new Sum())
        .sink(SinkSpec.collecting("out"));
    assertThat(run(b))
        .containsExactlyInAnyOrder(
            result("a", -5, 5, 3L),
            result("a", 0, 10, 3L),
            result("a", 5, 15, 4L),
            result("a", 10, 20, 4L),
            result("a", 20, 30, 8L),
            result("a", 25, 35, 8L),
            result("a", 35, 45, 16L),
            result("a", 40, 50, 16L),
            result("b", -5, 5, 10L),
            result("b", 0, 10, 10L),
            result("b", 5, 15, 20L),
            result("b", 10, 20, 20L),
            result("b", 35, 45, 40L),
            result("b", 40, 50, 40L));
  }

  @Test
  void aLaterRecordBridgesTwoSessionsForAggregateReduceAndProcess() {
    // c: [100, 115) and [125, 140), bridged by 112's [112, 127); d stays apart. The bound keeps
    // the watermark behind every window until the input ends, so the bridge is never late.
    List<Ev> input =
        List.of(
            ev("c", 100, 1), ev("c", 125, 2), ev("d", 100, 100), ev("c", 112, 4), ev("c", 300, 8));
    DataflowBuilder b = Dataflow.builder("sessions").parallelism(2);
    WindowedStage<String, Ev> sessions =
        keyed(b, input, WatermarkStrategy.boundedOutOfOrderness(Duration.ofSeconds(1)))
            .window(WindowAssigner.session(Duration.ofMillis(15)));
    Stage<Object> sums = sessions.aggregate("sum", new Sum()).map("sum-out", r -> (Object) r);
    Stage<Object> maxima =
        sessions
            .reduce("max", (x, y) -> x.v() >= y.v() ? x : y)
            .map(
                "max-out",
                r -> (Object) ("max " + r.key() + " " + r.start() + " " + r.value().v()));
    Stage<Object> lists = sessions.process("list", ListValues::new).map("list-out", s -> s);
    sums.union(maxima, lists).sink(SinkSpec.collecting("out"));
    assertThat(run(b))
        .containsExactlyInAnyOrder(
            result("c", 100, 140, 7L),
            result("c", 300, 315, 8L),
            result("d", 100, 115, 100L),
            "max c 100 4",
            "max c 300 8",
            "max d 100 100",
            "c [100, 140): [1, 2, 4]",
            "c [300, 315): [8]",
            "d [100, 115): [100]");
  }

  @Test
  void withoutWatermarksEveryWindowFiresAtTheEndOfTheInput() {
    DataflowBuilder b = Dataflow.builder("end").parallelism(2);
    keyed(b, IN_ORDER, WatermarkStrategy.none())
        .window(WindowAssigner.tumbling(Duration.ofMillis(20)))
        .allowedLateness(Duration.ofDays(1000)) // cleanup timers saturate, and fire at the end
        .process("list", ListValues::new)
        .sink(SinkSpec.collecting("out"));
    assertThat(run(b))
        .containsExactlyInAnyOrder(
            "a [0, 20): [1, 2, 4]",
            "a [20, 40): [8]",
            "a [40, 60): [16]",
            "b [0, 20): [10, 20]",
            "b [40, 60): [40]");
  }

  // ------------------------------------------------------------------ late data

  /**
   * Late data made certain: with batches of two records, the source's first poll reads the first
   * two records and then emits its first watermark at once (max − 1 = 9,999), before it reads the
   * rest. One partition, one source task, one channel to the window task: the rest arrive after
   * that watermark.
   */
  private static final List<Ev> WITH_LATE =
      List.of(
          ev("a", 50, 1),
          ev("b", 10_000, 1),
          ev("a", 60, 2), // [0, 100) is past even 200 ms of lateness
          ev("a", 9_950, 4), // [9900, 10000) has just fired
          ev("a", 9_960, 16),
          ev("a", 10_050, 8));

  private static JobHandle runWithLate(
      KoalaRuntime small, Duration lateness, OutputTag<Ev> late, List<Object> out) {
    DataflowBuilder b = Dataflow.builder("late");
    WindowedStage<String, Ev> windows =
        keyed(b, WITH_LATE, WatermarkStrategy.monotonousTimestamps())
            .window(WindowAssigner.tumbling(Duration.ofMillis(100)))
            .allowedLateness(lateness);
    if (late != null) {
      windows.sideOutputLateData(late);
    }
    Stage<WindowResult<String, Long>> sums = windows.aggregate("sum", new Sum());
    sums.sink(SinkSpec.collecting("out"));
    if (late != null) {
      sums.sideOutput(late).sink(SinkSpec.collecting("late"));
    }
    JobHandle job = small.submit(b.build());
    assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
    out.addAll(job.collected("out"));
    return job;
  }

  private static long lateRecords(JobHandle job) {
    return job.metrics().tasksOf("sum").stream().mapToLong(TaskMetricsSnapshot::lateRecords).sum();
  }

  @Test
  void lateRecordsWithinTheLatenessUpdateTheResultAndTooLateOnesGoToTheSideOutput() {
    try (KoalaRuntime small =
        KoalaRuntime.embedded(KoalaConfig.load().with("koala.batch.max-records", 2))) {
      OutputTag<Ev> late = new OutputTag<>("late");
      List<Object> out = new ArrayList<>();
      JobHandle job = runWithLate(small, Duration.ofMillis(200), late, out);
      assertThat(out)
          .containsExactlyInAnyOrder(
              result("a", 0, 100, 1L),
              result("a", 9_900, 10_000, 4L),
              result("a", 9_900, 10_000, 20L), // fired again, updated
              result("b", 10_000, 10_100, 1L),
              result("a", 10_000, 10_100, 8L));
      assertThat(out.indexOf(result("a", 9_900, 10_000, 4L)))
          .isLessThan(out.indexOf(result("a", 9_900, 10_000, 20L)));
      assertThat(job.<Ev>collected("late")).containsExactly(ev("a", 60, 2));
      assertThat(lateRecords(job)).as("side-output records are not dropped").isZero();
    }
  }

  @Test
  void withoutASideOutputTooLateRecordsAreDroppedAndCounted() {
    try (KoalaRuntime small =
        KoalaRuntime.embedded(KoalaConfig.load().with("koala.batch.max-records", 2))) {
      List<Object> out = new ArrayList<>();
      JobHandle job = runWithLate(small, Duration.ZERO, null, out);
      assertThat(out)
          .containsExactlyInAnyOrder(
              result("a", 0, 100, 1L),
              result("b", 10_000, 10_100, 1L),
              result("a", 10_000, 10_100, 8L));
      assertThat(lateRecords(job)).isEqualTo(3);
    }
  }

  // ------------------------------------------------------------------ errors

  @Test
  void aRecordWithoutTimestampFailsTheJobNamingTheOperatorAndTheFix() {
    DataflowBuilder b = Dataflow.builder("no-timestamps");
    b.registerTypes(Ev.class);
    b.source(SourceSpec.collection("events", IN_ORDER))
        .keyBy(Ev::key)
        .window(WindowAssigner.tumbling(Duration.ofMillis(10)))
        .aggregate("sum", new Sum())
        .sink(SinkSpec.collecting("out"));
    JobHandle job = runtime.submit(b.build());
    assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
        .isInstanceOf(JobFailedException.class)
        .hasMessageContaining("operator 'sum'")
        .hasMessageContaining("without an event timestamp")
        .hasMessageContaining("CollectionSource.timestamps")
        .hasMessageContaining("WatermarkStrategy");
  }
}
