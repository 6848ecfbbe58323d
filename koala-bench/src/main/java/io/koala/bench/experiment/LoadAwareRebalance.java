package io.koala.bench.experiment;

import io.koala.job.OperatorLoad;
import io.koala.job.ReconfigurationReport;
import io.koala.routing.PartitionPolicy;
import io.koala.runtime.JobHandle;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The rebalance of {@code experiment skew}: when its step comes, it reads the job's metrics, takes
 * the target's per-bucket loads the runtime measured ({@link OperatorLoad#bucketRecordsPerSecond},
 * decayed rates) and rebalances the target's buckets over its tasks by them ({@link
 * Plans#balance}). It keeps what it measured, for the summary.
 */
public final class LoadAwareRebalance
    implements Function<JobHandle, CompletionStage<ReconfigurationReport>> {
  private final String target;
  private final int tasks;
  private volatile Measured measured;

  /**
   * What the step measured and decided.
   *
   * @param bucketLoads the target's records per second by bucket
   * @param sharesBefore each task's share of the target's records per second, by task index
   * @param owners the load-aware map applied (bucket → task index)
   * @param plannedSharesAfter each task's share of {@code bucketLoads} under {@code owners}
   */
  public record Measured(
      double[] bucketLoads, double[] sharesBefore, int[] owners, double[] plannedSharesAfter) {}

  /** Rebalances {@code target}'s buckets over its {@code tasks} tasks. */
  public LoadAwareRebalance(String target, int tasks) {
    this.target = target;
    this.tasks = tasks;
  }

  @Override
  public CompletionStage<ReconfigurationReport> apply(JobHandle job) {
    OperatorLoad load = job.metrics().load(target);
    double[] loads = load.bucketRecordsPerSecond();
    if (loads.length == 0 || Arrays.stream(loads).sum() <= 0) {
      return CompletableFuture.failedFuture(
          new IllegalStateException(
              "the runtime measured no load for the buckets of " + target + ": " + load));
    }
    int[] owners = Plans.balance(loads, tasks);
    measured =
        new Measured(loads, taskShares(load, tasks), owners, Plans.shares(loads, owners, tasks));
    return job.rebalance(target, PartitionPolicy.explicit(owners));
  }

  /** What the step measured; null before it ran. */
  public Measured measured() {
    return measured;
  }

  /**
   * Each of the {@code tasks} tasks' share of {@code load}'s records per second (decayed), by task
   * index; zeros when the operator processed nothing.
   */
  public static double[] taskShares(OperatorLoad load, int tasks) {
    double[] shares = new double[tasks];
    double total = load.recordsPerSecond();
    for (OperatorLoad.TaskLoad t : load.tasks()) {
      if (t.task().index() < tasks && total > 0) {
        shares[t.task().index()] += t.recordsPerSecond() / total;
      }
    }
    return shares;
  }
}
