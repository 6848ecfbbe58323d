package io.koala.samples;

import java.util.function.IntToDoubleFunction;

/**
 * Draws keys {@code 0 .. size-1} with fixed relative weights, by inverting a table of cumulative
 * probabilities ({@code 8 × size} bytes, built once): the skew of the samples' generators.
 * Immutable and thread-safe.
 *
 * <pre>{@code
 * WeightedKeys hot = WeightedKeys.zipf(1_000, 1.1); // key r is the (r+1)-th most frequent
 * int key = hot.sample(RecordRandom.of(index, seed).nextDouble());
 * }</pre>
 */
public final class WeightedKeys {
  private final double[] cumulative; // cumulative[k]: P(key ≤ k)

  /**
   * @param size how many keys, in {@code [1, Integer.MAX_VALUE - 8]}
   * @param weight the relative weight of each key: finite, non-negative, not all zero
   */
  public WeightedKeys(int size, IntToDoubleFunction weight) {
    if (size < 1 || size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("size must be in [1, 2^31 - 9], got " + size);
    }
    cumulative = new double[size];
    double sum = 0;
    for (int k = 0; k < size; k++) {
      double w = weight.applyAsDouble(k);
      if (!(w >= 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException("weight of key " + k + " is " + w);
      }
      sum += w;
      cumulative[k] = sum;
    }
    if (!(sum > 0)) {
      throw new IllegalArgumentException("all " + size + " weights are zero");
    }
    for (int k = 0; k < size; k++) {
      cumulative[k] /= sum;
    }
  }

  /** Zipf over {@code size} keys: key {@code r} has weight {@code (r+1)^-exponent}. */
  public static WeightedKeys zipf(int size, double exponent) {
    if (!(exponent >= 0) || Double.isInfinite(exponent)) {
      throw new IllegalArgumentException(
          "Zipf exponent must be non-negative and finite, got " + exponent);
    }
    return new WeightedKeys(size, r -> Math.pow(r + 1, -exponent));
  }

  /** How many keys. */
  public int size() {
    return cumulative.length;
  }

  /** The key of a uniform draw {@code u} in {@code [0, 1)}: the first whose cumulative is above. */
  public int sample(double u) {
    int lo = 0;
    int hi = cumulative.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] <= u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The probability of key {@code k}. */
  public double probability(int k) {
    return k == 0 ? cumulative[0] : cumulative[k] - cumulative[k - 1];
  }
}
