package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.plan.TaskId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The loss of a whole worker (DESIGN §6.8, §9): with checkpoints, the job rolls back and the lost
 * worker's tasks are restored from their snapshots on the remaining workers; without, it fails
 * naming the worker. The running counts of {@link LiveReconfigurationTest} judge exactly-once.
 */
class WorkerLossRecoveryIT {
  static final Duration WAIT = Duration.ofSeconds(60);

  /** Three workers; the job's six tasks go two to each (count#0 and recount#1 on worker 2). */
  static KoalaConfig config(Path dir, Duration interval, boolean separate) {
    return KoalaConfig.load()
        .withWorkers(3)
        .withSeparateSystems(separate)
        .withDataDir(dir)
        .withCheckpointInterval(interval)
        .withRestartBackoff(Duration.ofMillis(50));
  }

  /** Waits for results that a committed checkpoint covers, so that a rollback has one to go to. */
  static void awaitCommittedResults(JobHandle job) {
    Eventually.await(
        "results published by committed checkpoints",
        WAIT,
        () -> !job.collected("counts").isEmpty());
  }

  static List<TaskId> tasksOn(JobHandle job, int worker) {
    return job.metrics().tasksOnWorker(worker);
  }

  @ParameterizedTest(name = "separate systems: {0}")
  @ValueSource(booleans = {false, true})
  void aWorkerLostMidRunHasItsTasksRestoredOnTheOthers(boolean separate, @TempDir Path dir)
      throws Exception {
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(config(dir, Duration.ofMillis(100), separate))) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(8_000));
      awaitCommittedResults(job);
      List<TaskId> lost = tasksOn(job, 2);
      assertThat(lost).as("tasks on worker 2").isNotEmpty();
      runtime.loseWorker(2);
      // a request never places a task on a lost worker: refused at once, or when it would start
      assertThatThrownBy(
              () ->
                  job.migrate("count", 1, 2)
                      .toCompletableFuture()
                      .get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(ReconfigurationException.class)
          .hasMessageContaining("worker 2 is lost");
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
      JobMetrics end = job.metrics();
      assertThat(end.tasksOnWorker(2)).as("tasks left on the lost worker").isEmpty();
      assertThat(end.placement().keySet()).containsAll(lost); // restored elsewhere
      assertThat(end.placement().values()).containsOnly(0, 1);
    }
  }

  @Test
  void aWorkerLostDuringALiveRescaleIsRecoveredAndTheRescaleRunsOnTheOthers(@TempDir Path dir)
      throws Exception {
    // every 500 ms: a due checkpoint holds back the next epoch, and the next one is due an interval
    // after the last was triggered, so where a checkpoint takes longer than the interval (a loaded
    // machine, at 100 ms) the rescale would not start before the input ends
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, Duration.ofMillis(500), true))) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(3_000));
      job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      var rescale = job.rescale("count", 4);
      // lost once the rescale has deployed its new tasks: in its epoch, or just after it
      Eventually.await(
          "the rescale's new tasks",
          WAIT,
          () ->
              rescale.toCompletableFuture().isDone() || job.metrics().tasksOf("count").size() >= 4);
      runtime.loseWorker(2);
      ReconfigurationReport report =
          rescale.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(report.tasksAfter()).containsExactly(0, 1, 2, 3);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
      JobMetrics end = job.metrics();
      assertThat(end.tasksOnWorker(2)).as("tasks left on the lost worker").isEmpty();
      assertThat(end.placement().values()).containsOnly(0, 1);
      assertThat(end.tasksOf("count")).hasSizeGreaterThanOrEqualTo(4);
    }
  }

  @ParameterizedTest(name = "separate systems: {0}")
  @ValueSource(booleans = {false, true})
  void withoutCheckpointsLosingAWorkerFailsTheJobNamingIt(boolean separate, @TempDir Path dir) {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, null, separate))) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(8_000));
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      List<TaskId> lost = tasksOn(job, 1);
      assertThat(lost).isNotEmpty();
      runtime.loseWorker(1);
      assertThatThrownBy(() -> job.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("worker 1 is lost")
          .hasMessageContaining(lost.toString())
          .hasMessageContaining("koala.checkpoint.interval = off");
      assertThat(job.status()).isEqualTo(JobStatus.FAILED);
    }
  }

  @Test
  void aRedeploymentThatTakesTooLongFailsTheAttemptNamingWhatItWaitedFor(@TempDir Path dir)
      throws Exception {
    // 1 ms: no worker restores its tasks' snapshots that fast, so every redeployment times out;
    // the scheduler ticks every millisecond so that the timer fires then, not after Pekko's
    // default tick of 10 ms, by which a small restore may be done
    KoalaConfig config =
        config(dir, Duration.ofMillis(100), false)
            .withRedeployTimeout(Duration.ofMillis(1))
            .withMaxRestarts(1)
            .with("pekko.scheduler.tick-duration", "1ms");
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(4_000));
      awaitCommittedResults(job);
      runtime.loseWorker(2); // restart 1 of 1; its redeployment times out, and none is left
      assertThatThrownBy(() -> job.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("attempt 1 of job " + job.id())
          .hasMessageContaining("did not deploy their tasks within 1 ms")
          .hasMessageContaining("koala.checkpoint.redeploy-timeout")
          .hasMessageMatching("(?s).*workers \\d \\(tasks \\[.*#\\d.*");
    }
  }

  @Test
  void losingEveryWorkerFailsTheJob(@TempDir Path dir) throws Exception {
    KoalaConfig config = config(dir, Duration.ofMillis(100), false).withWorkers(2);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(4_000));
      awaitCommittedResults(job);
      runtime.loseWorker(0);
      runtime.loseWorker(1);
      assertThatThrownBy(() -> job.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("every worker of job")
          .hasMessageContaining("is lost (workers [0, 1])");
      assertThatThrownBy(() -> runtime.submit(LiveReconfigurationTest.dataflow(4_000)))
          .isInstanceOf(io.koala.KoalaException.class)
          .hasMessageContaining("every worker of this runtime is lost [0, 1]");
    }
  }
}
