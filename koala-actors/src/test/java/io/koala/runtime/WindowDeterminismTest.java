package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedStage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.AggregateFunction;
import io.koala.function.Collector;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.window.ProcessWindowFunction;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Windows give the same results however the input is split, read and processed: 2,000 records over
 * 50 keys, out of order within a bound, read from 1 or 3 partitions (all at once or trickling in,
 * so watermarks interleave with the records), windowed at parallelism 1 or 4. Every run must
 * produce the multiset a plain loop computes. The input is shuffled by a random seed, printed;
 * replay one with {@code -Dkoala.test.seed=...}.
 */
class WindowDeterminismTest {
  private static final int RECORDS = 2_000;
  private static final int KEYS = 50;
  private static final long DISORDER = 40;
  private static final long TUMBLE = 100;
  private static final long SLIDE_SIZE = 100;
  private static final long SLIDE = 25;
  private static final long GAP = 60;

  /** An event of {@code key} at {@code ts} carrying {@code v}. */
  record Ev(String key, long ts, long v) {}

  /** What a window saw: count and sum of values, first and last timestamp. */
  record Stats(long count, long sum, long minTs, long maxTs) {
    static final Stats EMPTY = new Stats(0, 0, Long.MAX_VALUE, Long.MIN_VALUE);

    Stats add(Ev e) {
      return new Stats(count + 1, sum + e.v(), Math.min(minTs, e.ts()), Math.max(maxTs, e.ts()));
    }

    Stats merge(Stats o) {
      return new Stats(
          count + o.count, sum + o.sum, Math.min(minTs, o.minTs), Math.max(maxTs, o.maxTs));
    }
  }

  static final class StatsAggregate implements AggregateFunction<Ev, Stats, Stats> {
    @Override
    public Stats createAccumulator() {
      return Stats.EMPTY;
    }

    @Override
    public Stats add(Ev value, Stats acc) {
      return acc.add(value);
    }

    @Override
    public Stats result(Stats acc) {
      return acc;
    }

    @Override
    public Stats merge(Stats a, Stats b) {
      return a.merge(b);
    }
  }

  static final class StatsOfSession
      extends ProcessWindowFunction<String, Ev, WindowResult<String, Stats>> {
    @Override
    public void process(
        String key, TimeWindow w, List<Ev> elements, Collector<WindowResult<String, Stats>> out) {
      Stats s = Stats.EMPTY;
      for (Ev e : elements) {
        s = s.add(e);
      }
      out.collect(new WindowResult<>(key, w.start(), w.end(), s));
    }
  }

  private static long seed;
  private static List<Ev> input;
  private static KoalaRuntime runtime;

  @BeforeAll
  static void setUp() {
    seed = Long.getLong("koala.test.seed", new Random().nextLong());
    System.out.println(
        "WindowDeterminismTest seed " + seed + " (replay: -Dkoala.test.seed=" + seed + ")");
    input = shuffledInput(seed);
    runtime = KoalaRuntime.embedded(KoalaConfig.load());
  }

  @AfterAll
  static void tearDown() {
    runtime.close();
  }

