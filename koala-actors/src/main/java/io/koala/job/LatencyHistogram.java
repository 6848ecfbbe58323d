package io.koala.job;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * An immutable histogram of durations in nanoseconds, as a task measured them (the time it took to
 * process a batch, a fetch's round trip): a count per value range, with two significant decimal
 * digits of precision, up to {@link #MAX_NANOS} (longer durations count as that).
 *
 * <p>Cumulative, like the counts of a {@link JobMetrics} snapshot: the durations of an interval are
 * {@code later.minus(earlier)} of two snapshots of the same task or operator. Thread-safe.
 *
 * <pre>{@code
 * LatencyHistogram window = after.batchLatency("count").minus(before.batchLatency("count"));
 * long p99Nanos = window.percentile(99);
 * }</pre>
 *
 * <p>Its serialized form, {@link #toCompressed()}, is HdrHistogram's compressed encoding (the
 * library Koala measures with), for tools that read it; {@link #fromCompressed} reads one back.
 */
public final class LatencyHistogram {
  /** The longest duration told apart, in nanoseconds (one minute); longer ones count as it. */
  public static final long MAX_NANOS = 60_000_000_000L;

  /** The significant decimal digits of each recorded value. */
  public static final int SIGNIFICANT_DIGITS = 2;

  /** No duration measured. */
  public static final LatencyHistogram EMPTY = of();

  private final byte[] compressed;
  private volatile Histogram decoded; // lazily, never modified once set

  private LatencyHistogram(byte[] compressed, Histogram decoded) {
    this.compressed = compressed;
    this.decoded = decoded;
  }

  /** A histogram of {@code nanos}; a negative value counts as 0, one above the maximum as it. */
  public static LatencyHistogram of(long... nanos) {
    Histogram h = newHistogram();
    for (long v : nanos) {
      h.recordValue(Math.min(Math.max(v, 0), MAX_NANOS));
    }
    return owning(h);
  }

  /**
   * The histogram encoded in {@code compressed}: HdrHistogram's compressed encoding, as {@link
   * #toCompressed()} gives it.
   *
   * @throws IllegalArgumentException if the bytes are no such encoding
   */
  public static LatencyHistogram fromCompressed(byte[] compressed) {
    byte[] copy = compressed.clone();
    decode(copy); // fails here, not at the first question
    return new LatencyHistogram(copy, null);
  }

  /** This histogram in HdrHistogram's compressed encoding (a copy). */
  public byte[] toCompressed() {
    return compressed.clone();
  }

  /** How many durations were measured. */
  public long count() {
    return histogram().getTotalCount();
  }

  /** The longest duration measured (within the precision), or 0 when none was. */
  public long max() {
    return histogram().getMaxValue();
  }

  /** The shortest duration measured (within the precision), or 0 when none was. */
  public long min() {
    return count() == 0 ? 0 : histogram().getMinValue();
  }

  /** The mean of the durations measured, or 0 when none was. */
  public double mean() {
    return count() == 0 ? 0 : histogram().getMean();
  }

  /**
   * The duration at or below which {@code percentile} percent of the durations fall, or 0 when none
   * was measured.
   *
   * @param percentile in [0, 100]
   */
  public long percentile(double percentile) {
    if (!(percentile >= 0 && percentile <= 100)) {
      throw new IllegalArgumentException("percentile must be in [0, 100]: " + percentile);
    }
    return count() == 0 ? 0 : histogram().getValueAtPercentile(percentile);
  }

  /**
   * How many durations were at most {@code nanos} (within the precision): the cumulative count of a
   * histogram bucket whose upper bound is {@code nanos}.
   */
  public long countAtOrBelow(long nanos) {
    if (nanos < 0) {
      return 0;
    }
    Histogram h = histogram();
    return h.getCountBetweenValues(0, Math.min(nanos, h.getHighestTrackableValue()));
  }

  /** The durations of both histograms together. */
  public LatencyHistogram plus(LatencyHistogram other) {
    return sum(List.of(this, other));
  }

  /** The durations of all {@code histograms} together; {@link #EMPTY} for none. */
  public static LatencyHistogram sum(Collection<LatencyHistogram> histograms) {
    Histogram h = newHistogram();
    for (LatencyHistogram each : histograms) {
      h.add(each.histogram());
    }
    return owning(h);
  }

  /**
   * The durations of this histogram that {@code earlier}, a previous snapshot of the same
   * cumulative histogram, does not have: those measured in between.
   *
   * @throws IllegalArgumentException if {@code earlier} has a count this one does not
   */
  public LatencyHistogram minus(LatencyHistogram earlier) {
    Histogram h = histogram().copy();
    try {
      h.subtract(earlier.histogram());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the earlier histogram is not a previous snapshot of this one: " + e.getMessage(), e);
    }
    return owning(h);
  }

  private static Histogram newHistogram() {
    return new Histogram(MAX_NANOS, SIGNIFICANT_DIGITS);
  }

  /** A histogram of {@code h}'s counts, which keeps {@code h}: nothing may change it any more. */
  private static LatencyHistogram owning(Histogram h) {
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf);
    return new LatencyHistogram(Arrays.copyOf(buf.array(), n), h);
  }

  private static Histogram decode(byte[] compressed) {
    try {
      return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(compressed), 0);
    } catch (DataFormatException | RuntimeException e) {
      throw new IllegalArgumentException("not a compressed HdrHistogram: " + e.getMessage(), e);
    }
  }

  private Histogram histogram() {
    Histogram h = decoded;
    if (h == null) {
      h = decode(compressed);
      decoded = h;
    }
    return h;
  }

  /** Equal when they hold the same counts. */
  @Override
  public boolean equals(Object o) {
    return o instanceof LatencyHistogram other && histogram().equals(other.histogram());
  }

  @Override
  public int hashCode() {
    return histogram().hashCode();
  }

  @Override
  public String toString() {
    return count() == 0
        ? "LatencyHistogram(empty)"
        : "LatencyHistogram(count="
            + count()
            + ", p50="
            + percentile(50)
            + " ns, p99="
            + percentile(99)
            + " ns, max="
            + max()
            + " ns)";
  }
}
