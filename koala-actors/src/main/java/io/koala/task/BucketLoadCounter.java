package io.koala.task;

import io.koala.job.BucketLoads;
import java.util.function.IntPredicate;

/**
 * A task's busy time, and its load in total and per bucket it owns, as exponentially decayed
 * per-second rates. Pure: the caller passes the times.
 *
 * <p>Work runs in units (a record batch, a forwarded batch, the parked records a state reply lets
 * run, the records a peer marker releases, a chunk of timer callbacks): while one runs, each record
 * and timer callback counts for its bucket ({@link #record}, {@link #timer}) in a scratch array;
 * when it ends ({@link #workDone}), its busy time is added to the task's and split among the
 * buckets it touched in proportion to their counts. No clock is read per record.
 *
 * <p>Once a second {@link #tick} turns what was counted since the last tick into rates and decays
 * them: {@code rate ← d·rate + (1−d)·sample} with {@code d = 2^(−Δt / half-life)}, divided on
 * reading by the weight the samples have so far ({@code 1 − d^n}), so that a rate is an average of
 * the seconds seen, the recent ones weighing most, from the first full second on. A bucket the task
 * does not own is not reported and keeps no history: one taken over starts afresh at the tick that
 * first sees it owned (its records until then count toward the task only).
 */
final class BucketLoadCounter {
  private final double halfLifeMillis;
  private final int bucketCount;
  private IntPredicate owns = b -> false;

  // the unit of work running: callbacks per bucket, and the buckets it touched
  private final int[] weight;
  private final int[] touched;
  private int touchedCount;

  // per bucket: counts since the last tick, whether it has history, and its decayed rates
  private final long[] records;
  private final double[] busy;
  private final boolean[] counting;
  private final double[] recordRate;
  private final double[] busyRate;
  private final double[] sampleWeight;

  // the task
  private long busyNanos;
  private long lastBusyNanos;
  private long lastRecords;
  private double taskRecordRate;
  private double taskBusyRate;
  private double taskWeight;
  private long lastTickMillis = -1;

  /**
   * @param bucketCount the operator's buckets; 0 for a task without keyed input
   * @param halfLifeMillis the rates' half-life, positive
   */
  BucketLoadCounter(int bucketCount, long halfLifeMillis) {
    if (halfLifeMillis < 1 || bucketCount < 0) {
      throw new IllegalArgumentException(
          "load half-life must be positive and buckets not negative, got "
              + halfLifeMillis
              + " ms, "
              + bucketCount
              + " buckets");
    }
    this.halfLifeMillis = halfLifeMillis;
    this.bucketCount = bucketCount;
    weight = new int[bucketCount];
    touched = new int[bucketCount];
    records = new long[bucketCount];
    busy = new double[bucketCount];
    counting = new boolean[bucketCount];
    recordRate = new double[bucketCount];
    busyRate = new double[bucketCount];
    sampleWeight = new double[bucketCount];
  }

  /** Which buckets the task owns now (asked at each tick and snapshot). */
  void owners(IntPredicate owns) {
    this.owns = owns;
  }

  /**
   * The busy time of a unit of work that took {@code actualNanos} and ran {@code records} records:
   * with an emulated capacity ({@code capacity} records per second, positive), at least what the
   * records cost at that capacity, since the emulation delays batches instead of burning CPU.
   */
  static long busyNanos(long actualNanos, long records, double capacity) {
    long actual = Math.max(0, actualNanos);
    if (capacity <= 0 || records <= 0) {
      return actual;
    }
    return Math.max(actual, (long) Math.ceil(records * 1e9 / capacity));
  }

  /** A record of {@code bucket} ran in the unit of work running. */
  void record(int bucket) {
    records[bucket]++;
    touch(bucket);
  }

  /** A timer callback of {@code bucket} ran: it shares the unit's busy time, not its records. */
  void timer(int bucket) {
    touch(bucket);
  }

