package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.coordinator.PlannedCrash;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.testing.TaskCrashes;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checkpoints and rollback on the actor runtime (DESIGN §8): a task fails once mid-run, the job
 * rolls back to its latest checkpoint and finishes with every result exactly once — the running
 * counts of {@link LiveReconfigurationTest} are the judge.
 */
class CheckpointRecoveryTest {
  static final int RECORDS = LiveReconfigurationTest.RECORDS;
  static final int KEYS = LiveReconfigurationTest.KEYS;
  static final Duration WAIT = Duration.ofSeconds(90);

  /** Armed by a test: the next record through the source's map throws, once. */
  static final AtomicBoolean FAIL_ONCE = new AtomicBoolean();

  /** Whether the armed failure happened. */
  static final AtomicBoolean FAILED = new AtomicBoolean();

  /** {@link LiveReconfigurationTest#dataflow}, with a map after the source that can fail once. */
  static Dataflow dataflow(double rate) {
    DataflowBuilder b = Dataflow.builder("recover").parallelism(2);
    var counts =
        b.source(
                SourceSpec.generator("n", (i, seed) -> (i * 7919) % KEYS)
                    .partitions(2)
                    .count(RECORDS)
                    .rate(RateSchedule.constant(rate)))
            .map(
                "maybe-fail",
                (Long x) -> {
                  if (FAIL_ONCE.compareAndSet(true, false)) {
                    FAILED.set(true);
                    throw new IllegalStateException("planned failure (test)");
                  }
                  return x;
                })
            .keyBy(x -> x)
            .count("count");
    counts.sink(SinkSpec.collecting("counts"));
    counts.keyBy(KeyValue::key).count("recount").sink(SinkSpec.collecting("recounts"));
    return b.build();
  }

  static KoalaConfig config(Path dir, Duration interval) {
    return KoalaConfig.load()
        .withWorkers(2)
        .withDataDir(dir)
        .withCheckpointInterval(interval)
        .withRestartBackoff(Duration.ofMillis(50));
  }

  static void arm() {
    FAILED.set(false);
    FAIL_ONCE.set(true);
  }

