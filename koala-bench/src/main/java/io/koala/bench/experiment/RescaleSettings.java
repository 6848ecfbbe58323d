package io.koala.bench.experiment;

import io.koala.cli.ProtocolChoice;
import io.koala.connector.RateSchedule;
import io.koala.routing.Buckets;
import java.time.Duration;

/**
 * The parameters of one rescale experiment ({@code koala experiment rescale}); validation errors
 * name the command-line flag of the bad value.
 *
 * <p>The input follows a schedule in whole seconds from the job's start: a warm-up of {@link
 * #warmupSeconds()} in which every key is written once, at no more than {@code warmupRate} records
 * per second; {@code steadySeconds} at {@code rate}; {@code doubledSeconds} at twice the rate; then
 * the rescale, and the doubled rate from then on.
 *
 * @param workload the workload ({@link RescaleWorkload#names})
 * @param protocol the reconfiguration protocol, or the remote backend ({@link ProtocolChoice})
 * @param from parallelism of the target operator before the rescale
 * @param to parallelism after it (the same for a rebalance or a migration)
 * @param workers workers, each in its own ActorSystem over loopback TCP
 * @param keys keys in total (all written by the warm-up)
 * @param activeKeys keys touched after the warm-up (the hot range)
 * @param stateBytes bytes of state per key (the encoded value)
 * @param taskCapacity emulated capacity of each task of the target operator, records per second
 * @param rate input rate after the warm-up, records per second (doubled later)
 * @param warmupRate upper bound of the warm-up input rate; 0 for 95% of the capacity before
 * @param steadySeconds seconds at {@code rate}
 * @param doubledSeconds seconds at twice the rate before the rescale
 * @param tailSeconds seconds the run goes on once the backlog has recovered
 * @param timeoutSeconds seconds after the rescale after which the run ends, recovered or not
 * @param seed the generator's seed
 */
