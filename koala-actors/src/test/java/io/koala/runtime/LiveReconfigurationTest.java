package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rescales, rebalances and migrations of running jobs on the actor runtime (LMDB state, every
 * message serialized). The judge is exact: a running count emits 1, 2, …, n for a key with n
 * records, so the emitted (key, count) pairs must be exactly those, each once — a lost record
 * leaves a gap, a record processed twice or on stale state repeats a count.
 */
class LiveReconfigurationTest {
  static final int RECORDS = 40_000;
  static final int KEYS = 500;
  static final Duration WAIT = Duration.ofSeconds(60);

  /**
   * source → keyBy → running count ("count", into sink "counts") → keyBy → running count of the
   * counts per key ("recount", into sink "recounts").
   */
  static Dataflow dataflow(double rate) {
    DataflowBuilder b = Dataflow.builder("live").parallelism(2);
    var counts =
        b.source(
                SourceSpec.generator("n", (i, seed) -> (i * 7919) % KEYS)
                    .partitions(2)
                    .count(RECORDS)
                    .rate(RateSchedule.constant(rate)))
            .keyBy(x -> x)
            .count("count");
    counts.sink(SinkSpec.collecting("counts"));
    counts.keyBy(KeyValue::key).count("recount").sink(SinkSpec.collecting("recounts"));
    return b.build();
  }

  /** In both sinks, every key's counts are 1..n, each exactly once, n = its number of records. */
  static void assertExactCounts(JobHandle job) {
    Map<String, List<KeyValue<Long, Long>>> outputs = new TreeMap<>();
    for (String sink : List.of("counts", "recounts")) {
      outputs.put(sink, job.collected(sink));
    }
    assertExactCounts(outputs);
  }

  /** In each sink, every key's counts are 1..n, each exactly once, n = its number of records. */
  static void assertExactCounts(Map<String, List<KeyValue<Long, Long>>> outputs) {
    Map<Long, Long> expected = new TreeMap<>();
    for (long i = 0; i < RECORDS; i++) {
      expected.merge((i * 7919) % KEYS, 1L, Long::sum);
    }
    outputs.forEach(
        (sink, out) -> {
          Map<Long, List<Long>> seen = new TreeMap<>();
          for (KeyValue<Long, Long> kv : out) {
            seen.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
          }
          assertThat(seen.keySet()).as(sink).isEqualTo(expected.keySet());
          expected.forEach(
              (key, n) -> {
                List<Long> want = new ArrayList<>();
                for (long c = 1; c <= n; c++) {
                  want.add(c);
                }
                assertThat(seen.get(key))
                    .as("%s of key %d", sink, key)
                    .containsExactlyInAnyOrderElementsOf(want);
              });
          assertThat(out).as(sink).hasSize(RECORDS);
        });
  }

