package io.koala.micrometer;

import io.koala.micrometer.MeterRows.Kind;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What a poll adds to a meter, from a series' previous and current cumulative values: pure
 * functions, so that Micrometer's counters stay monotonic and its timers get every duration once,
 * across rollbacks (the tasks restart and count afresh), restarted tasks and undone history.
 */
final class Increments {
  private Increments() {}

  /**
   * What a counter of kind {@code kind} adds when its total goes from {@code last} to {@code now};
   * {@code restarted}: the job rolled back since {@code last} was read.
   */
  static double counter(Kind kind, double last, double now, boolean restarted) {
    return switch (kind) {
      case GAUGE -> throw new IllegalArgumentException("a gauge has no increments");
      // the coordinator's totals survive a rollback; one going down is history undone
      case COUNTER -> Math.max(0, now - last);
      // the tasks' totals restart at a rollback; one going down is a task that restarted
      case RUN_COUNTER -> restarted || now < last ? now : now - last;
    };
  }

  /**
   * The durations a task recorded between two polls: {@code now} minus {@code last}, or the whole
   * of {@code now} when the task's run restarted in between ({@code restarted}, or fewer durations
   * in some range than before). {@code last} null: the series is new.
   */
  static Histogram histogram(Histogram last, Histogram now, boolean restarted) {
    if (last == null || restarted || now.getTotalCount() < last.getTotalCount()) {
      return now;
    }
    Histogram delta = now.copy();
    try {
      delta.subtract(last);
      return delta;
    } catch (IllegalArgumentException e) { // a range counts fewer than before: a new run
      return now;
    }
  }

  /** {@code h} compressed, to be kept until the next poll at a fraction of its size. */
  static byte[] compress(Histogram h) {
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf);
    byte[] out = new byte[n];
    buf.flip();
    buf.get(out);
    return out;
  }

  /** A histogram {@link #compress} kept. */
  static Histogram decompress(byte[] compressed) {
    try {
      return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(compressed), 0);
    } catch (DataFormatException e) {
      throw new IllegalStateException("a histogram kept between polls is corrupt", e);
    }
  }
}
