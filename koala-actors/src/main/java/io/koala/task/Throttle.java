package io.koala.task;

/**
 * A token bucket limiting how many records per second a task processes: the emulated task capacity
 * of experiments on a small machine (DESIGN §4.7). A batch may start while any token is left and
 * takes all it needs (the balance may go negative); the next waits until the balance is positive
 * again. At most 50 ms of capacity accumulates while idle. Pure: the caller passes the time.
 */
public final class Throttle {
  private final double perSecond;
  private final double perNano;
  private final double burst;
  private double tokens;
  private long lastNanos;
  private boolean started;

  /**
   * @param perSecond records per second, positive
   */
  public Throttle(double perSecond) {
    if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
      throw new IllegalArgumentException("capacity must be positive and finite, got " + perSecond);
    }
    this.perSecond = perSecond;
    this.perNano = perSecond / 1e9;
    this.burst = Math.max(1, perSecond / 20);
  }

  /** The capacity, records per second. */
  public double perSecond() {
    return perSecond;
  }

  private void refill(long nowNanos) {
    if (!started) {
      started = true;
      lastNanos = nowNanos;
      tokens = burst;
      return;
    }
    tokens = Math.min(burst, tokens + (nowNanos - lastNanos) * perNano);
    lastNanos = nowNanos;
  }

  /** Nanoseconds until a batch may start; 0 when it may start now. */
  public long waitNanos(long nowNanos) {
    refill(nowNanos);
    return tokens > 0 ? 0 : (long) Math.ceil((1 - tokens) / perNano);
  }

  /** A batch of {@code records} ran. */
  public void take(long nowNanos, int records) {
    refill(nowNanos);
    tokens -= records;
  }
}
