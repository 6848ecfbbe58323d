package io.koala.connector;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How fast records appear in a generated log, as a function of time since the job started: a
 * piecewise-constant rate in records per second (across all partitions), or unlimited. Immutable.
 *
 * <pre>{@code
 * RateSchedule.constant(50_000).then(Duration.ofSeconds(60), 100_000) // doubles after one minute
 * }</pre>
 */
public final class RateSchedule {
  private static final RateSchedule UNLIMITED = new RateSchedule(List.of());

  /** Segments sorted by start; empty means unlimited. */
  private final List<Segment> segments;

  private record Segment(long fromMillis, double perSecond) {}

  private RateSchedule(List<Segment> segments) {
    this.segments = segments;
  }

  /** Every record is available at once. */
  public static RateSchedule unlimited() {
    return UNLIMITED;
  }

  /** A constant rate of {@code perSecond} records per second. */
  public static RateSchedule constant(double perSecond) {
    return new RateSchedule(List.of(segment(0, perSecond)));
  }

  /** This schedule until {@code at}, then {@code perSecond} records per second. */
  public RateSchedule then(Duration at, double perSecond) {
    if (segments.isEmpty()) {
      throw new IllegalStateException("an unlimited schedule cannot change rate");
    }
    long from = at.toMillis();
    if (from <= segments.get(segments.size() - 1).fromMillis()) {
      throw new IllegalArgumentException(
          "rate changes must be in increasing time order, got "
              + at
              + " after "
              + Duration.ofMillis(segments.get(segments.size() - 1).fromMillis()));
    }
    List<Segment> next = new ArrayList<>(segments);
    next.add(segment(from, perSecond));
    return new RateSchedule(List.copyOf(next));
  }

  private static Segment segment(long from, double perSecond) {
    if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
      throw new IllegalArgumentException("rate must be positive and finite, got " + perSecond);
    }
    return new Segment(from, perSecond);
  }

  /** Number of records (all partitions) available {@code elapsedMillis} after the start. */
  public long available(long elapsedMillis) {
    if (segments.isEmpty()) {
      return Long.MAX_VALUE;
    }
    if (elapsedMillis <= 0) {
      return 0;
    }
    double total = 0;
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      long to = i + 1 < segments.size() ? segments.get(i + 1).fromMillis() : Long.MAX_VALUE;
      if (elapsedMillis <= s.fromMillis()) {
        break;
      }
      long end = Math.min(elapsedMillis, to);
      total += s.perSecond() * (end - s.fromMillis()) / 1000.0;
    }
    return total >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) total;
  }

  /**
   * Milliseconds after the start at which {@code count} records are available (the inverse of
   * {@link #available}, rounded up).
   */
  public long availableAt(long count) {
    if (segments.isEmpty() || count <= 0) {
      return 0;
    }
    double before = 0;
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      boolean last = i + 1 == segments.size();
      double segmentRecords =
          last
              ? Double.POSITIVE_INFINITY
              : s.perSecond() * (segments.get(i + 1).fromMillis() - s.fromMillis()) / 1000.0;
      if (before + segmentRecords >= count) {
        return s.fromMillis() + (long) Math.ceil((count - before) * 1000.0 / s.perSecond());
      }
      before += segmentRecords;
    }
    throw new IllegalStateException("unreachable: the last segment is unbounded");
  }

  @Override
  public String toString() {
    if (segments.isEmpty()) {
      return "unlimited";
    }
    StringBuilder sb = new StringBuilder();
    for (Segment s : segments) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(s.perSecond()).append("/s from ").append(s.fromMillis()).append(" ms");
    }
    return sb.toString();
  }
}