  static long checkpoint(JobHandle job) throws Exception {
    return job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @ParameterizedTest(name = "separate systems: {0}")
  @ValueSource(booleans = {false, true})
  void aTaskFailingMidRunRollsBackToExactlyOnceOutput(boolean separate, @TempDir Path dir)
      throws Exception {
    KoalaConfig config = config(dir, Duration.ofMillis(100)).withSeparateSystems(separate);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(10_000));
      long first = checkpoint(job);
      assertThat(first).isPositive();
      Eventually.await(
          "results published by committed checkpoints",
          WAIT,
          () -> !job.collected("counts").isEmpty());
      arm();
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(FAILED).as("the planned failure happened").isTrue();
      LiveReconfigurationTest.assertExactCounts(job);
    }
  }

  @Test
  void aFailureDuringALiveRescaleRollsBackAndRescalesAgain(@TempDir Path dir) throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, Duration.ofMillis(100)))) {
      JobHandle job = runtime.submit(dataflow(4_000));
      checkpoint(job);
      var rescale = job.rescale("count", 4);
      arm();
      ReconfigurationReport report =
          rescale.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(report.tasksAfter()).containsExactly(0, 1, 2, 3);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(FAILED).as("the planned failure happened").isTrue();
      LiveReconfigurationTest.assertExactCounts(job);
      assertThat(job.metrics().reconfigurations()).isNotEmpty();
    }
  }

  @Test
  void aRescaleUndoneByARollbackRunsAgain(@TempDir Path dir) throws Exception {
    // no periodic checkpoint: the rollback goes to the one taken before the rescale
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, Duration.ofHours(1)))) {
      JobHandle job = runtime.submit(dataflow(4_000));
      checkpoint(job);
      ReconfigurationReport first =
          job.rescale("count", 4).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(first.tasksAfter()).containsExactly(0, 1, 2, 3);
      arm();
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(FAILED).isTrue();
      LiveReconfigurationTest.assertExactCounts(job);
      // the report of the rolled-back run is gone; the rescale ran again after the rollback
      List<ReconfigurationReport> reports = job.metrics().reconfigurations();
      assertThat(reports).hasSize(1);
      assertThat(reports.get(0).tasksAfter()).containsExactly(0, 1, 2, 3);
      assertThat(reports.get(0).epoch()).isGreaterThan(first.epoch());
    }
  }

  @Test
  void retiredHoldersAreRestoredFromTheirSnapshots(@TempDir Path dir) throws Exception {
    KoalaConfig config =
        config(dir, Duration.ofHours(1))
            .with("koala.reconfiguration.drain.piggyback-keys", 0)
            .with("koala.reconfiguration.drain.interval", "60 s");
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(8_000));
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      ReconfigurationReport in =
          job.rescale("count", 1).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(in.tasksAfter()).containsExactly(0);
      long id = checkpoint(job); // count#1 is retired: its snapshot is asked for directly
      Path chk = dir.resolve("checkpoints").resolve(job.id()).resolve("chk-" + id);
      assertThat(chk.resolve("count-1.snap")).as("the retired holder's snapshot").exists();
      arm();
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(FAILED).isTrue();
      LiveReconfigurationTest.assertExactCounts(job);
    }
  }

  @Test
  void aCorruptLatestCheckpointFallsBackToTheOneBefore(@TempDir Path dir) throws Exception {
    // no periodic checkpoint: only the two taken here exist
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, Duration.ofHours(1)))) {
      JobHandle job = runtime.submit(dataflow(4_000));
      long older = checkpoint(job);
      long newer = checkpoint(job);
      assertThat(newer).isGreaterThan(older);
      Path snap =
          dir.resolve("checkpoints")
              .resolve(job.id())
              .resolve("chk-" + newer)
              .resolve("count-0.snap");
      assertThat(snap).exists();
      flipAByte(snap);
      arm();
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(FAILED).isTrue();
      // rolled back to the older checkpoint: nothing is lost, but the results the newer one had
      // published are produced again (a fallback is exactly-once only up to the older checkpoint)
      Map<Long, Long> expected = new TreeMap<>();
      for (long i = 0; i < RECORDS; i++) {
        expected.merge((i * 7919) % KEYS, 1L, Long::sum);
      }
      List<KeyValue<Long, Long>> out = job.collected("counts");
      Map<Long, List<Long>> seen = new TreeMap<>();
      for (KeyValue<Long, Long> kv : out) {
        seen.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
      }
      expected.forEach(
          (key, n) -> {
            for (long c = 1; c <= n; c++) {
              assertThat(seen.get(key)).as("count %d of key %d", c, key).contains(c);
            }
          });
      assertThat(dir.resolve("checkpoints").resolve(job.id()))
          .as("a finished job's checkpoints are deleted")
          .doesNotExist();
      assertThat(
              dir.resolve("checkpoints")
                  .resolve("_quarantine")
                  .resolve(job.id())
                  .resolve("chk-" + newer)
                  .resolve("count-0.snap"))
          .as("the corrupt snapshot is moved aside, not deleted")
          .exists();
    }
  }

  /**
   * A snapshot that cannot be read at a restore (here: moved away, as when a mount is not there
   * yet) fails that attempt, not the checkpoint: the job restores the same checkpoint again after
   * the backoff, and once the file is back it resumes from it, exactly once.
   */
  @Test
  void aSnapshotMissingAtARestoreKeepsItsCheckpointWhichRestoresOnceTheFileIsBack(@TempDir Path dir)
      throws Exception {
    KoalaConfig config = config(dir, Duration.ofHours(1)).withMaxRestarts(1_000);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(4_000));
      long only = checkpoint(job);
      Path snap =
          dir.resolve("checkpoints")
              .resolve(job.id())
              .resolve("chk-" + only)
              .resolve("count-0.snap");
      Path away = dir.resolve("count-0.snap.away");
      Files.move(snap, away);
      arm();
      Eventually.await(
          "attempts that met the missing snapshot",
          WAIT,
          () -> job.metrics().rollbacks() >= 3 || job.status().isTerminal());
      assertThat(job.status()).isNotIn(JobStatus.FAILED, JobStatus.FINISHED);
      Files.move(away, snap);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(FAILED).isTrue();
      LiveReconfigurationTest.assertExactCounts(job);
    }
  }

  /**
   * {@code config} with a close that cancels the jobs at once, as a runtime that goes away without
   * stopping them (a crash, a kill) leaves them: they resume from their latest periodic checkpoint.
   */
  static KoalaConfig abruptClose(KoalaConfig config) {
    return config.with("koala.close-timeout", "0 s");
  }

  @Test
  void aJobSubmittedAgainAfterARestartResumesFromItsLatestCheckpoint(@TempDir Path dir)
      throws Exception {
    KoalaConfig config = abruptClose(config(dir, Duration.ofHours(1)));
    Map<String, List<KeyValue<Long, Long>>> seen = new TreeMap<>();
    String id;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(4_000));
      LiveReconfigurationTest.awaitProgress(job, 5_000);
      long c = checkpoint(job);
      assertThat(c).isPositive();
      collect(seen, job); // with checkpoints on, exactly what the committed checkpoint covers
      id = job.id();
    } // the runtime goes away with the job running
    assertThat(seen.get("counts")).isNotEmpty().hasSizeLessThan(RECORDS);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(20_000));
      assertThat(job.id()).isEqualTo(id);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      collect(seen, job);
      assertThat(job.metrics().recordsIn("count")).isLessThan(RECORDS); // it did not start over
    }
    LiveReconfigurationTest.assertExactCounts(seen);
    try (Stream<Path> left = Files.list(dir.resolve("checkpoints"))) {
      assertThat(left).as("a finished job's checkpoints are deleted").isEmpty();
    }
  }

  @Test
  void aRescaleAcceptedAfterTheLatestCheckpointRunsAgainAfterARestart(@TempDir Path dir)
      throws Exception {
    // no checkpoint covers the rescale
    KoalaConfig config = abruptClose(config(dir, Duration.ofHours(1)));
    Map<String, List<KeyValue<Long, Long>>> seen = new TreeMap<>();
    String id;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(4_000));
      LiveReconfigurationTest.awaitProgress(job, 5_000);
      assertThat(checkpoint(job)).isPositive();
      ReconfigurationReport first =
          job.rescale("count", 4).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(first.tasksAfter()).containsExactly(0, 1, 2, 3);
      collect(seen, job);
      id = job.id();
    } // the runtime goes away with the job running, the rescale journaled but not covered
    assertThat(seen.get("counts")).isNotEmpty().hasSizeLessThan(RECORDS);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(20_000));
      assertThat(job.id()).isEqualTo(id);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      collect(seen, job);
      assertThat(job.metrics().recordsIn("count")).isLessThan(RECORDS); // it did not start over
      // the journaled rescale ran again after the restored checkpoint, with no caller
      List<ReconfigurationReport> reports = job.metrics().reconfigurations();
      assertThat(reports).hasSize(1);
      assertThat(reports.get(0).operator()).isEqualTo("count");
      assertThat(reports.get(0).tasksAfter()).containsExactly(0, 1, 2, 3);
    }
    LiveReconfigurationTest.assertExactCounts(seen);
  }

  @Test
  void aJobSubmittedAgainAfterARestartBeforeItsFirstCheckpointStartsOverFromNothing(
      @TempDir Path dir) throws Exception {
    // no periodic checkpoint: the runtime goes away before the job's first one; with
    // delete-job-state off it leaves the job's task stores behind, as a kill -9 does
    // (KillNineRecoveryIT in samples)
    KoalaConfig config =
        abruptClose(config(dir, Duration.ofHours(1))).with("koala.delete-job-state", false);
    String id;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(4_000));
      LiveReconfigurationTest.awaitProgress(job, 5_000);
      id = job.id();
    }
    assertThat(List.of(dir.resolve("worker-0").resolve(id), dir.resolve("worker-1").resolve(id)))
        .as("the first run's task stores")
        .anyMatch(Files::isDirectory);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(20_000));
      assertThat(job.id()).isEqualTo(id);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(job.metrics().recordsIn("count")).as("it started over").isEqualTo(RECORDS);
      // every count from 1: no task started from the stale store of the first run
      LiveReconfigurationTest.assertExactCounts(job);
    }
  }

  @Test
  void aJobRestoredFromACheckpointDirectoryOnAnotherDataDirContinues(@TempDir Path dir)
      throws Exception {
    Path first = dir.resolve("first");
    Map<String, List<KeyValue<Long, Long>>> seen = new TreeMap<>();
    Path chk;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(first, Duration.ofHours(1)))) {
      JobHandle job = runtime.submit(dataflow(4_000));
      LiveReconfigurationTest.awaitProgress(job, 5_000);
      long c = checkpoint(job);
      collect(seen, job);
      chk = first.resolve("checkpoints").resolve(job.id()).resolve("chk-" + c);
      assertThat(chk.resolve("_metadata")).exists();
    }
    Path copy = dir.resolve("backup").resolve(chk.getParent().getFileName()).resolve("chk-x");
    Files.createDirectories(copy);
    try (Stream<Path> files = Files.list(chk)) {
      for (Path f : files.toList()) {
        Files.copy(f, copy.resolve(f.getFileName()));
      }
    }
    deleteRecursively(first); // nothing of the first run is left but the copy
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(config(dir.resolve("second"), Duration.ofHours(1)))) {
      // the same dataflow, resumed as it was, under another job id
      JobHandle job =
          runtime.submit(dataflow(20_000), SubmitOptions.restoreFrom(copy).withJobId("resumed"));
      assertThat(job.id()).isEqualTo("resumed");
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      collect(seen, job);
    }
    LiveReconfigurationTest.assertExactCounts(seen);
    assertThat(copy.resolve("_metadata")).as("the copy is only read").exists();
  }

  @Test
  void aRestoreNeedsCheckpointsAndAReadableCheckpointAndFailsAtSubmit(@TempDir Path dir) {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, null))) {
      assertThatThrownBy(
              () ->
                  runtime.submit(
                      dataflow(1_000), SubmitOptions.restoreFrom(dir.resolve("recover-1/chk-1"))))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("koala.checkpoint.interval is off");
    }
    Path empty = dir.resolve("recover-1").resolve("chk-3");
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(config(dir.resolve("data"), Duration.ofSeconds(1)))) {
      assertThatThrownBy(() -> runtime.submit(dataflow(1_000), SubmitOptions.restoreFrom(empty)))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("cannot restore job recover-1 from " + empty)
          .hasMessageContaining("_metadata");
      assertThat(runtime.jobs()).as("nothing started over").isEmpty();
    }
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** Adds what {@code job} published to each sink to {@code seen}. */
  static void collect(Map<String, List<KeyValue<Long, Long>>> seen, JobHandle job) {
    for (String sink : List.of("counts", "recounts")) {
      seen.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(job.collected(sink));
    }
  }

  @Test
  void withoutCheckpointsAFailureFailsTheJob(@TempDir Path dir) throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, null))) {
      JobHandle job = runtime.submit(dataflow(8_000));
      assertThatThrownBy(() -> job.checkpoint().toCompletableFuture().join())
          .isInstanceOf(CompletionException.class)
          .hasMessageContaining("koala.checkpoint.interval = off");
      arm();
      assertThatThrownBy(() -> job.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("planned failure");
      assertThat(job.status()).isEqualTo(JobStatus.FAILED);
    }
  }

  @Test
  void afterMaxRestartsTheJobFails(@TempDir Path dir) throws Exception {
    KoalaConfig config = config(dir, Duration.ofMillis(100)).withMaxRestarts(0);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(8_000));
      checkpoint(job);
      arm();
      assertThatThrownBy(() -> job.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("planned failure");
    }
  }

  private static void flipAByte(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0x5a);
    }
  }

  /**
   * A retired holder released before a checkpoint is not in it, but the owner's snapshot still
   * lists the keys it installed from it, to release once an older checkpoint is no longer
   * restorable. After a rollback to that checkpoint the release has no address (the holder was not
   * deployed again): it must be dropped, not fail the task at every commit until no restart is
   * left. And the released holder's metrics go with the rolled-back run.
   */
  @Test
  void aRollbackPastAReleasedHolderNeitherFailsOnItsReleasesNorCountsItsMetrics(@TempDir Path dir)
      throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, Duration.ofHours(1)))) {
      JobHandle job = runtime.submit(dataflow(4_000));
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      ReconfigurationReport in =
          job.rescale("count", 1).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(in.tasksAfter()).containsExactly(0);
      Eventually.await(
          "count#1 drained and released",
          WAIT,
          () -> !job.metrics().releasedTasks("count").isEmpty());
      checkpoint(job); // without count#1; count#0's snapshot lists releases for it
      TaskCrashes.plan(job, 7, List.of(new PlannedCrash.At(0)));
      checkpoint(job); // after the rollback: its commit releases the keys count#0 got from count#1
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
      JobMetrics metrics = job.metrics();
      assertThat(metrics.rollbacks()).isEqualTo(1);
      long handedOver =
          metrics.tasks().stream().mapToLong(t -> t.reconfiguration().bucketsHandedOver()).sum();
      long takenOver =
          metrics.tasks().stream().mapToLong(t -> t.reconfiguration().bucketsTakenOver()).sum();
      assertThat(handedOver).as("buckets handed over, and taken over").isEqualTo(takenOver);
    }
  }
}
