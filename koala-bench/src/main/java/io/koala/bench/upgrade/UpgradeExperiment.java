package io.koala.bench.upgrade;

import io.koala.bench.Directories;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.runtime.Savepoint;
import io.koala.runtime.SubmitOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code koala experiment upgrade}: version 1 of {@link OrderTotals} runs on a bounded,
 * rate-limited input until it has processed a share of it, stops with a savepoint, and version 2 (a
 * field added to the state class and one removed, a stateless stage added, a stateful operator
 * dropped, the totals on more tasks) restores from the savepoint in a new runtime and finishes the
 * input. The two versions' output together is judged against a reference computation over the whole
 * input ({@link UpgradeVerdict}).
 */
public final class UpgradeExperiment {
  private static final Duration WAIT = Duration.ofMinutes(10);

  private UpgradeExperiment() {}

  /**
   * The result of one run.
   *
   * @param workload what ran
   * @param savepointCheckpoint the id of the checkpoint the savepoint holds
   * @param v1Seconds version 1's run: its runtime's start, the job until its stop, the runtime's
   *     close
   * @param restoreMillis from version 2's submission to its status RUNNING (the compatibility
   *     check, the state carried over, the deployment)
   * @param v2Seconds version 2's run: its runtime's start, the job until its end, the runtime's
   *     close
   * @param verdict the output of both versions judged
   */
  public record Result(
      UpgradeWorkload workload,
      long savepointCheckpoint,
      double v1Seconds,
      long restoreMillis,
      double v2Seconds,
      UpgradeVerdict verdict) {

    /** One JSON object. */
    public String json() {
      return String.format(
          java.util.Locale.ROOT,
          "{\"experiment\":\"upgrade\",\"records\":%d,\"customers\":%d,\"rate\":%.0f,"
              + "\"savepointAt\":%.2f,\"v1Parallelism\":2,\"v2Parallelism\":%d,"
              + "\"droppedState\":[\"%s\"],\"savepointCheckpoint\":%d,\"v1Seconds\":%.2f,"
              + "\"restoreMillis\":%d,\"v2Seconds\":%.2f,\"published\":%d,"
              + "\"outputEquivalent\":%b,\"recordsLost\":%d,\"recordsDuplicated\":%d}",
          workload.records(),
          workload.customers(),
          workload.rate(),
          workload.savepointAt(),
          workload.v2Parallelism(),
          OrderTotals.REGION_COUNTS,
          savepointCheckpoint,
          v1Seconds,
          restoreMillis,
          v2Seconds,
          verdict.published(),
          verdict.outputEquivalent(),
          verdict.recordsLost(),
          verdict.recordsDuplicated());
    }
  }

  /**
   * Runs the experiment in {@code dir}: the two runtimes' data directories and the savepoint, all
   * deleted before and after the run.
   */
  public static Result run(UpgradeWorkload w, Path dir, Consumer<String> progress) {
    List<Path> data =
        List.of(
            dir.resolve("v1"),
            dir.resolve("v2"),
            dir.resolve("savepoint-v1"),
            dir.resolve("classes-v1"),
            dir.resolve("classes-v2"));
    data.forEach(Directories::delete);
    try {
      return runIn(w, dir, progress);
    } finally {
      data.forEach(Directories::delete);
    }
  }

  private static Result runIn(UpgradeWorkload w, Path dir, Consumer<String> progress) {
    List<OrderTotals.Total> published = new ArrayList<>();
    Path savepointDir = dir.resolve("savepoint-v1");
    Savepoint savepoint;
    long start = System.nanoTime();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir.resolve("v1")))) {
      JobHandle job =
          runtime.submit(
              OrderTotals.v1(w, StateClassVersions.compile(1, dir.resolve("classes-v1"))));
      long until = (long) (w.records() * w.savepointAt());
      progress.accept("version 1 runs until it has processed " + until + " orders");
      awaitProcessed(job, until);
      savepoint = get(job.stopWithSavepoint(savepointDir));
      if (job.await(WAIT) != JobStatus.STOPPED) {
        throw new IllegalStateException("version 1 ended " + job.status() + ", not STOPPED");
      }
      published.addAll(job.<OrderTotals.Total>collected(OrderTotals.SINK));
      progress.accept(
          "version 1 stopped with savepoint "
              + savepoint.directory()
              + " (checkpoint "
              + savepoint.checkpointId()
              + ") after "
              + published.size()
              + " totals published");
    }
    double v1Seconds = (System.nanoTime() - start) / 1e9;
    long restoreMillis;
    start = System.nanoTime();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir.resolve("v2")))) {
      JobHandle job =
          runtime.submit(
              OrderTotals.v2(w, StateClassVersions.compile(2, dir.resolve("classes-v2"))),
              SubmitOptions.restoreFrom(savepoint.directory())
                  .withJobId("order-totals")
                  .allowDroppingState(OrderTotals.REGION_COUNTS));
      while (job.status() == JobStatus.DEPLOYING) {
        sleep(1);
      }
      restoreMillis = (System.nanoTime() - start) / 1_000_000;
      progress.accept("version 2 restored from the savepoint in " + restoreMillis + " ms");
      if (job.await(WAIT) != JobStatus.FINISHED) {
        throw new IllegalStateException("version 2 ended " + job.status());
      }
      published.addAll(job.<OrderTotals.Total>collected(OrderTotals.SINK));
    }
    double v2Seconds = (System.nanoTime() - start) / 1e9;
    Map<Long, long[]> reference = UpgradeVerdict.reference(w.records(), w.customers());
    return new Result(
        w,
        savepoint.checkpointId(),
        v1Seconds,
        restoreMillis,
        v2Seconds,
        UpgradeVerdict.of(published, reference));
  }

  private static KoalaConfig config(Path dataDir) {
    return KoalaConfig.load()
        .withWorkers(2)
        .withDataDir(dataDir)
        .withCheckpointInterval(Duration.ofSeconds(1));
  }

  private static void awaitProcessed(JobHandle job, long orders) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (job.status() != JobStatus.RUNNING || job.metrics().recordsIn("totals") < orders) {
      if (job.status().isTerminal() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "version 1 did not process " + orders + " orders: it is " + job.status());
      }
      sleep(20);
    }
  }

  private static <T> T get(java.util.concurrent.CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("the savepoint failed: " + e, e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
