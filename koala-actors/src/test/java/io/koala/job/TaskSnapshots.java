package io.koala.job;

import io.koala.plan.TaskId;
import java.util.List;

/**
 * Task metrics snapshots for tests: every count zero and no rates, but those a test sets, so that a
 * test names only the figures it is about.
 */
public final class TaskSnapshots {
  private final TaskId task;
  private String status = "RUNNING";
  private long stateBytes;
  private long busyNanos;
  private double busyFraction;
  private double recordsPerSecond;
  private BucketLoads buckets = BucketLoads.NONE;

  private TaskSnapshots(TaskId task) {
    this.task = task;
  }

  /** A snapshot of {@code task}, RUNNING, with nothing counted. */
  public static TaskSnapshots of(TaskId task) {
    return new TaskSnapshots(task);
  }

  public TaskSnapshots status(String s) {
    status = s;
    return this;
  }

  public TaskSnapshots stateBytes(long bytes) {
    stateBytes = bytes;
    return this;
  }

  /** Busy the share {@code fraction} of each second, at {@code perSecond} records a second. */
  public TaskSnapshots load(double perSecond, double fraction) {
    recordsPerSecond = perSecond;
    busyFraction = fraction;
    busyNanos = (long) (fraction * 10e9);
    return this;
  }

  public TaskSnapshots buckets(BucketLoads loads) {
    buckets = loads;
    return this;
  }

  public TaskMetricsSnapshot build() {
    return new TaskMetricsSnapshot(
        task,
        status,
        0,
        0,
        0,
        0,
        0,
        LatencyHistogram.EMPTY,
        0,
        0,
        stateBytes,
        0,
        false,
        Long.MIN_VALUE,
        0,
        TaskMetricsSnapshot.Reconfiguration.NONE,
        StatePlaneStats.NONE,
        List.of(),
        busyNanos,
        busyFraction,
        recordsPerSecond,
        buckets);
  }
}