public record RescaleSettings(
    String workload,
    String protocol,
    int from,
    int to,
    int workers,
    long keys,
    long activeKeys,
    int stateBytes,
    double taskCapacity,
    double rate,
    double warmupRate,
    int steadySeconds,
    int doubledSeconds,
    int tailSeconds,
    int timeoutSeconds,
    long seed) {

  /** The default workload. */
  public static final String Q6STAR = RescaleWorkload.Q6STAR;

  /** The default protocol. */
  public static final String KOALA = "koala";

  /** The most keys: the experiment keeps a bucket per key in memory to account for moved state. */
  public static final long MAX_KEYS = 500_000_000L;

  /** Share of the capacity before the rescale that the default warm-up rate uses. */
  static final double WARMUP_SHARE = 0.95;

  public RescaleSettings {
    if (!RescaleWorkload.names().contains(workload)) {
      throw new IllegalArgumentException(
          "--workload '"
              + workload
              + "' is not available; implemented: "
              + RescaleWorkload.names());
    }
    try {
      ProtocolChoice.check(protocol);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--protocol: " + e.getMessage(), e);
    }
    checkParallelism("--from", from);
    checkParallelism("--to", to);
    positive("--workers", workers);
    if (keys < 1 || keys > MAX_KEYS) {
      throw new IllegalArgumentException("--keys must be in [1, " + MAX_KEYS + "], got " + keys);
    }
    if (activeKeys < 1 || activeKeys > keys) {
      throw new IllegalArgumentException(
          "--active-keys must be in [1, --keys = " + keys + "], got " + activeKeys);
    }
    int minState = RescaleWorkload.minStateBytes(workload);
    if (stateBytes < minState) {
      throw new IllegalArgumentException(
          "--state-bytes must be at least "
              + minState
              + " for workload "
              + workload
              + " (the state its target keeps besides padding), got "
              + stateBytes);
    }
    positiveFinite("--task-capacity", taskCapacity);
    positiveFinite("--rate", rate);
    if (warmupRate != 0) {
      positiveFinite("--warmup-rate", warmupRate);
    }
    positive("--steady-seconds", steadySeconds);
    positive("--doubled-seconds", doubledSeconds);
    if (tailSeconds < 0) {
      throw new IllegalArgumentException("--tail-seconds must not be negative, got " + tailSeconds);
    }
    positive("--timeout-seconds", timeoutSeconds);
  }

  /**
   * The default scenario of {@code experiment rescale} and {@code compare}: Q6* over 2,000,000 keys
   * (200,000 active) of 512 B, 4 -> 8 tasks of 25,000 records/s on 4 workers, 60,000 records/s
   * doubled after 30 s, rescaled 30 s later.
   */
  public static RescaleSettings defaults(String protocol) {
    return new RescaleSettings(
        Q6STAR, protocol, 4, 8, 4, 2_000_000, 200_000, 512, 25_000, 60_000, 0, 30, 30, 10, 120, 42);
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** These settings with {@code keys} keys in total. */
  public RescaleSettings withKeys(long keys) {
    return toBuilder().keys(keys).build();
  }

  /** These settings with the input at {@code rate} records/s after the warm-up (doubled later). */
  public RescaleSettings withRate(double rate) {
    return toBuilder().rate(rate).build();
  }

  /**
   * Settings that differ from others in a few values ({@link RescaleSettings#toBuilder()}): each
   * setter sets the component of its name, and {@link #build()} validates them all at once, so the
   * values may be set in any order.
   *
   * <pre>{@code
   * RescaleSettings s = RescaleSettings.defaults("koala").toBuilder().keys(500_000).build();
   * }</pre>
   */
  public static final class Builder {
    private String workload;
    private String protocol;
    private int from;
    private int to;
    private int workers;
    private long keys;
    private long activeKeys;
    private int stateBytes;
    private double taskCapacity;
    private double rate;
    private double warmupRate;
    private int steadySeconds;
    private int doubledSeconds;
    private int tailSeconds;
    private int timeoutSeconds;
    private long seed;

    private Builder(RescaleSettings s) {
      workload = s.workload;
      protocol = s.protocol;
      from = s.from;
      to = s.to;
      workers = s.workers;
      keys = s.keys;
      activeKeys = s.activeKeys;
      stateBytes = s.stateBytes;
      taskCapacity = s.taskCapacity;
      rate = s.rate;
      warmupRate = s.warmupRate;
      steadySeconds = s.steadySeconds;
      doubledSeconds = s.doubledSeconds;
      tailSeconds = s.tailSeconds;
      timeoutSeconds = s.timeoutSeconds;
      seed = s.seed;
    }

    public Builder workload(String workload) {
      this.workload = workload;
      return this;
    }

    public Builder protocol(String protocol) {
      this.protocol = protocol;
      return this;
    }

    public Builder from(int from) {
      this.from = from;
      return this;
    }

    public Builder to(int to) {
      this.to = to;
      return this;
    }

    public Builder workers(int workers) {
      this.workers = workers;
      return this;
    }

    public Builder keys(long keys) {
      this.keys = keys;
      return this;
    }

    public Builder activeKeys(long activeKeys) {
      this.activeKeys = activeKeys;
      return this;
    }

    public Builder stateBytes(int stateBytes) {
      this.stateBytes = stateBytes;
      return this;
    }

    public Builder taskCapacity(double taskCapacity) {
      this.taskCapacity = taskCapacity;
      return this;
    }

    public Builder rate(double rate) {
      this.rate = rate;
      return this;
    }

    public Builder warmupRate(double warmupRate) {
      this.warmupRate = warmupRate;
      return this;
    }

    public Builder steadySeconds(int steadySeconds) {
      this.steadySeconds = steadySeconds;
      return this;
    }

    public Builder doubledSeconds(int doubledSeconds) {
      this.doubledSeconds = doubledSeconds;
      return this;
    }

    public Builder tailSeconds(int tailSeconds) {
      this.tailSeconds = tailSeconds;
      return this;
    }

    public Builder timeoutSeconds(int timeoutSeconds) {
      this.timeoutSeconds = timeoutSeconds;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException naming the flag of an invalid value
     */
    public RescaleSettings build() {
      return new RescaleSettings(
          workload,
          protocol,
          from,
          to,
          workers,
          keys,
          activeKeys,
          stateBytes,
          taskCapacity,
          rate,
          warmupRate,
          steadySeconds,
          doubledSeconds,
          tailSeconds,
          timeoutSeconds,
          seed);
    }
  }

  private static void checkParallelism(String flag, int p) {
    if (p < 1 || p > Buckets.DEFAULT_BUCKETS) {
      throw new IllegalArgumentException(
          flag + " must be in [1, " + Buckets.DEFAULT_BUCKETS + "] (the buckets), got " + p);
    }
  }

  private static void positive(String flag, long v) {
    if (v < 1) {
      throw new IllegalArgumentException(flag + " must be at least 1, got " + v);
    }
  }

  private static void positiveFinite(String flag, double v) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(flag + " must be positive and finite, got " + v);
    }
  }

  /** Records per second the target operator can process before the rescale. */
  public double capacityBefore() {
    return from * taskCapacity;
  }

  /** Records per second the target operator can process after the rescale. */
  public double capacityAfter() {
    return to * taskCapacity;
  }

  /** The input rate from the doubling on. */
  public double doubledRate() {
    return 2 * rate;
  }

  /** Whole seconds of warm-up: enough for every key at no more than the warm-up rate limit. */
  public int warmupSeconds() {
    double limit = warmupRate > 0 ? warmupRate : WARMUP_SHARE * capacityBefore();
    return (int) Math.max(1, Math.ceil(keys / limit));
  }

  /** The warm-up's input rate: every key once in {@link #warmupSeconds()}. */
  public double effectiveWarmupRate() {
    return (double) keys / warmupSeconds();
  }

  /** Seconds from the job's start at which the rate doubles. */
  public int doublingAtSecond() {
    return warmupSeconds() + steadySeconds;
  }

  /** Seconds from the job's start at which the rescale is requested. */
  public int rescaleAtSecond() {
    return doublingAtSecond() + doubledSeconds;
  }

  /** The input's rate schedule, from the job's start. */
  public RateSchedule schedule() {
    return RateSchedule.constant(effectiveWarmupRate())
        .then(Duration.ofSeconds(warmupSeconds()), rate)
        .then(Duration.ofSeconds(doublingAtSecond()), doubledRate());
  }
}
