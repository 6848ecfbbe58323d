package io.koala.job;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.List;
import java.util.Objects;

/**
 * Metrics of one task at one instant: the task's own, and those of each operator of its chain.
 *
 * @param status where the task is in its life: {@code CREATED} (deployed, not started), {@code
 *     RUNNING}, {@code FINISHING} (its input ended: firing its last timers, draining its outputs),
 *     {@code FINISHED} (all its input processed), {@code FAILED}, {@code CANCELLED}, {@value
 *     #RETIRED} (a reconfiguration removed it: it processes nothing and keeps state its owners have
 *     not moved yet) or {@value #RELEASED} (retired, and stopped once nothing referenced its state)
 * @param recordsIn records consumed (read, for a source): those of the head of its chain
 * @param recordsOut records sent to downstream tasks on the chain's main output
 * @param recordsInPerSecond rate over the last full second
 * @param batchLatency per-batch processing time, in nanoseconds
 * @param lagRecords for a source: records available but not yet read
 * @param lagSeconds for a source: age of the oldest available record not yet read
 * @param backpressured whether the task is waiting for credit from downstream
 * @param watermark the task's current watermark ({@link Long#MIN_VALUE} before the first)
 * @param lateRecords records dropped as too late (behind the watermark beyond allowed lateness)
 * @param reconfiguration what reconfigurations cost this task
 * @param statePlane where the task's time went while it waited, and what the state plane cost it
 * @param operators the counts of each operator of the chain, head first (a source included)
 * @param busyNanos the time the task spent processing, cumulative since it started (monotonic):
 *     running record batches, forwarded batches, records held during a reconfiguration once
 *     released, parked records once their state arrived, and timer callbacks. When the task has an
 *     emulated capacity (an experiment's {@code capacity(...)}, which delays batches rather than
 *     burning CPU), a unit of work that ran {@code n} records counts {@code max(its actual
 *     nanoseconds, n × 10⁹ ÷ the capacity in force)}, so that the capacity is what the busy time
 *     shows. The task's true processing rate is {@code recordsIn ÷ busy seconds} (over an interval:
 *     the differences), or {@link #decayedRecordsInPerSecond} ÷ {@link #busyFraction}
 * @param busyFraction the share of each second the task was busy, exponentially decayed with
 *     half-life {@code koala.metrics.load-half-life} (may slightly exceed 1 with an emulated
 *     capacity)
 * @param decayedRecordsInPerSecond records consumed per second, decayed like {@code busyFraction}
 * @param bucketLoads for a task with keyed input, the load of each bucket it owns ({@link
 *     BucketLoads#NONE} otherwise)
 */
