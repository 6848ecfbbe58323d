package io.koala.job;

import java.util.Arrays;

/**
 * The load of each bucket a keyed task owns, as exponentially decayed per-second rates (the
 * half-life is {@code koala.metrics.load-half-life}): the records of the bucket the task processed
 * per second, and the share of a second the task spent processing them ({@code busyFraction}: busy
 * nanoseconds per second ÷ 10⁹; see {@link TaskMetricsSnapshot#busyNanos} for what busy time is). A
 * batch's busy time is split among the buckets of the records it ran in proportion to their record
 * counts (a timer callback counts as one record there, though not among the records).
 *
 * <p>Sparse: entry {@code i} is bucket {@code buckets[i]}, in ascending order. A bucket the task
 * hands over is no longer reported by it; a bucket it takes over starts with no history (its rates
 * read 0 until the task's first full second with it). A task without keyed input has none ({@link
 * #NONE}).
 *
 * @param bucketCount the number of buckets of the operator (0 for a task without keyed input)
 * @param buckets the buckets the task owns, ascending
 * @param recordsPerSecond per owned bucket, records processed per second (decayed)
 * @param busyFraction per owned bucket, the share of a second spent processing its records
 *     (decayed)
 */
public record BucketLoads(
    int bucketCount, int[] buckets, double[] recordsPerSecond, double[] busyFraction) {

  /** No buckets: the loads of a task without keyed input. */
  public static final BucketLoads NONE =
      new BucketLoads(0, new int[0], new double[0], new double[0]);

  public BucketLoads {
    if (recordsPerSecond.length != buckets.length || busyFraction.length != buckets.length) {
      throw new IllegalArgumentException(
          "one rate per bucket expected: "
              + buckets.length
              + " buckets, "
              + recordsPerSecond.length
              + " record rates, "
              + busyFraction.length
              + " busy fractions");
    }
    for (int b : buckets) {
      if (b < 0 || b >= bucketCount) {
        throw new IllegalArgumentException(
            "bucket " + b + " is out of range [0, " + bucketCount + ")");
      }
    }
    buckets = buckets.clone();
    recordsPerSecond = recordsPerSecond.clone();
    busyFraction = busyFraction.clone();
  }

  @Override
  public int[] buckets() {
    return buckets.clone();
  }

  @Override
  public double[] recordsPerSecond() {
    return recordsPerSecond.clone();
  }

  @Override
  public double[] busyFraction() {
    return busyFraction.clone();
  }

  /** The number of buckets reported: those the task owns. */
  public int size() {
    return buckets.length;
  }

  /** The bucket of entry {@code i}. */
  public int bucket(int i) {
    return buckets[i];
  }

  /** The records per second of entry {@code i}. */
  public double recordsPerSecond(int i) {
    return recordsPerSecond[i];
  }

  /** The busy fraction of entry {@code i}. */
  public double busyFraction(int i) {
    return busyFraction[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BucketLoads l
        && bucketCount == l.bucketCount
        && Arrays.equals(buckets, l.buckets)
        && Arrays.equals(recordsPerSecond, l.recordsPerSecond)
        && Arrays.equals(busyFraction, l.busyFraction);
  }

  @Override
  public int hashCode() {
    return 31
            * (31 * (31 * bucketCount + Arrays.hashCode(buckets))
                + Arrays.hashCode(recordsPerSecond))
        + Arrays.hashCode(busyFraction);
  }

  @Override
  public String toString() {
    return "BucketLoads[bucketCount="
        + bucketCount
        + ", buckets="
        + Arrays.toString(buckets)
        + ", recordsPerSecond="
        + Arrays.toString(recordsPerSecond)
        + ", busyFraction="
        + Arrays.toString(busyFraction)
        + "]";
  }
}
