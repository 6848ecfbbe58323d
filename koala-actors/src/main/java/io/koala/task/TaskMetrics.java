package io.koala.task;

import io.koala.plan.TaskId;
import io.koala.protocol.StatePlaneStats;
import io.koala.protocol.StatePlaneStats.Stall;
import io.koala.protocol.TaskMetricsSnapshot;
import java.util.Map;
import java.util.TreeMap;
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
  long holdNanos;
  long releasesSent;
  long releaseMessagesSent;
  long releasesApplied;
  long releaseApplyNanos;
  final Histogram batchLatency = new Histogram(TaskMetricsSnapshot.MAX_NANOS, 2);
  private final long[] stallNanos = new long[Stall.values().length];
  private final Map<Integer, Histogram> fetchRoundTrips = new TreeMap<>(); // by holder
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
    batchLatency.recordValue(clamp(nanos));
  }

  /** Timer callbacks count as a batch for latency, not as input records. */
  void timers(long nanos, int fired) {
    batchLatency.recordValue(clamp(nanos));
  }

  /** The task's loop was stalled for {@code reason} during {@code nanos}. */
  void stalled(Stall reason, long nanos) {
    stallNanos[reason.ordinal()] += Math.max(nanos, 0);
  }

  /** A fetch to {@code holder} was answered {@code nanos} after it was sent. */
  void fetchRoundTrip(int holder, long nanos) {
    fetchRoundTrips
        .computeIfAbsent(holder, h -> new Histogram(TaskMetricsSnapshot.MAX_NANOS, 2))
        .recordValue(clamp(nanos));
  }

  private static long clamp(long nanos) {
    return Math.min(Math.max(nanos, 0), TaskMetricsSnapshot.MAX_NANOS);
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
            piggybackedKeys),
        statePlane());
  }

  private StatePlaneStats statePlane() {
    Map<Integer, byte[]> roundTrips = new TreeMap<>();
    fetchRoundTrips.forEach((holder, h) -> roundTrips.put(holder, TaskMetricsSnapshot.encode(h)));
    return new StatePlaneStats(
        stallNanos,
        holdNanos,
        roundTrips,
        releasesSent,
        releaseMessagesSent,
        releasesApplied,
        releaseApplyNanos);
  }
}
