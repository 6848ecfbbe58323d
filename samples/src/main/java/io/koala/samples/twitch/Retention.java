package io.koala.samples.twitch;

import io.koala.samples.PaddedState;
import io.koala.state.Codec;
import java.nio.ByteBuffer;

/**
 * The retention state of one streamer: viewers who entered, viewers who left and the minutes the
 * leavers watched, with a padding array that brings the encoded state to a chosen size. Immutable.
 *
 * <p>Encoded by {@link #codec(int)} in exactly {@code stateBytes} bytes: the three counters (8
 * bytes each), then the padding.
 */
public final class Retention {
  /** The smallest encoded size: the counters, no padding. */
  public static final int MIN_BYTES = 3 * 8;

  /** The longest session the generator produces, minutes: a leaver's ratio is watched / this. */
  public static final int LONGEST_SESSION_MINUTES = 240;

  private static final String FIELDS = "3 counters";

  private final long enters;
  private final long leaves;
  private final long watchedMinutes;
  private final byte[] padding;

  private Retention(long enters, long leaves, long watchedMinutes, byte[] padding) {
    this.enters = enters;
    this.leaves = leaves;
    this.watchedMinutes = watchedMinutes;
    this.padding = padding;
  }

  private static Retention read(ByteBuffer buf, byte[] padding) {
    return new Retention(buf.getLong(), buf.getLong(), buf.getLong(), padding);
  }

  /** Nothing seen yet, padded so that the encoded state has {@code stateBytes} bytes. */
  public static Retention empty(int stateBytes) {
    return new Retention(
        0, 0, 0, new byte[PaddedState.paddingBytes(stateBytes, MIN_BYTES, FIELDS)]);
  }

  /** This state after {@code e}. */
  public Retention plus(ViewerEvent e) {
    return e.enter()
        ? new Retention(enters + 1, leaves, watchedMinutes, padding)
        : new Retention(enters, leaves + 1, watchedMinutes + e.watchedMinutes(), padding);
  }

  /** Viewers in the stream: entered minus left, not below 0. */
  public long viewers() {
    return Math.max(0, enters - leaves);
  }

  /** Events seen. */
  public long events() {
    return enters + leaves;
  }

  /**
   * The running average ratio: the mean share of the longest session ({@value
   * #LONGEST_SESSION_MINUTES} minutes) the leavers watched; 0 before anyone left.
   */
  public double averageRatio() {
    return leaves == 0 ? 0 : (double) watchedMinutes / (LONGEST_SESSION_MINUTES * (double) leaves);
  }

  /**
   * The retention score, 0 to 100: {@code 100 · (0.5 · averageRatio + 0.5 · viewers / events)}, how
   * long leavers stayed and how many viewers are still in.
   */
  public double score() {
    long events = events();
    return 100 * (0.5 * averageRatio() + 0.5 * (events == 0 ? 0 : (double) viewers() / events));
  }

  /**
   * A codec writing exactly {@code stateBytes} bytes per state.
   *
   * @throws IllegalArgumentException if {@code stateBytes} is below {@link #MIN_BYTES}
   */
  public static Codec<Retention> codec(int stateBytes) {
    return PaddedState.codec(
        stateBytes, MIN_BYTES, FIELDS, r -> r.padding, Retention::write, Retention::read);
  }

  private void write(ByteBuffer buf) {
    buf.putLong(enters).putLong(leaves).putLong(watchedMinutes);
  }
}