public record TaskMetricsSnapshot(
    TaskId task,
    String status,
    long recordsIn,
    long recordsOut,
    double recordsInPerSecond,
    double recordsOutPerSecond,
    long batches,
    LatencyHistogram batchLatency,
    long lagRecords,
    double lagSeconds,
    long stateBytes,
    long stateEntries,
    boolean backpressured,
    long watermark,
    long lateRecords,
    Reconfiguration reconfiguration,
    StatePlaneStats statePlane,
    List<OperatorCounts> operators,
    long busyNanos,
    double busyFraction,
    double decayedRecordsInPerSecond,
    BucketLoads bucketLoads) {

  public TaskMetricsSnapshot {
    java.util.Objects.requireNonNull(batchLatency, "batchLatency");
    java.util.Objects.requireNonNull(bucketLoads, "bucketLoads");
    operators = List.copyOf(operators);
  }

  /**
   * The status of a retired task that held state until its owners had drained it all, and then
   * stopped; its snapshot is the last it gave.
   */
  public static final String RELEASED = "RELEASED";

  /**
   * The status of a task a reconfiguration removed that still keeps state its owners have not moved
   * yet: it processes no record, and stops ({@link #RELEASED}) once nothing references its state.
   */
  public static final String RETIRED = "RETIRED";

  /** Whether the task belongs to its operator's current tasks (not {@link #RETIRED} or after). */
  public boolean current() {
    return !RETIRED.equals(status) && !RELEASED.equals(status);
  }

  /** This snapshot with status {@link #RETIRED}. */
  public TaskMetricsSnapshot retired() {
    return new TaskMetricsSnapshot(
        task,
        RETIRED,
        recordsIn,
        recordsOut,
        recordsInPerSecond,
        recordsOutPerSecond,
        batches,
        batchLatency,
        lagRecords,
        lagSeconds,
        stateBytes,
        stateEntries,
        backpressured,
        watermark,
        lateRecords,
        reconfiguration,
        statePlane,
        operators,
        busyNanos,
        busyFraction,
        decayedRecordsInPerSecond,
        bucketLoads);
  }

  /** This snapshot with status {@link #RELEASED}: no rates, no buckets. */
  public TaskMetricsSnapshot released() {
    return new TaskMetricsSnapshot(
        task,
        RELEASED,
        recordsIn,
        recordsOut,
        0,
        0,
        batches,
        batchLatency,
        lagRecords,
        lagSeconds,
        0,
        0,
        false,
        watermark,
        lateRecords,
        reconfiguration,
        statePlane,
        operators.stream().map(OperatorCounts::stopped).toList(),
        busyNanos,
        0,
        0,
        BucketLoads.NONE);
  }

  /**
   * The counts of one operator of a task's chain, chained or at its head.
   *
   * @param recordsIn records the operator was given (read, for a source)
   * @param recordsOut records it emitted on its main output (side outputs not included)
   * @param recordsInPerSecond rate over the last full second
   * @param lateRecords records it dropped as too late
   * @param recordsSkipped records it could not process, skipped by the job's {@link
   *     io.koala.function.RecordErrorPolicy} (a source: those it could not read, or that failed
   *     after it in its task; the last operator of a chain: those that failed in a downstream
   *     operator's key selector as it emitted them)
   */
  public record OperatorCounts(
      OperatorId operator,
      long recordsIn,
      long recordsOut,
      double recordsInPerSecond,
      long lateRecords,
      long recordsSkipped) {
    public OperatorCounts {
      Objects.requireNonNull(operator, "operator");
    }

    /** These counts with no rate, as a task that stopped has none. */
    OperatorCounts stopped() {
      return new OperatorCounts(operator, recordsIn, recordsOut, 0, lateRecords, recordsSkipped);
    }
  }

  /**
   * What reconfigurations cost this task so far.
   *
   * @param fetchRequests fetch requests sent (per batch, as many to a holder as its replies need to
   *     carry the keys whole, up to 16)
   * @param keysFetched keys whose state was installed from another task on first access (or, with
   *     stop-and-restart, pushed with a hand-over)
   * @param stateBytesFetched bytes of state installed from other tasks
   * @param recordsForwarded records of handed-over buckets sent on to their new owner
   * @param recordsHeld records held until a peer marker
   * @param bucketsHandedOver buckets given up
   * @param bucketsTakenOver buckets gained
   * @param parkedRecords records waiting for their key's state now
   * @param waitingBytes what the records the task keeps waiting now (parked, and held for a peer
   *     marker) count for against its budget, {@code koala.channel.max-waiting-bytes}
   * @param lookupTableBytes bytes of the key lookup table in memory: membership filters, and the
   *     keys known to be local in moved buckets (the exact entries are in the store)
   * @param keysDrained keys installed from retiring holders by a forced full transfer
   * @param piggybackedKeys of those, the keys that came with a fetch's reply
   */
  public record Reconfiguration(
      long fetchRequests,
      long keysFetched,
      long stateBytesFetched,
      long recordsForwarded,
      long recordsHeld,
      long bucketsHandedOver,
      long bucketsTakenOver,
      long parkedRecords,
      long waitingBytes,
      long lookupTableBytes,
      long keysDrained,
      long piggybackedKeys) {
    /** Nothing reconfigured. */
    public static final Reconfiguration NONE =
        new Reconfiguration(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }
}
