package io.koala.task;

import io.koala.job.LatencyHistogram;
import io.koala.job.StatePlaneStats;
import io.koala.job.StatePlaneStats.Stall;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskMetricsSnapshot.OperatorCounts;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Counters and the batch latency histogram of one task, and the counts of each operator of its
 * chain; rates are taken once per second.
 *
 * <p>Operators are counted by position in the chain (a source first, when the task is one), in
 * plain arrays the chain bumps per record. What an operator emits on its main output is what the
 * next one is given, so only the last one's output is counted apart ({@link #recordsOut}); and the
 * task consumes what its head is given ({@link #recordsIn()}).
 *
 * <p>Busy time and load, in total and per bucket of a keyed task, are kept by {@link #loads}: the
 * parts that run work report each unit of it ({@link #busy}, {@link #timers}) and the chain each
 * record ({@link BucketLoadCounter#record}).
 */
final class TaskMetrics {
  /** Records each operator of the chain was given, by position; a source's are those it read. */
  final long[] operatorIn;

  /** Records each operator of the chain dropped as too late, by position. */
  final long[] operatorLate;

  /** Records the chain's last operator emitted on its main output, to downstream tasks. */
  long recordsOut;

  /** Busy time, and the decayed load of the task and of each bucket it owns. */
  final BucketLoadCounter loads;

  long batches;
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
  final Histogram batchLatency = newHistogram();
  private final long[] stallNanos = new long[Stall.values().length];
  private final Map<Integer, Histogram> fetchRoundTrips = new TreeMap<>(); // by holder
  private final List<OperatorId> operators;
  private final RecordErrors errors; // counts the records each operator skipped
  private final long[] lastOperatorIn;
  private final double[] operatorInRate;
  private long lastTickMillis = -1;
  private long lastOut;
  private double outRate;

  /**
   * The metrics of a task that runs {@code vertex}'s chain, with keyed input of {@code buckets}
   * buckets (0: none); its load decays with the half-life of {@code settings}.
   */
  TaskMetrics(Vertex vertex, int buckets, ChannelSettings settings, RecordErrors errors) {
    this(vertex.chain().stream().map(OperatorNode::id).toList(), buckets, settings, errors);
  }

  private TaskMetrics(
      List<OperatorId> operators, int buckets, ChannelSettings settings, RecordErrors errors) {
    this.operators = List.copyOf(operators);
    this.errors = errors;
    loads = new BucketLoadCounter(buckets, settings.loadHalfLifeMillis());
    operatorIn = new long[operators.size()];
    operatorLate = new long[operators.size()];
    lastOperatorIn = new long[operators.size()];
    operatorInRate = new double[operators.size()];
  }

  /** Records the task consumed: those the head of its chain was given (read, for a source). */
  long recordsIn() {
    return operatorIn[0];
  }

  /** A batch of work ended; the records it ran were counted in {@link #operatorIn} as they ran. */
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

  /**
   * Timer callbacks count as a batch for latency, not as input records; the time they took is busy
   * time (an emulated capacity charges records only).
   */
  void timers(long nanos, int fired) {
    batchLatency.recordValue(clamp(nanos));
    loads.workDone(Math.max(nanos, 0));
  }

  /**
   * A unit of work that ran {@code records} records ended after {@code actualNanos}; {@code
   * capacity}: the task's emulated capacity in force, records per second (0: none). See {@link
   * BucketLoadCounter#busyNanos}.
   */
  void busy(long actualNanos, long records, double capacity) {
    loads.workDone(BucketLoadCounter.busyNanos(actualNanos, records, capacity));
  }

  /** The task's loop was stalled for {@code reason} during {@code nanos}. */
  void stalled(Stall reason, long nanos) {
    stallNanos[reason.ordinal()] += Math.max(nanos, 0);
  }

  /** A fetch to {@code holder} was answered {@code nanos} after it was sent. */
  void fetchRoundTrip(int holder, long nanos) {
    fetchRoundTrips.computeIfAbsent(holder, h -> newHistogram()).recordValue(clamp(nanos));
  }

  private static long clamp(long nanos) {
    return Math.min(Math.max(nanos, 0), LatencyHistogram.MAX_NANOS);
  }

  private static Histogram newHistogram() {
    return new Histogram(LatencyHistogram.MAX_NANOS, LatencyHistogram.SIGNIFICANT_DIGITS);
  }

  /** What {@code h} holds now, as a snapshot carries it. */
  private static LatencyHistogram snapshotOf(Histogram h) {
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf);
    return LatencyHistogram.fromCompressed(Arrays.copyOf(buf.array(), n));
  }

  /** Updates the per-second rates; called about once per second. */
  void tick(long nowMillis) {
    if (lastTickMillis >= 0 && nowMillis > lastTickMillis) {
      double seconds = (nowMillis - lastTickMillis) / 1000.0;
      for (int p = 0; p < operatorIn.length; p++) {
        operatorInRate[p] = (operatorIn[p] - lastOperatorIn[p]) / seconds;
      }
      outRate = (recordsOut - lastOut) / seconds;
    }
    lastTickMillis = nowMillis;
    System.arraycopy(operatorIn, 0, lastOperatorIn, 0, operatorIn.length);
    lastOut = recordsOut;
    loads.tick(nowMillis, recordsIn());
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
      long waitingBytesNow,
      long lookupMemoryBytes) {
    return new TaskMetricsSnapshot(
        task,
        status,
        recordsIn(),
        recordsOut,
        operatorInRate[0],
        outRate,
        batches,
        snapshotOf(batchLatency),
        lag.records(),
        lag.seconds(),
        stateBytes,
        stateEntries,
        backpressured,
        watermark,
        lateRecords(),
        new TaskMetricsSnapshot.Reconfiguration(
            fetchRequests,
            keysFetched,
            stateBytesFetched,
            recordsForwarded,
            recordsHeld,
            bucketsHandedOver,
            bucketsTakenOver,
            recordsParkedNow,
            waitingBytesNow,
            lookupMemoryBytes,
            keysDrained,
            piggybackedKeys),
        statePlane(),
        operatorCounts(),
        loads.busyNanos(),
        loads.busyFraction(),
        loads.recordsPerSecond(),
        loads.loads());
  }

  private long lateRecords() {
    long late = 0;
    for (long l : operatorLate) {
      late += l;
    }
    return late;
  }

  /** Each operator's counts; one emits on its main output what the next is given. */
  private List<OperatorCounts> operatorCounts() {
    List<OperatorCounts> counts = new ArrayList<>(operators.size());
    for (int p = 0; p < operators.size(); p++) {
      long out = p + 1 < operatorIn.length ? operatorIn[p + 1] : recordsOut;
      counts.add(
          new OperatorCounts(
              operators.get(p),
              operatorIn[p],
              out,
              operatorInRate[p],
              operatorLate[p],
              errors.skipped(p)));
    }
    return counts;
  }

  private StatePlaneStats statePlane() {
    Map<Integer, LatencyHistogram> roundTrips = new TreeMap<>();
    fetchRoundTrips.forEach((holder, h) -> roundTrips.put(holder, snapshotOf(h)));
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
