package io.koala.samples;

import io.koala.state.Codec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Codecs of per-key state padded to a chosen size, so that the experiments control the bytes of any
 * set of keys: a state's fields in exactly {@code minBytes} bytes, then a padding array up to
 * {@code stateBytes} (Twitch retention and loyalty, Q6*'s recent prices; {@link BoundedSeries} is
 * padded the same way).
 *
 * <pre>{@code
 * // a state of one long counter and padding
 * Codec<Counter> codec =
 *     PaddedState.codec(
 *         stateBytes,
 *         8,
 *         "a counter",
 *         Counter::padding,
 *         (c, buf) -> buf.putLong(c.count()),
 *         (buf, padding) -> new Counter(buf.getLong(), padding));
 * }</pre>
 */
public final class PaddedState {
  private PaddedState() {}

  /**
   * The padding that brings fields of {@code minBytes} bytes to {@code stateBytes}.
   *
   * @param fields what the fields are, for the error message
   * @throws IllegalArgumentException if {@code stateBytes} is below {@code minBytes}
   */
  public static int paddingBytes(int stateBytes, int minBytes, String fields) {
    if (stateBytes < minBytes) {
      throw new IllegalArgumentException(
          "state of "
              + stateBytes
              + " bytes is too small: at least "
              + minBytes
              + " ("
              + fields
              + ")");
    }
    return stateBytes - minBytes;
  }

  /**
   * A codec writing exactly {@code stateBytes} bytes per state: its fields, then its padding.
   *
   * @param fields what the fields are, for the error messages
   * @param padding the padding of a state, {@code stateBytes - minBytes} bytes
   * @param write writes the fields of a state, {@code minBytes} bytes
   * @param read the state of the fields read from a buffer, with a padding
   * @throws IllegalArgumentException if {@code stateBytes} is below {@code minBytes}
   */
  public static <T> Codec<T> codec(
      int stateBytes,
      int minBytes,
      String fields,
      Function<T, byte[]> padding,
      BiConsumer<T, ByteBuffer> write,
      BiFunction<ByteBuffer, byte[], T> read) {
    int paddingBytes = paddingBytes(stateBytes, minBytes, fields);
    return new Codec<>() {
      @Override
      public byte[] encode(T value) {
        byte[] p = padding.apply(value);
        if (p.length != paddingBytes) {
          throw new IllegalArgumentException(
              "state padded for " + (minBytes + p.length) + " bytes, codec for " + stateBytes);
        }
        ByteBuffer buf = ByteBuffer.allocate(stateBytes);
        write.accept(value, buf);
        return buf.put(p).array();
      }

      @Override
      public T decode(byte[] bytes) {
        if (bytes.length != stateBytes) {
          throw new IllegalArgumentException(
              "expected " + stateBytes + " bytes of state, got " + bytes.length);
        }
        return read.apply(ByteBuffer.wrap(bytes), Arrays.copyOfRange(bytes, minBytes, stateBytes));
      }
    };
  }
}
