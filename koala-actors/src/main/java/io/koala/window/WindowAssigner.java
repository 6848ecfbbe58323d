package io.koala.window;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Assigns records to event-time windows by timestamp: tumbling (fixed, non-overlapping), sliding
 * (fixed size, starting every slide, so a record belongs to size/slide windows) or session (a
 * window per burst of a key's records, closed by a gap of inactivity; overlapping sessions merge).
 * Immutable.
 */
public final class WindowAssigner {
  /** The kinds of windows. */
  public enum Kind {
    TUMBLING,
    SLIDING,
    SESSION
  }

  private final Kind kind;
  private final long size;
  private final long slide;
  private final long offset;

  private WindowAssigner(Kind kind, long size, long slide, long offset) {
    this.kind = kind;
    this.size = size;
    this.slide = slide;
    this.offset = offset;
  }

  /** Windows {@code [k·size, (k+1)·size)}. */
  public static WindowAssigner tumbling(Duration size) {
    long s = positive(size, "window size");
    return new WindowAssigner(Kind.TUMBLING, s, s, 0);
  }

  /** Windows of {@code size} starting at every multiple of {@code slide}. */
  public static WindowAssigner sliding(Duration size, Duration slide) {
    long s = positive(size, "window size");
    long sl = positive(slide, "window slide");
    if (sl > s) {
      throw new IllegalArgumentException("slide " + slide + " must not exceed size " + size);
    }
    return new WindowAssigner(Kind.SLIDING, s, sl, 0);
  }

  /** A session per key, ended by {@code gap} without records. */
  public static WindowAssigner session(Duration gap) {
    return new WindowAssigner(Kind.SESSION, positive(gap, "session gap"), 0, 0);
  }

  private static long positive(Duration d, String what) {
    long ms = d.toMillis();
    if (ms <= 0) {
      throw new IllegalArgumentException(what + " must be at least 1 ms, got " + d);
    }
    return ms;
  }

  public Kind kind() {
    return kind;
  }

  /** Whether windows of a key merge (sessions). */
  public boolean isMerging() {
    return kind == Kind.SESSION;
  }

  /** The windows a record with {@code timestamp} belongs to, earliest first. */
  public List<TimeWindow> assign(long timestamp) {
    if (kind == Kind.SESSION) {
      return List.of(new TimeWindow(timestamp, timestamp + size));
    }
    long last = timestamp - Math.floorMod(timestamp - offset, slide);
    List<TimeWindow> out = new ArrayList<>();
    for (long start = last; start > timestamp - size; start -= slide) {
      out.add(0, new TimeWindow(start, start + size));
    }
    return out;
  }

  @Override
  public String toString() {
    return switch (kind) {
      case TUMBLING -> "tumbling(" + size + " ms)";
      case SLIDING -> "sliding(" + size + " ms, every " + slide + " ms)";
      case SESSION -> "session(gap " + size + " ms)";
    };
  }
}
