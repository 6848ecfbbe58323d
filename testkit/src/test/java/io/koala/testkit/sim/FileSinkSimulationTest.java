package io.koala.testkit.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.connector.SourceSpec;
import io.koala.coordinator.PlannedCrash;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.protocol.ChannelSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once file sink ({@link SinkSpec#jsonLines} in a job that takes checkpoints) under
 * crashes and rollbacks in the simulator, against a reference run without checkpoints: what a
 * reader listing {@code *.jsonl} sees at the end is the reference output, each record once; at
 * every crash it was part of it, and nothing visible then is ever taken back.
 */
class FileSinkSimulationTest {
  static final int SEEDS = 20;
  static final ChannelSettings SETTINGS = new ChannelSettings(16, 1 << 20, 2, 3, 20);
  static final long RECORDS = 2_400;
  static final double RATE = 4_000;
  static final long MAX_STEPS = 50_000_000;

  @TempDir Path tmp;

  /**
   * Running counts per key into one sink (chained after the keyed operator), and the raw numbers
   * into another (chained after the source, which takes its snapshot when triggered).
   */
  static Dataflow dataflow(Path dir, Observer observer) {
    return dataflow(dir, observer, 2);
  }

  /**
   * {@link #dataflow(Path, Observer)}, the counts' sink with {@code countsParallelism} tasks: with
   * other than 2, a stage of its own (fed round-robin by "count").
   */
  static Dataflow dataflow(Path dir, Observer observer, int countsParallelism) {
    DataflowBuilder b = Dataflow.builder("files").parallelism(2);
    var numbers =
        b.source(
            SourceSpec.generator("n", (i, seed) -> i)
                .partitions(2)
                .count(RECORDS)
                .rate(RateSchedule.constant(RATE))
                .eventTime(i -> i));
    numbers.sink(observer.wrap(SinkSpec.jsonLines("numbers", dir)));
    numbers
        .keyBy(i -> i % 40)
        .count("count")
        .sink(observer.wrap(SinkSpec.<KeyValue<Long, Long>>jsonLines("counts", dir)))
        .parallelism(countsParallelism);
    return b.build();
  }

  /**
   * One to three crashes: at a time within the input, during a checkpoint, or after one is
   * committed but before the tasks heard.
   */
  static void planCrashes(Simulation sim, long seed) {
    Random rnd = new Random(seed * 31 + 7);
    double runMillis = RECORDS / RATE * 1000;
    int n = 1 + rnd.nextInt(3);
    for (int i = 0; i < n; i++) {
      switch (rnd.nextInt(3)) {
        case 0 -> sim.crash(new PlannedCrash.At((long) (rnd.nextDouble() * runMillis)));
        case 1 -> sim.crash(new PlannedCrash.InCheckpoint(rnd.nextInt(8)));
        default -> sim.crash(new PlannedCrash.AfterCommit());
      }
    }
  }

  /** What one seed's run showed. */
  record Run(
      long seed,
      List<String> problems,
      int crashes,
      long publishedLinesAtFirstCrash,
      long uncommittedLinesAtCrashes,
      long pendingPartsAtCrashes) {}

  Run run(long seed, boolean commitAtPrepare) throws IOException {
    return run(seed, commitAtPrepare, false);
  }

  /**
   * One seed's run; with {@code rescale}, an odd seed scales "count" (with its chained sink) out to
   * 3 tasks and then in to 1 while it runs, an even one the counts' sink as a stage of its own (3
   * tasks to 4, then 1), so removed tasks leave output their sink has not yet published.
   */
  Run run(long seed, boolean commitAtPrepare, boolean rescale) throws IOException {
    String name = seed + "-" + commitAtPrepare + "-" + rescale;
    Path dir = Files.createDirectories(tmp.resolve("run-" + name));
    Path refDir = Files.createDirectories(tmp.resolve("ref-" + name));
    Observer observer = new Observer(dir, commitAtPrepare);
    boolean sinkStage = rescale && seed % 2 == 0;
    Simulation sim =
        Simulation.of(dataflow(dir, observer, sinkStage ? 3 : 2), SETTINGS, seed)
            .latency(2)
            .checkpoints(40, 2);
    if (sinkStage) {
      sim.rescaleAt(120, "counts", 4).rescaleAt(300, "counts", 1);
    } else if (rescale) {
      sim.rescaleAt(120, "count", 3).rescaleAt(300, "count", 1);
    }
    planCrashes(sim, seed);
    Simulation.Result r = sim.run(MAX_STEPS);
    Simulation.Result ref =
        Simulation.of(dataflow(refDir, new Observer(refDir, false)), SETTINGS, seed)
            .latency(2)
            .run(MAX_STEPS);

    List<String> problems = new ArrayList<>();
    assertThat(ref.finished()).as("reference finished: %s", ref.failures()).isTrue();
    if (!r.failures().isEmpty()) {
      problems.add("failed: " + r.failures().get(0).describe());
    } else if (!r.finished()) {
      problems.add("did not finish: " + r.unfinished());
    }
    Map<String, Long> expected = lines(files(refDir));
    assertThat(expected.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(2 * RECORDS);
    Map<String, List<String>> end = files(dir);
    Map<String, List<String>> visibleAtEnd = visible(end);
    if (!lines(visibleAtEnd).equals(expected)) {
      problems.add(
          "visible lines at the end differ from the reference: "
              + diff(lines(visibleAtEnd), expected));
    }
    if (visibleAtEnd.size() < end.size()) {
      problems.add(
          "unpublished files at the end: "
              + Set.copyOf(end.keySet()).stream()
                  .filter(n -> !visibleAtEnd.containsKey(n))
                  .toList());
    }
    long uncommitted = 0;
    long pendingParts = 0;
    for (Map<String, List<String>> seen : observer.seen) {
      Map<String, List<String>> visible = visible(seen);
      Map<String, Long> visibleLines = lines(visible);
      for (Map.Entry<String, Long> e : visibleLines.entrySet()) {
        if (e.getValue() > expected.getOrDefault(e.getKey(), 0L)) {
          problems.add("visible " + e.getValue() + " times after a crash: " + e.getKey());
        }
      }
      for (Map.Entry<String, List<String>> e : visible.entrySet()) {
        if (!e.getValue().equals(end.get(e.getKey()))) {
          problems.add("visible part " + e.getKey() + " changed or was taken back after a crash");
        }
      }
      for (Map.Entry<String, List<String>> e : seen.entrySet()) {
        if (!visible.containsKey(e.getKey())) {
          uncommitted += e.getValue().size();
          pendingParts += e.getKey().endsWith(".pending") ? 1 : 0;
        }
      }
    }
    long published = 0;
    if (!observer.seen.isEmpty()) {
      for (long n : lines(visible(observer.seen.get(0))).values()) {
        published += n;
      }
    }
    return new Run(seed, problems, r.recoveries(), published, uncommitted, pendingParts);
  }

  /**
   * Seeds 1 to {@value #SEEDS}, or the one seed of the system property {@code koala.seed} (to
   * replay a failure: {@code -Dkoala.seed=7}).
   */
  static long[] seeds() {
    Long one = Long.getLong("koala.seed");
    return one != null
        ? new long[] {one}
        : java.util.stream.LongStream.rangeClosed(1, SEEDS).toArray();
  }

  @Test
  void crashesLeaveExactlyTheReferenceOutputVisible() throws IOException {
    int crashes = 0;
    long published = 0;
    long uncommitted = 0;
    long pending = 0;
    List<String> failed = new ArrayList<>();
    for (long seed : seeds()) {
      Run run = run(seed, false);
      System.out.println(
          "file sink seed "
              + seed
              + ": "
              + run.crashes()
              + " rollbacks, "
              + run.publishedLinesAtFirstCrash()
              + " lines published by commits before the first, "
              + run.uncommittedLinesAtCrashes()
              + " unpublished lines and "
              + run.pendingPartsAtCrashes()
              + " pending parts seen at crashes"
              + (run.problems().isEmpty() ? "" : ", " + run.problems()));
      crashes += run.crashes();
      published += run.publishedLinesAtFirstCrash();
      uncommitted += run.uncommittedLinesAtCrashes();
      pending += run.pendingPartsAtCrashes();
      if (!run.problems().isEmpty()) {
        failed.add(
            "seed " + seed + ": " + run.problems().subList(0, Math.min(3, run.problems().size())));
      }
    }
    assertThat(failed).isEmpty();
    if (seeds().length < SEEDS) {
      return; // a replay: the coverage below is over all seeds
    }
    assertThat(crashes).as("rollbacks").isGreaterThanOrEqualTo(seeds().length);
    assertThat(published).as("lines published by checkpoint commits while running").isPositive();
    assertThat(uncommitted).as("written, not yet published lines seen at crashes").isPositive();
    assertThat(pending).as("prepared, not yet committed parts seen at crashes").isPositive();
  }

  /**
   * The same with "count" and its chained sink, or the counts' sink as a stage of its own, scaled
   * out and in while running: the output a removed task wrote after the last checkpoint before its
   * removal is published once, whether or not the job later rolls back past the removal.
   */
  @Test
  void crashesAcrossRescalesLeaveExactlyTheReferenceOutputVisible() throws IOException {
    List<String> failed = new ArrayList<>();
    int crashes = 0;
    for (long seed : seeds()) {
      Run run = run(seed, false, true);
      crashes += run.crashes();
      System.out.println(
          "file sink with rescales, seed "
              + seed
              + ": "
              + run.crashes()
              + " rollbacks"
              + (run.problems().isEmpty() ? "" : ", " + run.problems()));
      if (!run.problems().isEmpty()) {
        failed.add(
            "seed " + seed + ": " + run.problems().subList(0, Math.min(3, run.problems().size())));
      }
    }
    assertThat(failed).isEmpty();
    assertThat(crashes).as("rollbacks").isGreaterThanOrEqualTo(seeds().length);
  }

  /**
   * A writer that publishes at the barrier, before the checkpoint is durable: caught, in one of the
   * seeds at least (they stop at the first that catches it: the rest could not make it fail).
   */
  @Test
  void publishingAtPrepareIsCaught() throws IOException {
    int caught = 0;
    for (long seed : seeds()) {
      Run run = run(seed, true);
      if (!run.problems().isEmpty()) {
        caught++;
        System.out.println("commit at prepare, seed " + seed + ": " + run.problems().get(0));
        break;
      }
    }
    assertThat(caught).as("seeds whose run caught the commit at prepare").isPositive();
  }

  /** A sink hook that throws fails the task, naming the sink. */
  @Test
  void aFailingCommitFailsTheTaskNamingTheSink() throws IOException {
    DataflowBuilder b = Dataflow.builder("fragile").parallelism(2);
    b.source(
            SourceSpec.generator("n", (i, seed) -> i)
                .partitions(2)
                .count(RECORDS)
                .rate(RateSchedule.constant(RATE)))
        .keyBy(i -> i % 4)
        .count("count")
        .sink(failingAtPrepare("fragile"));
    Simulation.Result r =
        Simulation.of(b.build(), SETTINGS, 1).latency(2).checkpoints(40, 2).run(MAX_STEPS);
    assertThat(r.failures()).isNotEmpty();
    assertThat(r.failures().get(0).operator()).isEqualTo("fragile");
    assertThat(r.failures().get(0).describe()).contains("disk full at 1");
  }

  // ------------------------------------------------------------ helpers

  static <T> SinkSpec<T> failingAtPrepare(String name) {
    return new SinkSpec<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public SinkWriter<T> open(SinkContext ctx) {
        return new SinkWriter<>() {
          @Override
          public void write(T value, long timestamp) {}

          @Override
          public void prepareCommit(long checkpointId) {
            throw new IllegalStateException("disk full at " + checkpointId);
          }
        };
      }
    };
  }

  /**
   * Wraps the sinks of one run: when a task's writer is opened again (after a rollback), records
   * what the directory held; and, as a planted bug, can publish at the barrier.
   */
  static final class Observer {
    final Path dir;
    final boolean commitAtPrepare;
    final Set<String> opened = new HashSet<>();
    final List<Map<String, List<String>>> seen = new ArrayList<>();

    Observer(Path dir, boolean commitAtPrepare) {
      this.dir = dir;
      this.commitAtPrepare = commitAtPrepare;
    }

    <T> SinkSpec<T> wrap(SinkSpec<T> inner) {
      return new SinkSpec<>() {
        @Override
        public String name() {
          return inner.name();
        }

        @Override
        public SinkWriter<T> open(SinkContext ctx) throws Exception {
          if (!opened.add(inner.name() + "-" + ctx.taskIndex())) {
            seen.add(files(dir));
          }
          SinkWriter<T> w = inner.open(ctx);
          return !commitAtPrepare ? w : new CommitAtPrepare<>(w);
        }
      };
    }
  }

  /** The planted bug: publishes a part as soon as it is prepared. */
  record CommitAtPrepare<T>(SinkWriter<T> inner) implements SinkWriter<T> {
    @Override
    public void write(T value, long timestamp) throws Exception {
      inner.write(value, timestamp);
    }

    @Override
    public void flush() throws Exception {
      inner.flush();
    }

    @Override
    public void prepareCommit(long checkpointId) throws Exception {
      inner.prepareCommit(checkpointId);
      inner.commit(checkpointId);
    }

    @Override
    public void commit(long checkpointId) throws Exception {
      inner.commit(checkpointId);
    }

    @Override
    public void finish() throws Exception {
      inner.finish();
    }

    @Override
    public void close() throws Exception {
      inner.close();
    }
  }

  static Map<String, List<String>> files(Path dir) {
    Map<String, List<String>> out = new TreeMap<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.toList()) {
        out.put(p.getFileName().toString(), Files.readAllLines(p));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** What a reader listing {@code *.jsonl} sees. */
  static Map<String, List<String>> visible(Map<String, List<String>> files) {
    Map<String, List<String>> out = new TreeMap<>(files);
    out.keySet().removeIf(n -> !n.endsWith(".jsonl"));
    return out;
  }

  /** The multiset of lines in {@code files}. */
  static Map<String, Long> lines(Map<String, List<String>> files) {
    Map<String, Long> out = new HashMap<>();
    files.values().forEach(ls -> ls.forEach(l -> out.merge(l, 1L, Long::sum)));
    return out;
  }

  static String diff(Map<String, Long> actual, Map<String, Long> expected) {
    List<String> d = new ArrayList<>();
    Set<String> all = new HashSet<>(actual.keySet());
    all.addAll(expected.keySet());
    for (String l : all) {
      long a = actual.getOrDefault(l, 0L);
      long e = expected.getOrDefault(l, 0L);
      if (a != e) {
        d.add(l + " x" + a + " (expected " + e + ")");
      }
    }
    return d.size() + " lines, e.g. " + d.subList(0, Math.min(5, d.size()));
  }
}