  private void touch(int bucket) {
    if (weight[bucket]++ == 0) {
      touched[touchedCount++] = bucket;
    }
  }

  /** The unit of work running ended, busy for {@code nanos}: splits them among its buckets. */
  void workDone(long nanos) {
    busyNanos += nanos;
    long total = 0;
    for (int i = 0; i < touchedCount; i++) {
      total += weight[touched[i]];
    }
    for (int i = 0; i < touchedCount; i++) {
      int b = touched[i];
      busy[b] += (double) nanos * weight[b] / total;
      weight[b] = 0;
    }
    touchedCount = 0;
  }

  /** The task's busy time so far, in nanoseconds. */
  long busyNanos() {
    return busyNanos;
  }

  /**
   * Turns the counts since the last tick into rates and decays them; {@code recordsIn}: the records
   * the task consumed so far.
   */
  void tick(long nowMillis, long recordsIn) {
    if (lastTickMillis < 0 || nowMillis <= lastTickMillis) {
      if (lastTickMillis < 0) {
        lastTickMillis = nowMillis;
        lastRecords = recordsIn;
        lastBusyNanos = busyNanos;
        for (int b = 0; b < bucketCount; b++) {
          restart(b, owns.test(b));
        }
      }
      return;
    }
    double seconds = (nowMillis - lastTickMillis) / 1000.0;
    double d = Math.pow(0.5, (nowMillis - lastTickMillis) / halfLifeMillis);
    taskRecordRate = d * taskRecordRate + (1 - d) * (recordsIn - lastRecords) / seconds;
    taskBusyRate = d * taskBusyRate + (1 - d) * (busyNanos - lastBusyNanos) / 1e9 / seconds;
    taskWeight = d * taskWeight + (1 - d);
    lastTickMillis = nowMillis;
    lastRecords = recordsIn;
    lastBusyNanos = busyNanos;
    for (int b = 0; b < bucketCount; b++) {
      boolean owned = owns.test(b);
      if (owned && counting[b]) {
        recordRate[b] = d * recordRate[b] + (1 - d) * records[b] / seconds;
        busyRate[b] = d * busyRate[b] + (1 - d) * busy[b] / 1e9 / seconds;
        sampleWeight[b] = d * sampleWeight[b] + (1 - d);
        records[b] = 0;
        busy[b] = 0;
      } else if (owned || counting[b]) {
        restart(b, owned); // taken over (history starts now), or handed over (none kept)
      } else {
        records[b] = 0;
        busy[b] = 0;
      }
    }
  }

  private void restart(int b, boolean owned) {
    counting[b] = owned;
    records[b] = 0;
    busy[b] = 0;
    recordRate[b] = 0;
    busyRate[b] = 0;
    sampleWeight[b] = 0;
  }

  /** Records consumed per second, decayed; 0 before the first full second. */
  double recordsPerSecond() {
    return taskWeight > 0 ? taskRecordRate / taskWeight : 0;
  }

  /** The share of a second the task was busy, decayed; 0 before the first full second. */
  double busyFraction() {
    return taskWeight > 0 ? taskBusyRate / taskWeight : 0;
  }

  /** The load of each bucket the task owns now. */
  BucketLoads loads() {
    if (bucketCount == 0) {
      return BucketLoads.NONE;
    }
    int n = 0;
    for (int b = 0; b < bucketCount; b++) {
      if (owns.test(b)) {
        n++;
      }
    }
    int[] ids = new int[n];
    double[] perSecond = new double[n];
    double[] fraction = new double[n];
    int i = 0;
    for (int b = 0; b < bucketCount && i < n; b++) {
      if (owns.test(b)) {
        ids[i] = b;
        boolean seen = counting[b] && sampleWeight[b] > 0;
        perSecond[i] = seen ? recordRate[b] / sampleWeight[b] : 0;
        fraction[i] = seen ? busyRate[b] / sampleWeight[b] : 0;
        i++;
      }
    }
    return new BucketLoads(bucketCount, ids, perSecond, fraction);
  }
}
