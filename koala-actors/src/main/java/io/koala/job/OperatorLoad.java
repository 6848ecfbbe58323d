package io.koala.job;

import io.koala.plan.TaskId;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The load of one operator's live tasks ({@link JobMetrics#load}), from the decayed rates each task
 * keeps (half-life {@code koala.metrics.load-half-life}): in total, per task and, for a keyed
 * operator, per bucket.
 *
 * <p>A task's true processing rate, what it can process per second of busy time, is its records per
 * second ÷ its busy fraction ({@link TaskLoad#processingRate}); with an emulated capacity the busy
 * time is at least what the records cost at the capacity, so the rate shows the capacity ({@link
 * TaskMetricsSnapshot#busyNanos}).
 *
 * @param operator the operator, the first of its tasks' chain
 * @param recordsPerSecond records the live tasks consumed per second, summed
 * @param busyFraction the live tasks' busy fractions, summed: how many tasks' worth of time they
 *     spent processing, per second
 * @param tasks each live task's load, in the order of their index
 * @param bucketRecordsPerSecond indexed by bucket: records of the bucket processed per second (an
 *     empty array for an operator without keyed input)
 * @param bucketBusyFraction indexed by bucket: the share of a second spent processing its records
 * @param bucketOwners indexed by bucket: the index of the task that reported it, -1 when none did
 *     (a snapshot taken while a bucket moves may have it at both tasks: their rates are summed, and
 *     the owner is the one with the higher rate)
 */
public record OperatorLoad(
    String operator,
    double recordsPerSecond,
    double busyFraction,
    List<TaskLoad> tasks,
    double[] bucketRecordsPerSecond,
    double[] bucketBusyFraction,
    int[] bucketOwners) {

  public OperatorLoad {
    Objects.requireNonNull(operator, "operator");
    tasks = List.copyOf(tasks);
    if (bucketBusyFraction.length != bucketRecordsPerSecond.length
        || bucketOwners.length != bucketRecordsPerSecond.length) {
      throw new IllegalArgumentException(
          "one entry per bucket expected: "
              + bucketRecordsPerSecond.length
              + " record rates, "
              + bucketBusyFraction.length
              + " busy fractions, "
              + bucketOwners.length
              + " owners");
    }
    bucketRecordsPerSecond = bucketRecordsPerSecond.clone();
    bucketBusyFraction = bucketBusyFraction.clone();
    bucketOwners = bucketOwners.clone();
  }

  /**
   * The load of one live task.
   *
   * @param task the task
   * @param recordsPerSecond records it consumed per second (decayed)
   * @param busyFraction the share of a second it spent processing (decayed)
   * @param busyNanos its busy time since it started, in nanoseconds
   */
  public record TaskLoad(
      TaskId task, double recordsPerSecond, double busyFraction, long busyNanos) {
    public TaskLoad {
      Objects.requireNonNull(task, "task");
    }

    /** Records per second of busy time: {@code recordsPerSecond ÷ busyFraction}; NaN when idle. */
    public double processingRate() {
      return busyFraction > 0 ? recordsPerSecond / busyFraction : Double.NaN;
    }
  }

  @Override
  public double[] bucketRecordsPerSecond() {
    return bucketRecordsPerSecond.clone();
  }

  @Override
  public double[] bucketBusyFraction() {
    return bucketBusyFraction.clone();
  }

  @Override
  public int[] bucketOwners() {
    return bucketOwners.clone();
  }

  /** The number of buckets: 0 for an operator without keyed input. */
  public int bucketCount() {
    return bucketOwners.length;
  }

  /**
   * Records per second of busy time over the live tasks, {@code recordsPerSecond ÷ busyFraction}:
   * what one task processes per second when busy all the time; NaN while none was busy.
   */
  public double processingRate() {
    return busyFraction > 0 ? recordsPerSecond / busyFraction : Double.NaN;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OperatorLoad l
        && operator.equals(l.operator)
        && Double.compare(recordsPerSecond, l.recordsPerSecond) == 0
        && Double.compare(busyFraction, l.busyFraction) == 0
        && tasks.equals(l.tasks)
        && Arrays.equals(bucketRecordsPerSecond, l.bucketRecordsPerSecond)
        && Arrays.equals(bucketBusyFraction, l.bucketBusyFraction)
        && Arrays.equals(bucketOwners, l.bucketOwners);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        operator,
        recordsPerSecond,
        busyFraction,
        tasks,
        Arrays.hashCode(bucketRecordsPerSecond),
        Arrays.hashCode(bucketBusyFraction),
        Arrays.hashCode(bucketOwners));
  }

  @Override
  public String toString() {
    return "OperatorLoad[operator="
        + operator
        + ", recordsPerSecond="
        + recordsPerSecond
        + ", busyFraction="
        + busyFraction
        + ", tasks="
        + tasks
        + ", bucketRecordsPerSecond="
        + Arrays.toString(bucketRecordsPerSecond)
        + ", bucketBusyFraction="
        + Arrays.toString(bucketBusyFraction)
        + ", bucketOwners="
        + Arrays.toString(bucketOwners)
        + "]";
  }
}
