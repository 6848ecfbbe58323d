package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedStage;
import io.koala.dataflow.Stage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.state.KeyedStateContext;
import io.koala.state.ListState;
import io.koala.window.WindowAssigner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every join gives the same multiset of results whatever the number of source partitions, the
 * parallelism and the order in which records arrive within the watermark bound, and that multiset
 * is what a plain loop over the two inputs computes. The inputs are random: the seed is printed,
 * and {@code -Dkoala.test.seed=<seed>} replays a run.
 */
class JoinDeterminismTest {
  static final int LEFT_RECORDS = 500;
  static final int RIGHT_RECORDS = 700;
  static final int KEYS = 25;
  static final long SPAN = 5_000;
  static final long DISORDER = 40;

  /** A record of either side: key, id (unique per side) and timestamp. */
  record Ev(int key, int id, long ts) {}

  static long seed;
  static List<Ev> left;
  static List<Ev> right;

  @BeforeAll
  static void generate() {
    seed = Long.getLong("koala.test.seed", new Random().nextLong());
    System.out.println(
        "JoinDeterminismTest seed " + seed + " (replay: -Dkoala.test.seed=" + seed + ")");
    Random random = new Random(seed);
    left = shuffled(events(random, LEFT_RECORDS), random);
    right = shuffled(events(random, RIGHT_RECORDS), random);
  }

