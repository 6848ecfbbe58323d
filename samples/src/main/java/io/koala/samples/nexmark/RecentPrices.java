package io.koala.samples.nexmark;

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

  private final long[] prices;
  private final byte[] padding;

  private RecentPrices(long[] prices, byte[] padding) {
    this.prices = prices;
    this.padding = padding;
  }

  /** No prices yet, padded so that the encoded state has {@code stateBytes} bytes. */
  public static RecentPrices empty(int stateBytes) {
    return new RecentPrices(new long[0], new byte[paddingOf(stateBytes)]);
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
    int paddingBytes = paddingOf(stateBytes);
    return new Codec<>() {
      @Override
      public byte[] encode(RecentPrices value) {
        if (value.padding.length != paddingBytes) {
          throw new IllegalArgumentException(
              "state padded for "
                  + (MIN_BYTES + value.padding.length)
                  + " bytes, codec for "
                  + stateBytes);
        }
        ByteBuffer buf = ByteBuffer.allocate(stateBytes);
        buf.putInt(value.prices.length);
        for (int i = 0; i < Q6Star.LAST_AUCTIONS; i++) {
          buf.putLong(i < value.prices.length ? value.prices[i] : 0);
        }
        buf.put(value.padding);
        return buf.array();
      }

      @Override
      public RecentPrices decode(byte[] bytes) {
        if (bytes.length != stateBytes) {
          throw new IllegalArgumentException(
              "expected " + stateBytes + " bytes of state, got " + bytes.length);
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        long[] prices = new long[buf.getInt()];
        for (int i = 0; i < Q6Star.LAST_AUCTIONS; i++) {
          long p = buf.getLong();
          if (i < prices.length) {
            prices[i] = p;
          }
        }
        byte[] padding = new byte[paddingBytes];
        buf.get(padding);
        return new RecentPrices(prices, padding);
      }
    };
  }

  private static int paddingOf(int stateBytes) {
    if (stateBytes < MIN_BYTES) {
      throw new IllegalArgumentException(
          "state of "
              + stateBytes
              + " bytes is too small: at least "
              + MIN_BYTES
              + " (the count and "
              + Q6Star.LAST_AUCTIONS
              + " prices)");
    }
    return stateBytes - MIN_BYTES;
  }

  @Override
  public String toString() {
    return "RecentPrices" + Arrays.toString(prices) + " + " + padding.length + " bytes of padding";
  }
}
