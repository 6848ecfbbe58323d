package io.koala.samples.azure;

import io.koala.connector.GeneratorFunction;
import io.koala.samples.GeneratorArgs;
import io.koala.samples.RecordRandom;
import java.util.SplittableRandom;

/**
 * A stream of 5-minute VM CPU readings shaped like the Azure public dataset (WORKLOADS.md, Azure VM
 * CPU), record {@code i} a pure function of {@code (i, seed)}, over the VMs {@code 0 .. keys-1}:
 *
 * <ul>
 *   <li><b>warm-up</b>, records {@code 0 .. keys-1}: record {@code i} is a reading of VM {@code i},
 *       so once they are processed every VM has state;
 *   <li><b>afterwards</b>: many short-lived VMs. The VMs alive are a window of {@code alive =
 *       max(1, round(aliveFraction · activeKeys))} consecutive ids among the active VMs {@code 0 ..
 *       activeKeys-1} (wrapping), which moves on by one VM every {@value #READINGS_PER_LIFETIME}
 *       records: a record is a reading of a VM uniform in the window, so a VM reports about {@value
 *       #READINGS_PER_LIFETIME} times (two hours of readings) between its start and its end, and
 *       the window visits every active VM in turn ({@link #aliveOf}).
 * </ul>
 *
 * <p>Each VM has a base utilisation (60% of VMs 2–15%, 30% 15–50%, 10% 50–90%), a daily amplitude
 * (0–60%) and phase, fixed by {@code (vmId, seed)}; a reading's average follows the daily sine at
 * the record's time with ±10% noise, its minimum and maximum bracket it. Event time advances by
 * {@code 1 / eventsPerSecond} s per record from {@code baseTimeMillis}; the reading's timestamp is
 * that time rounded down to 5 minutes. Immutable and thread-safe.
 */
public final class AzureGenerator implements GeneratorFunction<VmReading> {
  /** The share of the active VMs alive at a time unless chosen. */
  public static final double DEFAULT_ALIVE_FRACTION = 0.25;

  /** Readings of a VM over its life, on average: records per move of the window. */
  public static final int READINGS_PER_LIFETIME = 24;

  /** The interval of the readings. */
  public static final long INTERVAL_MILLIS = 5 * 60_000L;

  private static final long DAY_MILLIS = 86_400_000L;
  private static final long VM_SALT = 0x0A2E_0001L;

  private final long keys;
  private final long activeKeys;
  private final long alive;
  private final long baseTimeMillis;
  private final double eventsPerMilli;

  /** Readings with {@value #DEFAULT_ALIVE_FRACTION} of the active VMs alive at a time. */
  public AzureGenerator(long keys, long activeKeys, long baseTimeMillis, double eventsPerSecond) {
    this(keys, activeKeys, baseTimeMillis, eventsPerSecond, DEFAULT_ALIVE_FRACTION);
  }

  /**
   * @param keys VMs in total; the warm-up has one record per VM
   * @param activeKeys the VMs that may run after the warm-up, in {@code [1, keys]}
   * @param eventsPerSecond event-time rate of the records, positive
   * @param aliveFraction the share of the active VMs alive at a time, in {@code (0, 1]}
   */
  public AzureGenerator(
      long keys,
      long activeKeys,
      long baseTimeMillis,
      double eventsPerSecond,
      double aliveFraction) {
    GeneratorArgs.check(keys, activeKeys, Long.MAX_VALUE, eventsPerSecond);
    if (!(aliveFraction > 0 && aliveFraction <= 1)) {
      throw new IllegalArgumentException("alive fraction must be in (0, 1], got " + aliveFraction);
    }
    this.keys = keys;
    this.activeKeys = activeKeys;
    this.alive = Math.max(1, Math.round(aliveFraction * activeKeys));
    this.baseTimeMillis = baseTimeMillis;
    this.eventsPerMilli = eventsPerSecond / 1000.0;
  }

  /** How many VMs are alive at a time after the warm-up. */
  public long alive() {
    return alive;
  }

  /**
   * The first VM alive at record {@code index} (after the warm-up): VMs {@code first .. first +
   * alive - 1}, modulo {@code activeKeys}, are alive.
   */
  public long aliveOf(long index) {
    return Math.floorMod((index - keys) / READINGS_PER_LIFETIME, activeKeys);
  }

  /** The VM of record {@code index}. */
  public long keyOf(long index, long seed) {
    if (index < keys) {
      return index;
    }
    return vmOf(index, RecordRandom.of(index, seed));
  }

  private long vmOf(long index, SplittableRandom r) {
    return (aliveOf(index) + r.nextLong(alive)) % activeKeys;
  }

  @Override
  public VmReading generate(long index, long seed) {
    SplittableRandom r = RecordRandom.of(index, seed);
    long vm = index < keys ? index : vmOf(index, r);
    SplittableRandom v = RecordRandom.of(vm, seed ^ VM_SALT);
    double klass = v.nextDouble();
    double base =
        klass < 0.6
            ? 2 + 13 * v.nextDouble()
            : klass < 0.9 ? 15 + 35 * v.nextDouble() : 50 + 40 * v.nextDouble();
    double amplitude = 0.6 * v.nextDouble();
    double phase = 2 * Math.PI * v.nextDouble();
    long time = baseTimeMillis + (long) (index / eventsPerMilli);
    double day = 2 * Math.PI * Math.floorMod(time, DAY_MILLIS) / DAY_MILLIS;
    double avg = base * (1 + amplitude * Math.sin(day + phase)) * (0.9 + 0.2 * r.nextDouble());
    avg = Math.min(100, Math.max(0, avg));
    double min = avg * (0.3 + 0.7 * r.nextDouble());
    double max = avg + (100 - avg) * 0.5 * r.nextDouble();
    return new VmReading(vm, time - Math.floorMod(time, INTERVAL_MILLIS), min, max, avg);
  }
}
