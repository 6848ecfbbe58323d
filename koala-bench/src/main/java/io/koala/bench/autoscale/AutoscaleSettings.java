package io.koala.bench.autoscale;

/**
 * The scenario of {@code koala experiment autoscale}.
 *
 * @param cycles diurnal cycles of the input
 * @param periodSeconds length of one cycle
 * @param warmupSeconds seconds at the base rate before the first cycle, not measured
 * @param baseRate records per second at the cycle's low (the peak is 4 times as much)
 * @param taskCapacity emulated capacity of each task of the keyed operator, records per second
 * @param keys distinct keys
 * @param zipfExponent the skew of the keys
 * @param stateBytes bytes of state per key
 * @param workers workers (separate ActorSystems over loopback TCP), and source partitions
 * @param headroom the autoscaler's headroom ({@code koala.autoscaler.headroom})
 * @param scaleInHysteresis {@code koala.autoscaler.scale-in-hysteresis}
 * @param cooldownSeconds {@code koala.autoscaler.cooldown}
 * @param leadSeconds {@code koala.autoscaler.lead}
 * @param seed the generator's seed
 */
public record AutoscaleSettings(
    int cycles,
    int periodSeconds,
    int warmupSeconds,
    double baseRate,
    double taskCapacity,
    int keys,
    double zipfExponent,
    int stateBytes,
    int workers,
    double headroom,
    double scaleInHysteresis,
    int cooldownSeconds,
    int leadSeconds,
    long seed) {

  /** The defaults of the command. */
  public static final AutoscaleSettings DEFAULTS =
      new AutoscaleSettings(3, 90, 10, 2_000, 1_000, 100_000, 0.8, 512, 2, 1.1, 0.1, 10, 4, 42);

  /**
   * @throws IllegalArgumentException naming the setting out of range
   */
  public AutoscaleSettings {
    check(cycles >= 1, "--cycles must be at least 1: " + cycles);
    check(periodSeconds >= 10, "--period-seconds must be at least 10: " + periodSeconds);
    check(warmupSeconds >= 5, "the warm-up must be at least 5 s: " + warmupSeconds);
    check(baseRate > 0 && taskCapacity > 0, "--base-rate and --task-capacity must be positive");
    check(keys >= 10, "--keys must be at least 10: " + keys);
    check(zipfExponent >= 0, "--zipf must not be negative: " + zipfExponent);
    check(stateBytes >= AutoscaleJob.MIN_STATE_BYTES, "--state-bytes must be at least 16");
    check(workers >= 1, "--workers must be at least 1");
    check(headroom >= 1, "--headroom must be at least 1: " + headroom);
    check(scaleInHysteresis >= 0, "--scale-in-hysteresis must not be negative");
    check(cooldownSeconds >= 0, "--cooldown-seconds must not be negative");
    check(leadSeconds >= 0, "--lead-seconds must not be negative");
  }

  private static void check(boolean ok, String why) {
    if (!ok) {
      throw new IllegalArgumentException(why);
    }
  }

  /** The autoscaler's cooldown. */
  public java.time.Duration cooldown() {
    return java.time.Duration.ofSeconds(cooldownSeconds);
  }

  /** Tasks that serve the peak rate: {@code ceil(4 × base ÷ capacity)}. */
  public int peakParallelism() {
    return (int) Math.ceil(4 * baseRate / taskCapacity - 1e-9);
  }

  /** Tasks that serve the mean rate: {@code ceil(2.5 × base ÷ capacity)}. */
  public int meanParallelism() {
    return (int) Math.ceil(2.5 * baseRate / taskCapacity - 1e-9);
  }

  /** Tasks the autoscaled runs start with: the base rate with the headroom. */
  public int initialParallelism() {
    return (int) Math.ceil(baseRate * headroom / taskCapacity - 1e-9);
  }
}
