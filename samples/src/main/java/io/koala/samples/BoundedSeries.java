package io.koala.samples;

import io.koala.state.Codec;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The last {@code capacity} values of a key, oldest first, with their running median, mean and
 * maximum, and a padding array that brings the encoded state to a chosen size: the per-key state of
 * the real-world-like queries (Taxi trip times, Borg requests, Azure CPU readings), whose size the
 * experiments control. Immutable; {@link #plus} copies at most {@code capacity} values.
 *
 * <p>Encoded by {@link #codec(int, int)} in exactly {@code stateBytes} bytes: the number of values
 * (4 bytes), {@code capacity} value slots (8 bytes each, unused ones zero), then the padding, so
 * the bytes of any set of keys are known in advance.
 *
 * <pre>{@code
 * Codec<BoundedSeries> codec = BoundedSeries.codec(150, 2048);
 * BoundedSeries s = BoundedSeries.empty(150, 2048).plus(600).plus(900);
 * s.median(); // 750.0
 * }</pre>
 */
public final class BoundedSeries {
  private final double[] values;
  private final int capacity;
  private final byte[] padding;

  private BoundedSeries(double[] values, int capacity, byte[] padding) {
    this.values = values;
    this.capacity = capacity;
    this.padding = padding;
  }

  /** The smallest encoded size of a series of {@code capacity} values: count and slots. */
  public static int minBytes(int capacity) {
    if (capacity < 1 || capacity > (Integer.MAX_VALUE - 4) / 8) {
      throw new IllegalArgumentException("capacity must be positive, got " + capacity);
    }
    return 4 + 8 * capacity;
  }

  /** No values yet, padded so that the encoded state has {@code stateBytes} bytes. */
  public static BoundedSeries empty(int capacity, int stateBytes) {
    return new BoundedSeries(new double[0], capacity, new byte[paddingOf(capacity, stateBytes)]);
  }

  /** These values and {@code value}, keeping only the last {@link #capacity()}. */
  public BoundedSeries plus(double value) {
    int keep = Math.min(values.length, capacity - 1);
    double[] next = Arrays.copyOfRange(values, values.length - keep, values.length + 1);
    next[keep] = value;
    return new BoundedSeries(next, capacity, padding);
  }

  /** How many values are kept at most. */
  public int capacity() {
    return capacity;
  }

  /** How many values there are, at most {@link #capacity()}. */
  public int size() {
    return values.length;
  }

  /** A copy of the values, oldest first. */
  public double[] values() {
    return values.clone();
  }

  /** The median: the middle value, or the mean of the two middle ones; NaN when empty. */
  public double median() {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  /** The mean, summing oldest first; NaN when empty. */
  public double mean() {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  /** The largest value; NaN when empty. */
  public double max() {
    double max = Double.NaN;
    for (double v : values) {
      max = Double.isNaN(max) ? v : Math.max(max, v);
    }
    return max;
  }

  /**
   * A codec writing exactly {@code stateBytes} bytes per series of {@code capacity} values.
   *
   * @throws IllegalArgumentException if {@code stateBytes} is below {@link #minBytes(int)}
   */
  public static Codec<BoundedSeries> codec(int capacity, int stateBytes) {
    int paddingBytes = paddingOf(capacity, stateBytes);
    return new Codec<>() {
      @Override
      public byte[] encode(BoundedSeries value) {
        if (value.capacity != capacity || value.padding.length != paddingBytes) {
          throw new IllegalArgumentException(
              "series of "
                  + value.capacity
                  + " values padded for "
                  + (minBytes(value.capacity) + value.padding.length)
                  + " bytes, codec for "
                  + capacity
                  + " values in "
                  + stateBytes);
        }
        ByteBuffer buf = ByteBuffer.allocate(stateBytes);
        buf.putInt(value.values.length);
        for (int i = 0; i < capacity; i++) {
          buf.putDouble(i < value.values.length ? value.values[i] : 0);
        }
        buf.put(value.padding);
        return buf.array();
      }

      @Override
      public BoundedSeries decode(byte[] bytes) {
        if (bytes.length != stateBytes) {
          throw new IllegalArgumentException(
              "expected " + stateBytes + " bytes of state, got " + bytes.length);
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        int n = buf.getInt();
        if (n < 0 || n > capacity) {
          throw new IllegalArgumentException(
              "a series of at most " + capacity + " values, got a count of " + n);
        }
        double[] values = new double[n];
        for (int i = 0; i < capacity; i++) {
          double v = buf.getDouble();
          if (i < n) {
            values[i] = v;
          }
        }
        byte[] padding = new byte[paddingBytes];
        buf.get(padding);
        return new BoundedSeries(values, capacity, padding);
      }
    };
  }

  private static int paddingOf(int capacity, int stateBytes) {
    return PaddedState.paddingBytes(
        stateBytes, minBytes(capacity), "the count and " + capacity + " values");
  }

  @Override
  public String toString() {
    return "BoundedSeries"
        + Arrays.toString(values)
        + " of at most "
        + capacity
        + " + "
        + padding.length
        + " bytes of padding";
  }
}
