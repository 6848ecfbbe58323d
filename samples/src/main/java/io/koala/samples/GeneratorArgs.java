package io.koala.samples;

/**
 * The argument checks the samples' generators share; a failed check throws {@link
 * IllegalArgumentException} naming the argument.
 *
 * <pre>{@code
 * GeneratorArgs.check(keys, activeKeys, GeneratorArgs.MAX_TABLED_KEYS, eventsPerSecond);
 * }</pre>
 */
public final class GeneratorArgs {
  /** The most active keys of a generator that keeps a table over them (8 bytes per key). */
  public static final long MAX_TABLED_KEYS = Integer.MAX_VALUE - 8;

  private GeneratorArgs() {}

  /**
   * Checks a generator's keys and rate.
   *
   * @param keys keys in total, at least 1
   * @param activeKeys the keys after the warm-up, in {@code [1, keys]} and at most {@code
   *     maxActiveKeys}
   * @param eventsPerSecond event-time rate of the records, positive and finite
   */
  public static void check(long keys, long activeKeys, long maxActiveKeys, double eventsPerSecond) {
    if (keys < 1) {
      throw new IllegalArgumentException("keys must be at least 1, got " + keys);
    }
    if (activeKeys < 1 || activeKeys > keys || activeKeys > maxActiveKeys) {
      throw new IllegalArgumentException(
          "active keys must be in [1, keys = " + keys + "], got " + activeKeys);
    }
    checkEventRate(eventsPerSecond);
  }

  /** Checks an event-time rate of records: positive and finite. */
  public static void checkEventRate(double eventsPerSecond) {
    if (!(eventsPerSecond > 0) || Double.isInfinite(eventsPerSecond)) {
      throw new IllegalArgumentException(
          "event rate must be positive and finite, got " + eventsPerSecond);
    }
  }
}
