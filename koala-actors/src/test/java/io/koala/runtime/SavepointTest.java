package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.KoalaException;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints on the actor runtime: a savepoint directory restores the job on its own after being
 * moved (the job's checkpoints gone), a stop with a savepoint continues exactly once after the
 * restore, and directories or jobs that cannot take one are refused with the reason. The running
 * counts of {@link LiveReconfigurationTest} (through {@link CheckpointRecoveryTest#dataflow}) judge
 * exactly-once: its collecting sinks publish what committed checkpoints cover.
 */
class SavepointTest {
  static final Duration WAIT = CheckpointRecoveryTest.WAIT;

  /** Checkpoints on, but none periodic in a test's time: only those asked for are taken. */
  static KoalaConfig config(Path dir) {
    return CheckpointRecoveryTest.config(dir, Duration.ofHours(1));
  }

  static Savepoint join(java.util.concurrent.CompletionStage<Savepoint> s) throws Exception {
    return s.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void aSavepointMovedElsewhereRestoresTheJobWithoutItsCheckpoints(@TempDir Path dir)
      throws Exception {
    Path first = dir.resolve("first");
    KoalaConfig config =
        config(first) // a retired holder keeps its state: its snapshot is an older checkpoint's
            .with("koala.reconfiguration.drain.piggyback-keys", 0)
            .with("koala.reconfiguration.drain.interval", "60 s");
    Map<String, List<KeyValue<Long, Long>>> seen = new TreeMap<>();
    Savepoint sp;
    String id;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(CheckpointRecoveryTest.dataflow(4_000));
      id = job.id();
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      ReconfigurationReport in =
          job.rescale("count", 1).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(in.tasksAfter()).containsExactly(0);
      long older = CheckpointRecoveryTest.checkpoint(job); // count#1's snapshot, as a holder
      Path target = dir.resolve("savepoints").resolve(id).resolve("sp-1");
      sp = join(job.savepoint(target));
      assertThat(sp.directory()).isEqualTo(target);
      assertThat(sp.checkpointId()).isGreaterThan(older);
      Path chk = first.resolve("checkpoints").resolve(id);
      assertThat(chk.resolve("chk-" + sp.checkpointId()).resolve("count-1.snap"))
          .as("the holder's snapshot is not in the savepoint's checkpoint directory")
          .doesNotExist();
      assertThat(target.resolve("count-1.snap")).as("but in the savepoint").exists();
      assertThat(target.resolve("_metadata")).exists();
      // no checkpoint is taken after the savepoint (none is periodic): what is published now is
      // exactly what the savepoint covers
      CheckpointRecoveryTest.collect(seen, job);
      assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
    } // the runtime goes away with the job running
    assertThat(seen.get("counts")).isNotEmpty().hasSizeLessThan(CheckpointRecoveryTest.RECORDS);
    Path moved = dir.resolve("elsewhere");
    Files.move(dir.resolve("savepoints"), moved);
    deleteRecursively(first); // the first run's checkpoints and journal are gone
    Path relocated = moved.resolve(id).resolve("sp-1");
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir.resolve("second")))) {
      JobHandle job =
          runtime.submit(
              CheckpointRecoveryTest.dataflow(20_000), SubmitOptions.restoreFrom(relocated));
      assertThat(job.id()).isEqualTo(id);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      CheckpointRecoveryTest.collect(seen, job);
    }
    LiveReconfigurationTest.assertExactCounts(seen);
    assertThat(relocated.resolve("_metadata")).as("the savepoint is only read").exists();
  }

  @Test
  void aJobStoppedWithASavepointContinuesExactlyOnceFromIt(@TempDir Path dir) throws Exception {
    KoalaConfig config = config(dir.resolve("data"));
    Map<String, List<KeyValue<Long, Long>>> seen = new TreeMap<>();
    Path target;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(CheckpointRecoveryTest.dataflow(4_000));
      LiveReconfigurationTest.awaitProgress(job, 3_000);
      target = dir.resolve("savepoints").resolve(job.id()).resolve("stop");
      Savepoint sp = join(job.stopWithSavepoint(target));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.STOPPED);
      assertThat(sp.checkpointId()).isPositive();
      long read = job.metrics().recordsIn("count");
      assertThat(read).as("stopped early").isLessThan(CheckpointRecoveryTest.RECORDS);
      CheckpointRecoveryTest.collect(seen, job);
      // every record read before the stop is counted, and published: the stop cut nothing off
      assertThat((long) seen.get("counts").size()).isEqualTo(read);
      assertThat(job.savepoint(dir.resolve("late")).toCompletableFuture())
          .failsWithin(WAIT)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withMessageContaining("is STOPPED");
    }
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job =
          runtime.submit(
              CheckpointRecoveryTest.dataflow(20_000), SubmitOptions.restoreFrom(target));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      CheckpointRecoveryTest.collect(seen, job);
    }
    LiveReconfigurationTest.assertExactCounts(seen); // equal to an uninterrupted run's
    assertThat(target.resolve("_metadata")).as("the job never deletes a savepoint").exists();
  }

  @Test
  void aJobStoppedWithAFinalCheckpointResumesFromItWhenSubmittedAgain(@TempDir Path dir)
      throws Exception {
    KoalaConfig config = config(dir.resolve("data"));
    Map<String, List<KeyValue<Long, Long>>> seen = new TreeMap<>();
    long read;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(CheckpointRecoveryTest.dataflow(4_000));
      LiveReconfigurationTest.awaitProgress(job, 3_000);
      long id = job.stop().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.STOPPED);
      assertThat(dir.resolve("data/checkpoints").resolve(job.id()).resolve("chk-" + id))
          .as("the final checkpoint stays with the job's")
          .exists();
      read = job.metrics().recordsIn("count");
      assertThat(read).as("stopped early").isLessThan(CheckpointRecoveryTest.RECORDS);
      CheckpointRecoveryTest.collect(seen, job);
      assertThat((long) seen.get("counts").size()).isEqualTo(read);
      assertThat(job.stop().toCompletableFuture())
          .failsWithin(WAIT)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withMessageContaining("is STOPPED");
    }
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(CheckpointRecoveryTest.dataflow(20_000));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(job.metrics().recordsIn("count"))
          .as("nothing read before the stop is read again")
          .isEqualTo(CheckpointRecoveryTest.RECORDS - read);
      CheckpointRecoveryTest.collect(seen, job);
    }
    LiveReconfigurationTest.assertExactCounts(seen);
  }

  @Test
  void aSavepointIsRefusedWithTheReason(@TempDir Path dir) throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir.resolve("data")))) {
      JobHandle job = runtime.submit(CheckpointRecoveryTest.dataflow(4_000));
      Eventually.await("the job running", WAIT, () -> job.status() == JobStatus.RUNNING);
      Path full = Files.createDirectories(dir.resolve("full"));
      Files.writeString(full.resolve("other"), "x");
      assertRefused(job.stopWithSavepoint(full), "savepoint directory " + full, "is not empty");
      Path inside = dir.resolve("data").resolve("checkpoints").resolve(job.id()).resolve("sp");
      assertRefused(job.savepoint(inside), "inside the job's checkpoint directory");
      assertThat(job.status()).as("a refused stop stops nothing").isEqualTo(JobStatus.RUNNING);
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertRefused(job.savepoint(dir.resolve("sp")), "is CANCELLED");
    }
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(CheckpointRecoveryTest.config(dir.resolve("off"), null))) {
      JobHandle job = runtime.submit(CheckpointRecoveryTest.dataflow(4_000));
      assertRefused(job.savepoint(dir.resolve("sp")), "koala.checkpoint.interval is off");
    }
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString())).doesNotContain("sp");
    }
  }

  private static void assertRefused(
      java.util.concurrent.CompletionStage<Savepoint> stage, String... words) {
    assertThatThrownBy(() -> stage.toCompletableFuture().join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(KoalaException.class)
        .hasMessageContainingAll(words);
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
