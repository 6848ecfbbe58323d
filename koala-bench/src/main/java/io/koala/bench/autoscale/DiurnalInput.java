package io.koala.bench.autoscale;

import io.koala.connector.RateSchedule;
import io.koala.samples.RecordRandom;
import io.koala.samples.WeightedKeys;
import java.time.Duration;
import java.util.Arrays;

/**
 * The experiment's input: after a warm-up at the base rate, {@code cycles} cycles of {@code
 * periodSeconds} whose rate follows {@code base × (2.5 − 1.5 cos(2π t ÷ period))}, from 1× to 4×
 * and back, in one-second steps; keys drawn with Zipf skew, the hot keys moving to other keys at
 * each cycle's peak. Record {@code i} is a pure function of {@code (i, seed)}.
 */
public final class DiurnalInput {
  private final AutoscaleSettings s;
  private final RateSchedule schedule;
  private final double[] rates; // by second since the job started
  private final long[] shiftsAt; // record indices at which the hot keys move, ascending
  private final WeightedKeys zipf;

  public DiurnalInput(AutoscaleSettings s) {
    this.s = s;
    int seconds = s.warmupSeconds() + s.cycles() * s.periodSeconds();
    rates = new double[seconds];
    RateSchedule r = null;
    for (int t = 0; t < seconds; t++) {
      rates[t] = rateAt(t);
      r = r == null ? RateSchedule.constant(rates[t]) : r.then(Duration.ofSeconds(t), rates[t]);
    }
    schedule = r;
    shiftsAt = new long[s.cycles()];
    for (int c = 0; c < s.cycles(); c++) {
      long peakMillis = (s.warmupSeconds() + c * s.periodSeconds() + s.periodSeconds() / 2) * 1000L;
      shiftsAt[c] = schedule.available(peakMillis);
    }
    zipf = WeightedKeys.zipf(s.keys(), s.zipfExponent());
  }

  /** The rate of second {@code t} (from the job's start): its value at the second's middle. */
  private double rateAt(int t) {
    if (t < s.warmupSeconds()) {
      return s.baseRate();
    }
    double phase = 2 * Math.PI * (t - s.warmupSeconds() + 0.5) / s.periodSeconds();
    return s.baseRate() * (2.5 - 1.5 * Math.cos(phase));
  }

  /** Records per second in second {@code t} since the job started (0 after the input ends). */
  public double rate(int t) {
    return t >= 0 && t < rates.length ? rates[t] : 0;
  }

  /** Seconds of input, the warm-up included. */
  public int seconds() {
    return rates.length;
  }

  /** Every record of the input. */
  public long records() {
    return schedule.available(rates.length * 1000L);
  }

  public RateSchedule schedule() {
    return schedule;
  }

  /** The key of record {@code index}. */
  public long keyOf(long index, long seed) {
    int rank = zipf.sample((RecordRandom.mix(index, seed) >>> 11) * 0x1.0p-53);
    int shifts = Arrays.binarySearch(shiftsAt, index);
    shifts = shifts >= 0 ? shifts + 1 : -shifts - 1;
    return (rank + (long) shifts * (s.keys() / 3 + 1)) % s.keys();
  }

  /** The records of each key over the whole input: what the job's final counts must be. */
  public long[] expectedCounts() {
    long[] counts = new long[s.keys()];
    for (long i = 0, n = records(); i < n; i++) {
      counts[(int) keyOf(i, s.seed())]++;
    }
    return counts;
  }

  /**
   * The task-seconds of the proportional ideal over the measured seconds: each second's rate ÷ the
   * per-task capacity, rounded up.
   */
  public long idealTaskSeconds() {
    long sum = 0;
    for (int t = s.warmupSeconds(); t < rates.length; t++) {
      sum += (long) Math.ceil(rates[t] / s.taskCapacity() - 1e-9);
    }
    return sum;
  }
}
