package io.koala.eventtime;

import java.time.Duration;
import java.util.Objects;

/**
 * How a source derives event-time progress from the timestamps of its records, per partition: the
 * watermark trails the largest timestamp seen by a fixed bound, and a partition that produced
 * nothing for the idleness timeout stops holding progress back. The source task's watermark is the
 * minimum over its active partitions. Immutable.
 *
 * <pre>{@code
 * b.source(bids, WatermarkStrategy.boundedOutOfOrderness(Duration.ofSeconds(2))
 *     .withIdleness(Duration.ofSeconds(10)));
 * }</pre>
 */
public final class WatermarkStrategy {
  private static final WatermarkStrategy NONE = new WatermarkStrategy(false, 0, null);

  private final boolean enabled;
  private final long maxDelayMillis;
  private final Duration idleness;

  private WatermarkStrategy(boolean enabled, long maxDelayMillis, Duration idleness) {
    this.enabled = enabled;
    this.maxDelayMillis = maxDelayMillis;
    this.idleness = idleness;
  }

  /** No watermarks: event-time operators downstream only fire when the input ends. */
  public static WatermarkStrategy none() {
    return NONE;
  }

  /**
   * Records may arrive up to {@code maxDelay} after a later record: watermark = max − delay − 1.
   */
  public static WatermarkStrategy boundedOutOfOrderness(Duration maxDelay) {
    long ms = maxDelay.toMillis();
    if (ms < 0) {
      throw new IllegalArgumentException(
          "the out-of-orderness bound must not be negative: " + maxDelay);
    }
    return new WatermarkStrategy(true, ms, null);
  }

  /** Timestamps never decrease within a partition: watermark = max − 1. */
  public static WatermarkStrategy monotonousTimestamps() {
    return new WatermarkStrategy(true, 0, null);
  }

  /** This strategy, with partitions idle after producing nothing for {@code timeout}. */
  public WatermarkStrategy withIdleness(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (!enabled) {
      throw new IllegalStateException("idleness needs a watermark strategy; none() has none");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the idleness timeout must be positive: " + timeout);
    }
    return new WatermarkStrategy(true, maxDelayMillis, timeout);
  }

  /** Whether the source emits watermarks. */
  public boolean enabled() {
    return enabled;
  }

  /** The out-of-orderness bound in milliseconds. */
  public long maxDelayMillis() {
    return maxDelayMillis;
  }

  /** The idleness timeout in milliseconds, or {@link Long#MAX_VALUE} when partitions never idle. */
  public long idlenessMillis() {
    return idleness == null ? Long.MAX_VALUE : idleness.toMillis();
  }

  @Override
  public String toString() {
    if (!enabled) {
      return "WatermarkStrategy.none()";
    }
    return "WatermarkStrategy(maxDelay "
        + maxDelayMillis
        + " ms"
        + (idleness == null ? "" : ", idle after " + idleness)
        + ")";
  }
}
