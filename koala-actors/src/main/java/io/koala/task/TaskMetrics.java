package io.koala.task;

import io.koala.plan.TaskId;
import io.koala.protocol.TaskMetricsSnapshot;
import org.HdrHistogram.Histogram;

/** Counters and the batch latency histogram of one task; rates are taken once per second. */
final class TaskMetrics {
  long recordsIn;
  long recordsOut;
  long batches;
  long lateRecords;
  long fetchRequests;
  long recordsForwarded;
  long recordsHeld;
  long bucketsHandedOver;
  long bucketsTakenOver;
  long keysFetched;
  long stateBytesFetched;
  long keysDrained;
  long piggybackedKeys;
  long recordsParked;
  final Histogram batchLatency = new Histogram(60_000_000_000L, 2);
  private long lastTickMillis = -1;
  private long lastIn;
  private long lastOut;
  private double inRate;
  private double outRate;

  /** A batch of work ended; the records it ran were counted in {@link #recordsIn} as they ran. */
  void batch(long nanos) {
    batches++;
    latency(nanos);
  }

  /**
   * The latency of a batch counted earlier: from the start of its processing until its last record
   * ran (after the state it waited for arrived).
   */
  void latency(long nanos) {
    batchLatency.recordValue(Math.min(Math.max(nanos, 0), 60_000_000_000L));
  }

  /** Timer callbacks count as a batch for latency, not as input records. */
  void timers(long nanos, int fired) {
    batchLatency.recordValue(Math.min(Math.max(nanos, 0), 60_000_000_000L));
  }

  /** Updates the per-second rates; called about once per second. */
  void tick(long nowMillis) {
    if (lastTickMillis >= 0 && nowMillis > lastTickMillis) {
      double seconds = (nowMillis - lastTickMillis) / 1000.0;
      inRate = (recordsIn - lastIn) / seconds;
      outRate = (recordsOut - lastOut) / seconds;
    }
    lastTickMillis = nowMillis;
    lastIn = recordsIn;
    lastOut = recordsOut;
  }

  double inRate() {
    return inRate;
  }

  double outRate() {
    return outRate;
  }

  /** The task's metrics now, with what the task knows besides its counters. */
  TaskMetricsSnapshot snapshot(
      TaskId task,
      String status,
      SourceDriver.Lag lag,
      long stateBytes,
      long stateEntries,
      boolean backpressured,
      long watermark,
      long recordsParkedNow,
      long lookupMemoryBytes) {
    return new TaskMetricsSnapshot(
        task,
        status,
        recordsIn,
        recordsOut,
        inRate,
        outRate,
        batches,
        TaskMetricsSnapshot.encode(batchLatency),
        lag.records(),
        lag.seconds(),
        stateBytes,
        stateEntries,
        backpressured,
        watermark,
        lateRecords,
        new TaskMetricsSnapshot.Reconfiguration(
            fetchRequests,
            keysFetched,
            stateBytesFetched,
            recordsForwarded,
            recordsHeld,
            bucketsHandedOver,
            bucketsTakenOver,
            recordsParkedNow,
            lookupMemoryBytes,
            keysDrained,
            piggybackedKeys));
  }
}
