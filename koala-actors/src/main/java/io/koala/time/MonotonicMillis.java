package io.koala.time;

import java.util.function.LongSupplier;

/**
 * Milliseconds that read as the wall clock did when this was made and from then on move only with
 * the monotonic clock ({@link System#nanoTime}). A coordinator measures its timeouts on them
 * (checkpoint timeout, redeployment timeout, restart backoff and resets): on the wall clock itself,
 * a step forward (a VM resumed after a pause, an NTP correction) would abandon a checkpoint in
 * progress as timed out, and a step back would hold every timeout for as long as the step.
 * Timestamps read from it stay near the wall clock's as long as the wall clock does not step.
 */
public final class MonotonicMillis {
  private final long startMillis;
  private final long startNanos;
  private final LongSupplier nanos;

  /** From now, on this JVM's clocks. */
  public MonotonicMillis() {
    this(System.currentTimeMillis(), System::nanoTime);
  }

  /** From {@code wallMillis}, advancing with {@code nanos}. */
  MonotonicMillis(long wallMillis, LongSupplier nanos) {
    this.startMillis = wallMillis;
    this.nanos = nanos;
    this.startNanos = nanos.getAsLong();
  }

  /** The milliseconds now. */
  public long now() {
    return startMillis + (nanos.getAsLong() - startNanos) / 1_000_000;
  }
}