  private static List<Ev> events(Random random, int n) {
    List<Ev> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Ev(random.nextInt(KEYS), i, random.nextInt((int) SPAN)));
    }
    return out;
  }

  /**
   * The records out of timestamp order, by at most {@link #DISORDER}: a record never follows one
   * more than that much later, in any subsequence (partition) either.
   */
  private static List<Ev> shuffled(List<Ev> events, Random random) {
    record Keyed(Ev ev, long at) {}
    List<Keyed> keyed = new ArrayList<>();
    for (Ev e : events) {
      keyed.add(new Keyed(e, e.ts() + random.nextInt((int) DISORDER + 1)));
    }
    keyed.sort(Comparator.comparingLong(Keyed::at));
    return keyed.stream().map(Keyed::ev).toList();
  }

  /** An unbounded inner join: every pair of a key, whatever its timestamps. */
  static final class AllPairs extends KeyedCoProcessFunction<Integer, Ev, Ev, String> {
    private ListState<Ev> lefts;
    private ListState<Ev> rights;

    @Override
    public void open(KeyedStateContext ctx) {
      lefts = ctx.listState("left", Ev.class);
      rights = ctx.listState("right", Ev.class);
    }

    @Override
    public void processElement1(Ev a, Context<Integer> ctx, Collector<String> out) {
      for (Ev b : rights.get()) {
        out.collect(pair(a, b));
      }
      lefts.add(a);
    }

    @Override
    public void processElement2(Ev b, Context<Integer> ctx, Collector<String> out) {
      for (Ev a : lefts.get()) {
        out.collect(pair(a, b));
      }
      rights.add(b);
    }
  }

  static String pair(Ev a, Ev b) {
    return "l" + a.id() + "+r" + b.id();
  }

  /** The joins under test, each with the plain loop computing its results. */
  enum Join {
    CO_PROCESS(
        (l, r) -> l.connect(r).process("join", AllPairs::new), (a, b) -> List.of(pair(a, b))),
    TUMBLING(
        (l, r) ->
            l.join(r)
                .window(WindowAssigner.tumbling(Duration.ofMillis(100)))
                .apply("join", JoinDeterminismTest::pair),
        (a, b) -> sharedWindows(a, b, 100, 100)),
    SLIDING(
        (l, r) ->
            l.join(r)
                .window(WindowAssigner.sliding(Duration.ofMillis(100), Duration.ofMillis(30)))
                .apply("join", JoinDeterminismTest::pair),
        (a, b) -> sharedWindows(a, b, 100, 30)),
    SESSION(
        (l, r) ->
            l.join(r)
                .window(WindowAssigner.session(Duration.ofMillis(15)))
                .apply("join", JoinDeterminismTest::pair),
        null),
    INTERVAL(
        (l, r) ->
            l.intervalJoin(r)
                .between(Duration.ofMillis(-30), Duration.ofMillis(20))
                .apply("join", JoinDeterminismTest::pair),
        (a, b) ->
            a.ts() - 30 <= b.ts() && b.ts() <= a.ts() + 20
                ? List.of(pair(a, b) + "@" + Math.max(a.ts(), b.ts()))
                : List.of());

    final BiFunction<KeyedStage<Integer, Ev>, KeyedStage<Integer, Ev>, Stage<String>> define;

    /** The results of one pair of the same key; null: computed per key (sessions). */
    final BiFunction<Ev, Ev, List<String>> expectedPair;

    Join(
        BiFunction<KeyedStage<Integer, Ev>, KeyedStage<Integer, Ev>, Stage<String>> define,
        BiFunction<Ev, Ev, List<String>> expectedPair) {
      this.define = define;
      this.expectedPair = expectedPair;
    }
  }

  /** One result per window {@code [s, s + size)}, {@code s} a multiple of slide, holding both. */
  static List<String> sharedWindows(Ev a, Ev b, long size, long slide) {
    List<String> out = new ArrayList<>();
    long lo = Math.min(a.ts(), b.ts());
    for (long s = Math.floorDiv(lo - size, slide) * slide; s <= lo; s += slide) {
      if (s <= a.ts() && a.ts() < s + size && s <= b.ts() && b.ts() < s + size) {
        out.add(pair(a, b) + "@" + (s + size - 1));
      }
    }
    return out;
  }

  static List<String> expected(Join join) {
    List<String> out = new ArrayList<>();
    if (join == Join.SESSION) {
      for (int key = 0; key < KEYS; key++) {
        out.addAll(expectedSessions(key, 15));
      }
    } else {
      for (Ev a : left) {
        for (Ev b : right) {
          if (a.key() == b.key()) {
            out.addAll(join.expectedPair.apply(a, b));
          }
        }
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * Sessions of one key over both sides: sort the key's records by time; a record starts a new
   * session when it comes after the current session's end (the last {@code ts + gap}).
   */
  static List<String> expectedSessions(int key, long gap) {
    record Side(Ev ev, boolean left) {}
    List<Side> all = new ArrayList<>();
    left.stream().filter(e -> e.key() == key).forEach(e -> all.add(new Side(e, true)));
    right.stream().filter(e -> e.key() == key).forEach(e -> all.add(new Side(e, false)));
    all.sort(Comparator.comparingLong(s -> s.ev().ts()));
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < all.size()) {
      long end = all.get(i).ev().ts() + gap;
      int j = i + 1;
      while (j < all.size() && all.get(j).ev().ts() <= end) {
        end = Math.max(end, all.get(j).ev().ts() + gap);
        j++;
      }
      List<Side> session = all.subList(i, j);
      for (Side a : session) {
        for (Side b : session) {
          if (a.left() && !b.left()) {
            out.add(pair(a.ev(), b.ev()) + "@" + (end - 1));
          }
        }
      }
      i = j;
    }
    return out;
  }

  static List<String> run(Join join, int partitions, int parallelism, int workers) {
    DataflowBuilder b = Dataflow.builder("determinism").parallelism(parallelism);
    b.registerTypes(Ev.class);
    WatermarkStrategy wm = WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(DISORDER));
    KeyedStage<Integer, Ev> l =
        b.source(SourceSpec.collection("left", left).timestamps(Ev::ts).partitions(partitions), wm)
            .keyBy(Ev::key);
    KeyedStage<Integer, Ev> r =
        b.source(
                SourceSpec.collection("right", right).timestamps(Ev::ts).partitions(partitions), wm)
            .keyBy(Ev::key);
    Stage<String> joined = join.define.apply(l, r);
    if (join == Join.CO_PROCESS) {
      joined.sink(SinkSpec.collecting("out")); // its timestamps depend on arrival order
    } else {
      joined.sink(TimestampedSink.collecting("out"));
    }
    // Several workers run in separate actor systems: records and state cross serialization.
    KoalaConfig config = KoalaConfig.load().withWorkers(workers).withSeparateSystems(workers > 1);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      JobMetrics metrics = job.metrics();
      assertThat(metrics.tasksOf("join").stream().mapToLong(t -> t.lateRecords()).sum())
          .as("late records (seed %s)", seed)
          .isZero();
      if (join != Join.CO_PROCESS) {
        assertThat(metrics.stateEntries()).as("state left (seed %s)", seed).isZero();
      }
      List<String> out = new ArrayList<>(job.<String>collected("out"));
      out.sort(null);
      return out;
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Join.class)
  void sameResultsAtAnyPartitioningAndParallelismAsAPlainLoop(Join join) {
    List<String> expected = expected(join);
    assertThat(expected).as("the inputs give the join something to do").hasSizeGreaterThan(50);
    for (int partitions : new int[] {1, 3}) {
      for (int parallelism : new int[] {1, 4}) {
        assertThat(run(join, partitions, parallelism, 1))
            .as("%s, %d partitions, parallelism %d, seed %s", join, partitions, parallelism, seed)
            .isEqualTo(expected);
      }
    }
    assertThat(run(join, 3, 4, 2))
        .as("%s on two workers in separate actor systems, seed %s", join, seed)
        .isEqualTo(expected);
  }
}