  static ReconfigurationReport done(java.util.concurrent.CompletionStage<ReconfigurationReport> s)
      throws Exception {
    return s.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  static void awaitProgress(JobHandle job, long records) {
    Eventually.await(
        "the job to be running and to have counted " + records + " records",
        WAIT,
        () -> job.status() == JobStatus.RUNNING && job.metrics().recordsIn("count") >= records);
  }

  @ParameterizedTest(name = "separate systems: {0}")
  @ValueSource(booleans = {false, true})
  void scaleOutScaleInAndMigrateWhileRunning(boolean separate) throws Exception {
    KoalaConfig config = KoalaConfig.load().withWorkers(3).withSeparateSystems(separate);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(8_000));
      awaitProgress(job, 2_000);

      ReconfigurationReport out = done(job.rescale("count", 4));
      assertThat(out.kind()).isEqualTo("rescale");
      assertThat(out.tasksBefore()).containsExactly(0, 1);
      assertThat(out.tasksAfter()).containsExactly(0, 1, 2, 3);
      assertThat(out.bucketsMoved()).isPositive();

      awaitProgress(job, 12_000);
      ReconfigurationReport in = done(job.rescale("count", 1));
      assertThat(in.tasksAfter()).containsExactly(0);
      assertThat(in.epoch()).isGreaterThan(out.epoch());

      ReconfigurationReport moved = done(job.migrate("count", 0, 2));
      assertThat(moved.kind()).isEqualTo("migrate");
      assertThat(moved.tasksAfter()).containsExactly(4); // indices are never reused

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
      JobMetrics metrics = job.metrics();
      assertThat(metrics.reconfigurations()).hasSize(3);
      // a record counts where it runs: not again when forwarded, held or parked on the way
      assertThat(metrics.recordsIn("count")).isEqualTo(RECORDS);
      assertThat(metrics.recordsIn("recount")).isEqualTo(RECORDS);
      // every key lived on a task that was removed at some point, and was counted after: its
      // state was fetched exactly when needed, and never more than once per key and epoch
      assertThat(metrics.keysTransferred()).isPositive();
      assertThat(metrics.stateBytesTransferred()).isPositive();
    }
  }

  /**
   * The stop-and-restart baseline on the same runtime: the sources pause, the old owners push all
   * state of the moved buckets with the hand-over, the sources resume; nothing is fetched lazily
   * and every count is exact.
   */
  @Test
  void stopAndRestartMovesTheStateUpFrontAndKeepsEveryCount() throws Exception {
    KoalaConfig config =
        KoalaConfig.load().withWorkers(3).with("koala.reconfiguration.protocol", "stop-restart");
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(8_000));
      awaitProgress(job, 2_000);
      ReconfigurationReport out = done(job.rescale("count", 4));
      assertThat(out.keysTransferred()).as("pushed with the hand-over").isPositive();
      assertThat(out.fetchRequests()).isZero();
      awaitProgress(job, 12_000);
      done(job.rescale("count", 1));
      done(job.migrate("count", 0, 2));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
      JobMetrics metrics = job.metrics();
      assertThat(metrics.fetchRequests()).as("no lazy fetch").isZero();
      assertThat(metrics.keysDrained()).as("nothing left to drain").isZero();
      assertThat(metrics.keysTransferred()).isPositive();
      assertThat(metrics.recordsIn("count")).isEqualTo(RECORDS);
    }
  }

  /**
   * The staged baselines on the same runtime: a few buckets per epoch, all of their state moved
   * within it (eager pulls it after the hand-over, fluid pushes it ahead), and every count exact.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"eager", "fluid"})
  void stagedBaselinesMoveAllStateAFewBucketsPerEpoch(String protocol) throws Exception {
    KoalaConfig config =
        KoalaConfig.load()
            .withWorkers(3)
            .with("koala.reconfiguration.protocol", protocol)
            .with("koala.reconfiguration.buckets-per-step", 16);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(8_000));
      awaitProgress(job, 2_000);
      ReconfigurationReport out = done(job.rescale("count", 4));
      assertThat(out.movedBuckets())
          .as("all moved buckets, over several epochs")
          .hasSizeGreaterThan(16);
      assertThat(out.keysTransferred()).as("moved within the epochs").isPositive();
      awaitProgress(job, 12_000);
      done(job.rescale("count", 1));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
      JobMetrics metrics = job.metrics();
      assertThat(metrics.releasedTasks("count")).as("nothing left behind").hasSize(3);
      assertThat(metrics.recordsIn("count")).isEqualTo(RECORDS);
    }
  }

  /**
   * The remote state backend: every batch reads its keys from the state services and writes them
   * back; a reconfiguration only switches routing (nothing moves between tasks), and the counts
   * stay exact across it, over separate ActorSystems.
   */
  @Test
  void remoteStateBackendOnlySwitchesRoutingAndKeepsEveryCount() throws Exception {
    KoalaConfig config =
        KoalaConfig.load()
            .withWorkers(3)
            .withSeparateSystems(true)
            .with("koala.store.backend", "remote")
            .with("koala.store.remote-services", 2);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(4_000)); // remote state is slower: a longer run
      awaitProgress(job, 2_000);
      ReconfigurationReport out = done(job.rescale("count", 4));
      assertThat(out.movedBuckets()).isNotEmpty();
      assertThat(out.keysTransferred()).as("nothing moves between tasks").isZero();
      awaitProgress(job, 12_000);
      done(job.rescale("count", 1));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
      JobMetrics metrics = job.metrics();
      assertThat(metrics.keysTransferred()).isZero();
      assertThat(metrics.fetchRequests()).isZero();
      assertThat(metrics.recordsIn("count")).isEqualTo(RECORDS);
    }
  }

  /**
   * A scale-in and a migration retire tasks that still hold state: their buckets' new owners drain
   * it all (a forced full transfer), then the retired tasks stop and their stores are deleted,
   * while the job runs on with exact counts.
   */
  @Test
  void retiredTasksAreDrainedStoppedAndDeleted(@TempDir Path dir) throws Exception {
    KoalaConfig config = KoalaConfig.load().withWorkers(3).withDataDir(dir);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(4_000));
      awaitProgress(job, 2_000);
      done(job.rescale("count", 1)); // retires task 1
      done(job.migrate("count", 0, 2)); // retires task 0; task 2 owns everything
      Eventually.await(
          "both retired tasks of 'count' to be drained and stopped while the job runs",
          WAIT,
          () ->
              job.metrics().releasedTasks("count").size() == 2
                  && job.status() == JobStatus.RUNNING);
      // their keys reached the new owner, fetched on first access or drained: which of the two
      // depends on timing (500 keys that each get a record every ~0.1 s may all be fetched
      // before the drain starts); the exact counts below say none was lost
      assertThat(job.metrics().keysTransferred()).isPositive();
      Eventually.await(
          "the stores of the stopped tasks to be deleted",
          WAIT,
          () -> taskDirectories(dir, "count-0", "count-1").isEmpty());
      assertThat(taskDirectories(dir, "count-2")).hasSize(1);

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
      assertThat(job.metrics().recordsIn("count")).isEqualTo(RECORDS);
    }
  }

  /** Task directories under {@code root} (worker-N/JOB/OPERATOR-INDEX) with one of these names. */
  private static List<Path> taskDirectories(Path root, String... names) {
    Set<String> wanted = Set.of(names);
    List<Path> out = new ArrayList<>();
    for (Path worker : list(root)) {
      for (Path job : list(worker)) {
        for (Path task : list(job)) {
          if (wanted.contains(task.getFileName().toString())) {
            out.add(task);
          }
        }
      }
    }
    return out;
  }

  private static List<Path> list(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> paths = Files.list(dir)) {
      return paths.filter(Files::isDirectory).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }

  @Test
  void concurrentRequestsOnTwoOperatorsQueueAndAllComplete() throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(dataflow(8_000));
      awaitProgress(job, 2_000);
      // fired together: they run one epoch at a time, in order
      CompletableFuture<ReconfigurationReport> a = job.rescale("count", 3).toCompletableFuture();
      CompletableFuture<ReconfigurationReport> b = job.rescale("recount", 5).toCompletableFuture();
      CompletableFuture<ReconfigurationReport> c =
          job.rebalance("count", io.koala.routing.PartitionPolicy.consistentHashing())
              .toCompletableFuture();
      ReconfigurationReport ra = done(a);
      ReconfigurationReport rb = done(b);
      ReconfigurationReport rc = done(c);
      assertThat(List.of(ra.epoch(), rb.epoch(), rc.epoch())).isSorted().doesNotHaveDuplicates();
      assertThat(rb.operator()).isEqualTo("recount");
      assertThat(rb.tasksAfter()).hasSize(5);
      assertThat(rc.tasksAfter()).isEqualTo(ra.tasksAfter());
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
    }
  }

  @Test
  void badRequestsAreRefusedWithTheReasonAndTheJobGoesOn() throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(dataflow(20_000));
      awaitProgress(job, 1_000);
      assertRefused(job.rescale("nope", 2), "no operator named 'nope'");
      assertRefused(
          job.rescale("n", 3),
          "parallelism 3 for source 'n' is above the 2 tasks that can have something to read");
      assertRefused(job.rescale("count", 0), "parallelism 0 for 'count' is outside [1,");
      assertRefused(job.migrate("count", 7, 1), "has no live task 7");
      assertRefused(job.migrate("count", 0, 9), "no worker 9");
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
      assertRefused(job.rescale("count", 3), "is FINISHED");
    }
  }

  static void assertRefused(
      java.util.concurrent.CompletionStage<ReconfigurationReport> stage, String reason) {
    assertThatThrownBy(() -> stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(ReconfigurationException.class)
        .hasMessageContaining(reason);
  }
}
