package io.koala.time;

import java.time.Duration;

/**
 * A duration as a user writes it in HOCON ({@code 1 ms}, {@code 90 s}, {@code 24 h}), for messages
 * that quote configured timeouts and limits: the largest unit that states it exactly.
 */
public final class DurationText {
  private static final long[] NANOS = {
    86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L
  };
  private static final String[] UNITS = {"d", "h", "min", "s", "ms", "us", "ns"};

  private DurationText() {}

  /** {@code d} in the largest unit that divides it: {@code PT0.001S} is {@code "1 ms"}. */
  public static String of(Duration d) {
    if (d.isZero()) {
      return "0 s";
    }
    long n;
    try {
      n = d.toNanos();
    } catch (ArithmeticException e) {
      return d.toSeconds() + " s"; // beyond ±292 years in nanoseconds
    }
    for (int i = 0; i < NANOS.length; i++) {
      if (n % NANOS[i] == 0) {
        return n / NANOS[i] + " " + UNITS[i];
      }
    }
    throw new AssertionError("a nanosecond divides every duration");
  }
}
