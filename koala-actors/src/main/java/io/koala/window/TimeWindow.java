package io.koala.window;

import java.nio.ByteBuffer;

/**
 * An event-time window {@code [start, end)} in milliseconds. Its results carry the timestamp {@link
 * #maxTimestamp()}, and it fires when the watermark reaches that timestamp.
 */
public record TimeWindow(long start, long end) {
  public TimeWindow {
    if (end <= start) {
      throw new IllegalArgumentException("window end " + end + " must be after start " + start);
    }
  }

  /** The last timestamp inside the window. */
  public long maxTimestamp() {
    return end - 1;
  }

  /** Whether the two windows overlap or touch (session windows merge then). */
  public boolean intersects(TimeWindow other) {
    return start <= other.end && other.start <= end;
  }

  /** The smallest window containing both. */
  public TimeWindow cover(TimeWindow other) {
    return new TimeWindow(Math.min(start, other.start), Math.max(end, other.end));
  }

  /**
   * The window as 16 bytes, start then end, each big-endian with the sign bit flipped: byte order
   * is (start, end) order. Used as a state and timer namespace.
   */
  public byte[] toBytes() {
    return ByteBuffer.allocate(16)
        .putLong(start ^ Long.MIN_VALUE)
        .putLong(end ^ Long.MIN_VALUE)
        .array();
  }

  /** The window written by {@link #toBytes()}. */
  public static TimeWindow fromBytes(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    return new TimeWindow(b.getLong() ^ Long.MIN_VALUE, b.getLong() ^ Long.MIN_VALUE);
  }
}
