package io.koala.autoscaler;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rates of every vertex between two samples, in the spirit of DS2 (Kalavri et al., OSDI 2018):
 * an operator's <em>true</em> processing rate is the records its tasks processed per second of
 * their busy time, not of wall time, so it holds whether the operator was backpressured, idle or
 * saturated; the rate it must keep up with is its sources' arrival rate (records read plus the
 * growth of their backlog), projected {@code lead} ahead along its trend, plus their backlog spread
 * over the catch-up time, carried downstream through each vertex's measured selectivity (records
 * out per record in). The same rate projected along a fall as well as a rise is carried alongside:
 * what a scale-in is sized from.
 *
 * <p>A trend is projected only once it held over two intervals in a row, at the gentler of their
 * two slopes: a load step is one interval's rise, and projecting it {@code lead} ahead sized the
 * operator for several times the new rate, to be scaled in again seconds later (issue 48).
 */
final class RateModel {
  /** Fewer records processed than this in an interval give no true rate. */
  static final long MIN_RECORDS = 100;

  /**
   * The rates of one vertex.
   *
   * @param inputRate records given per second over the interval
   * @param targetRate records per second it must keep up with: the arrival rate now, or {@code
   *     lead} ahead when it rises
   * @param projectedRate records per second it must keep up with {@code lead} ahead along the
   *     arrival rate's trend, rising or falling (never below the backlog's share): the target rate,
   *     or less when the arrival rate falls
   * @param trueRatePerTask records processed per busy second of one task, or NaN when too few ran
   * @param lagRecords its source tasks' backlog now (0 for other vertices)
   * @param arrivalRate for a source: records arriving per second (read plus backlog growth)
   */
  record Rates(
      double inputRate,
      double targetRate,
      double projectedRate,
      double trueRatePerTask,
      double lagRecords,
      double arrivalRate) {
    /** Task-seconds per second the target rate needs (NaN when the true rate is unknown). */
    double need() {
      return targetRate / trueRatePerTask;
    }

    /** Task-seconds per second the projected rate needs (NaN when the true rate is unknown). */
    double projectedNeed() {
      return projectedRate / trueRatePerTask;
    }
  }

  private RateModel() {}

  /**
   * A source's arrival rate over an interval, the interval's middle, and the slope from the
   * interval before it (records per second, per second; 0 when there was none): what the next
   * interval's trend is taken from.
   */
  record Arrival(double rate, double atMillis, double slope) {}

  /**
   * The rates of every vertex of {@code now}, by operator, from the counters' growth since {@code
   * before}; a task not in {@code before} counts from zero.
   *
   * @param catchUpSeconds over how long a source's backlog is to be read
   * @param leadSeconds how far ahead a source's arrival rate is projected along its trend
   * @param arrivals each source's arrival over an earlier interval (the last one measured), read
   *     for its trend and replaced by this interval's
   * @throws IllegalArgumentException if {@code now} is not later than {@code before}, or a vertex
   *     reads from one not before it
   */
  static Map<String, Rates> between(
      LoadSample before,
      LoadSample now,
      double catchUpSeconds,
      double leadSeconds,
      Map<String, Arrival> arrivals) {
    double seconds = (now.atMillis() - before.atMillis()) / 1000.0;
    if (!(seconds > 0)) {
      throw new IllegalArgumentException(
          "samples must be in time order: " + before.atMillis() + " then " + now.atMillis());
    }
    Map<String, LoadSample.Vertex> old = new HashMap<>();
    for (LoadSample.Vertex v : before.vertices()) {
      old.put(v.operator(), v);
    }
    Map<String, Rates> rates = new LinkedHashMap<>();
    Map<String, double[]> out = new HashMap<>(); // {target, projected} given downstream
    for (LoadSample.Vertex v : now.vertices()) {
      Growth g = Growth.of(old.get(v.operator()), v);
      double selectivity = g.in > 0 ? (double) g.out / g.in : 1.0;
      double trueRate =
          g.in >= MIN_RECORDS && g.busyNanos > 0 ? g.in / (g.busyNanos / 1e9) : Double.NaN;
      double arrival = 0;
      double target = 0;
      double projected = 0;
      if (v.source()) {
        arrival = Math.max(0, (g.in + g.lagGrowth) / seconds);
        double middle = (before.atMillis() + now.atMillis()) / 2.0;
        Arrival earlier = arrivals.get(v.operator());
        double slope =
            earlier == null || middle <= earlier.atMillis()
                ? 0
                : (arrival - earlier.rate()) / ((middle - earlier.atMillis()) / 1000);
        arrivals.put(v.operator(), new Arrival(arrival, middle, slope));
        double trend = earlier == null ? 0 : held(slope, earlier.slope());
        double backlog = g.lagNow / catchUpSeconds;
        target = arrival + Math.max(0, trend) * leadSeconds + backlog;
        projected = Math.max(0, arrival + trend * leadSeconds) + backlog;
      } else {
        for (String in : v.inputs()) {
          double[] up = out.get(in);
          if (up == null) {
            throw new IllegalArgumentException(
                "vertex '" + v.operator() + "' reads from '" + in + "', which is not before it");
          }
          target += up[0];
          projected += up[1];
        }
      }
      out.put(v.operator(), new double[] {target * selectivity, projected * selectivity});
      rates.put(
          v.operator(), new Rates(g.in / seconds, target, projected, trueRate, g.lagNow, arrival));
    }
    return rates;
  }

  /**
   * The trend of two slopes in a row: the gentler when both rise or both fall, else none (a step,
   * or a turn).
   */
  static double held(double slope, double before) {
    if (slope > 0 && before > 0) {
      return Math.min(slope, before);
    }
    if (slope < 0 && before < 0) {
      return Math.max(slope, before);
    }
    return 0;
  }

  /** The growth of a vertex's counters over its tasks. */
  private record Growth(long in, long out, long busyNanos, long lagGrowth, long lagNow) {
    static Growth of(LoadSample.Vertex before, LoadSample.Vertex now) {
      Map<Integer, LoadSample.Task> old = new HashMap<>();
      if (before != null) {
        for (LoadSample.Task t : before.tasks()) {
          old.put(t.index(), t);
        }
      }
      long in = 0;
      long out = 0;
      long busy = 0;
      long lagGrowth = 0;
      long lagNow = 0;
      for (LoadSample.Task t : now.tasks()) {
        LoadSample.Task o = old.getOrDefault(t.index(), new LoadSample.Task(t.index(), 0, 0, 0, 0));
        in += Math.max(0, t.recordsIn() - o.recordsIn());
        out += Math.max(0, t.recordsOut() - o.recordsOut());
        busy += Math.max(0, t.busyNanos() - o.busyNanos());
        lagGrowth += t.lagRecords() - o.lagRecords();
        lagNow += t.lagRecords();
      }
      return new Growth(in, out, busy, lagGrowth, lagNow);
    }
  }
}
