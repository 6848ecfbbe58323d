package io.koala.samples.nexmark;

import io.koala.samples.PaddedState;
import io.koala.state.Codec;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The Q6* state of one seller: the prices of its last {@value Q6Star#LAST_AUCTIONS} closed
 * auctions, oldest first, and a padding array that brings the encoded state to a chosen size (the
 * paper's "stateful mapper" with {@code stateBytes} per key). Immutable.
 *
 * <p>Encoded by {@link #codec(int)} in exactly {@code stateBytes} bytes: the number of prices (4
 * bytes), {@value Q6Star#LAST_AUCTIONS} price slots (8 bytes each), then the padding. A fixed size
 * makes the bytes of any set of keys known in advance, which the rescale experiment uses to say how
 * much state a protocol had to move.
 */
public final class RecentPrices {
  /** The smallest encoded size: the count and the price slots, no padding. */
  public static final int MIN_BYTES = 4 + 8 * Q6Star.LAST_AUCTIONS;

  private static final String FIELDS = "the count and " + Q6Star.LAST_AUCTIONS + " prices";

  private final long[] prices;
  private final byte[] padding;

  private RecentPrices(long[] prices, byte[] padding) {
    this.prices = prices;
    this.padding = padding;
  }

  /** No prices yet, padded so that the encoded state has {@code stateBytes} bytes. */
  public static RecentPrices empty(int stateBytes) {
    return new RecentPrices(
        new long[0], new byte[PaddedState.paddingBytes(stateBytes, MIN_BYTES, FIELDS)]);
  }

  /** These prices and {@code price}, keeping only the last {@value Q6Star#LAST_AUCTIONS}. */
  public RecentPrices plus(long price) {
    int keep = Math.min(prices.length, Q6Star.LAST_AUCTIONS - 1);
    long[] next = Arrays.copyOfRange(prices, prices.length - keep, prices.length + 1);
    next[keep] = price;
    return new RecentPrices(next, padding);
  }

  /** How many prices there are, at most {@value Q6Star#LAST_AUCTIONS}. */
  public int size() {
    return prices.length;
  }

  /** The average of the prices; NaN when there are none. */
  public double average() {
    long sum = 0;
    for (long p : prices) {
      sum += p;
    }
    return (double) sum / prices.length;
  }

  /**
   * A codec writing exactly {@code stateBytes} bytes per state.
   *
   * @throws IllegalArgumentException if {@code stateBytes} is below {@link #MIN_BYTES}
   */
  public static Codec<RecentPrices> codec(int stateBytes) {
    return PaddedState.codec(
        stateBytes, MIN_BYTES, FIELDS, r -> r.padding, RecentPrices::write, RecentPrices::read);
  }

  private void write(ByteBuffer buf) {
    buf.putInt(prices.length);
    for (int i = 0; i < Q6Star.LAST_AUCTIONS; i++) {
      buf.putLong(i < prices.length ? prices[i] : 0);
    }
  }

  private static RecentPrices read(ByteBuffer buf, byte[] padding) {
    long[] prices = new long[buf.getInt()];
    for (int i = 0; i < Q6Star.LAST_AUCTIONS; i++) {
      long p = buf.getLong();
      if (i < prices.length) {
        prices[i] = p;
      }
    }
    return new RecentPrices(prices, padding);
  }

  @Override
  public String toString() {
    return "RecentPrices" + Arrays.toString(prices) + " + " + padding.length + " bytes of padding";
  }
}