  /**
   * Records at 2 ms steps with random keys and values, reordered by {@code ts + U[0, DISORDER]}: a
   * record then follows records at most {@code DISORDER} ms later than itself, in every partition.
   */
  static List<Ev> shuffledInput(long seed) {
    Random random = new Random(seed);
    record Keyed(Ev ev, long order) {}
    List<Keyed> keyed = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      Ev e = new Ev("k" + random.nextInt(KEYS), 1_000 + 2L * i, random.nextInt(1_000));
      keyed.add(new Keyed(e, e.ts() + random.nextInt((int) DISORDER + 1)));
    }
    keyed.sort(Comparator.comparingLong(Keyed::order));
    List<Ev> out = keyed.stream().map(Keyed::ev).toList();
    long max = 0;
    for (Ev e : out) {
      assertThat(e.ts()).isGreaterThanOrEqualTo(max - DISORDER);
      max = Math.max(max, e.ts());
    }
    return out;
  }

  static Stream<Arguments> runs() {
    List<Arguments> out = new ArrayList<>();
    for (boolean trickle : new boolean[] {false, true}) {
      for (int partitions : new int[] {1, 3}) {
        for (int parallelism : new int[] {1, 4}) {
          out.add(Arguments.of(trickle, partitions, parallelism));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "trickling {0}, {1} partitions, parallelism {2}")
  @MethodSource("runs")
  void windowResultsAreTheSameForEverySplitAndParallelism(
      boolean trickle, int partitions, int parallelism) {
    List<Ev> events = input;
    DataflowBuilder b = Dataflow.builder("determinism").parallelism(parallelism);
    b.registerTypes(Ev.class, Stats.class);
    // Bound + 1: a record at a session's end (touching, so merging) is never behind the watermark.
    WatermarkStrategy watermarks =
        WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(DISORDER + 1));
    KeyedStage<String, Ev> keyed =
        (trickle
                ? b.source(
                    SourceSpec.generator("events", (i, s) -> events.get((int) i))
                        .partitions(partitions)
                        .count(RECORDS)
                        .rate(RateSchedule.constant(4_000))
                        .eventTime(Ev::ts),
                    watermarks)
                : b.source(
                    SourceSpec.collection("events", events)
                        .partitions(partitions)
                        .timestamps(Ev::ts),
                    watermarks))
            .keyBy(Ev::key);
    keyed
        .window(WindowAssigner.tumbling(Duration.ofMillis(TUMBLE)))
        .aggregate("tumbling", new StatsAggregate())
        .sink(SinkSpec.collecting("tumbling-out"));
    keyed
        .window(WindowAssigner.sliding(Duration.ofMillis(SLIDE_SIZE), Duration.ofMillis(SLIDE)))
        .reduce("sliding", (x, y) -> new Ev(x.key(), Math.max(x.ts(), y.ts()), x.v() + y.v()))
        .sink(SinkSpec.collecting("sliding-out"));
    keyed
        .window(WindowAssigner.session(Duration.ofMillis(GAP)))
        .process("sessions", StatsOfSession::new)
        .sink(SinkSpec.collecting("sessions-out"));

    JobHandle job = runtime.submit(b.build());
    assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
    String seedNote = "seed " + seed;
    assertThat(job.<Object>collected("tumbling-out"))
        .as(seedNote)
        .containsExactlyInAnyOrderElementsOf(expectedTumbling(events));
    assertThat(job.<Object>collected("sliding-out"))
        .as(seedNote)
        .containsExactlyInAnyOrderElementsOf(expectedSliding(events));
    assertThat(job.<Object>collected("sessions-out"))
        .as(seedNote)
        .containsExactlyInAnyOrderElementsOf(expectedSessions(events));
    JobMetrics m = job.metrics();
    for (String op : List.of("tumbling", "sliding", "sessions")) {
      assertThat(m.tasksOf(op).stream().mapToLong(TaskMetricsSnapshot::lateRecords).sum())
          .as("%s: late records (%s)", op, seedNote)
          .isZero();
    }
  }

  // ------------------------------------------------------------------ the reference, as loops

  private record WindowKey(String key, long start, long end) {}

  static List<Object> expectedTumbling(List<Ev> events) {
    Map<WindowKey, Stats> windows = new HashMap<>();
    for (Ev e : events) {
      long start = Math.floorDiv(e.ts(), TUMBLE) * TUMBLE;
      windows.merge(
          new WindowKey(e.key(), start, start + TUMBLE), Stats.EMPTY.add(e), Stats::merge);
    }
    List<Object> out = new ArrayList<>();
    windows.forEach((w, s) -> out.add(new WindowResult<>(w.key(), w.start(), w.end(), s)));
    return out;
  }

  static List<Object> expectedSliding(List<Ev> events) {
    Map<WindowKey, long[]> windows = new HashMap<>(); // max ts, sum
    for (Ev e : events) {
      for (long start = e.ts() - Math.floorMod(e.ts(), SLIDE);
          start > e.ts() - SLIDE_SIZE;
          start -= SLIDE) {
        long[] agg =
            windows.computeIfAbsent(
                new WindowKey(e.key(), start, start + SLIDE_SIZE),
                k -> new long[] {Long.MIN_VALUE, 0});
        agg[0] = Math.max(agg[0], e.ts());
        agg[1] += e.v();
      }
    }
    List<Object> out = new ArrayList<>();
    windows.forEach(
        (w, a) ->
            out.add(new WindowResult<>(w.key(), w.start(), w.end(), new Ev(w.key(), a[0], a[1]))));
    return out;
  }

  static List<Object> expectedSessions(List<Ev> events) {
    Map<String, List<Ev>> byKey = new HashMap<>();
    for (Ev e : events) {
      byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
    }
    List<Object> out = new ArrayList<>();
    byKey.forEach(
        (key, list) -> {
          list.sort(Comparator.comparingLong(Ev::ts));
          long start = list.get(0).ts();
          long end = start + GAP;
          Stats s = Stats.EMPTY;
          for (Ev e : list) {
            if (e.ts() > end) { // [ts, ts + gap) touches or overlaps the session up to end
              out.add(new WindowResult<>(key, start, end, s));
              start = e.ts();
              s = Stats.EMPTY;
            }
            end = Math.max(end, e.ts() + GAP);
            s = s.add(e);
          }
          out.add(new WindowResult<>(key, start, end, s));
        });
    return out;
  }
}
