package io.koala.samples.twitch;

import io.koala.samples.PaddedState;
import io.koala.state.Codec;
import java.nio.ByteBuffer;

/**
 * The viewer-loyalty state of one streamer: viewers who entered (engagement), minutes watched, and
 * events seen, with a padding array that brings the encoded state to a chosen size (WORKLOADS.md:
 * "a large padding state per new key"). Immutable.
 *
 * <p>Encoded by {@link #codec(int)} in exactly {@code stateBytes} bytes: the three counters (8
 * bytes each), then the padding, so the bytes of any set of keys are known in advance.
 */
public final class Loyalty {
  /** The smallest encoded size: the counters, no padding. */
  public static final int MIN_BYTES = 3 * 8;

  private static final String FIELDS = "3 counters";

  private final long engagement;
  private final long watchedMinutes;
  private final long events;
  private final byte[] padding;

  private Loyalty(long engagement, long watchedMinutes, long events, byte[] padding) {
    this.engagement = engagement;
    this.watchedMinutes = watchedMinutes;
    this.events = events;
    this.padding = padding;
  }

  private static Loyalty read(ByteBuffer buf, byte[] padding) {
    return new Loyalty(buf.getLong(), buf.getLong(), buf.getLong(), padding);
  }

  /** Nothing seen yet, padded so that the encoded state has {@code stateBytes} bytes. */
  public static Loyalty empty(int stateBytes) {
    return new Loyalty(0, 0, 0, new byte[PaddedState.paddingBytes(stateBytes, MIN_BYTES, FIELDS)]);
  }

  /** This state after {@code e}. */
  public Loyalty plus(ViewerEvent e) {
    return new Loyalty(
        engagement + (e.enter() ? 1 : 0), watchedMinutes + e.watchedMinutes(), events + 1, padding);
  }

  public long events() {
    return events;
  }

  /** The loyalty score: (0.4 · engagement + 0.3 · minutes watched + 0.3 · events) / 100. */
  public double score() {
    return (0.4 * engagement + 0.3 * watchedMinutes + 0.3 * events) / 100.0;
  }

  /**
   * A codec writing exactly {@code stateBytes} bytes per state.
   *
   * @throws IllegalArgumentException if {@code stateBytes} is below {@link #MIN_BYTES}
   */
  public static Codec<Loyalty> codec(int stateBytes) {
    return PaddedState.codec(
        stateBytes, MIN_BYTES, FIELDS, l -> l.padding, Loyalty::write, Loyalty::read);
  }

  private void write(ByteBuffer buf) {
    buf.putLong(engagement).putLong(watchedMinutes).putLong(events);
  }
}
