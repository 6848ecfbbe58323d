package io.koala.autoscaler;

import io.koala.job.AutoscalerDecision;
import io.koala.job.AutoscalerDecision.Kind;
import io.koala.job.AutoscalerEvaluation;
import io.koala.routing.PartitionPolicy;
import io.koala.routing.RoutingTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The autoscaler's decisions: fed a {@link LoadSample} every interval, it returns the changes to
 * make now. Pure and deterministic: no clock but the samples' times.
 *
 * <p>For each operator it may change, from the {@link RateModel rates} since the previous sample:
 * the work it needs is {@code target rate ÷ true rate per task} task-seconds per second, spread
 * over its buckets by their measured load. It wants the fewest tasks whose busiest, with the
 * buckets placed by {@link PartitionPolicy#loadAware(double[])}, would be busy at most {@code 1 ÷
 * headroom} of its time (so a hot bucket raises the parallelism only as far as spreading the others
 * helps).
 *
 * <ul>
 *   <li>More than it has: a scale-out, by at most {@code maxStep} tasks, up to {@code
 *       maxParallelism}.
 *   <li>Fewer, even with {@code headroom × (1 + scaleInHysteresis)} at the rate projected {@code
 *       lead} ahead along its fall (the target rate when it does not fall), and with {@code
 *       headroom} at the target rate: a scale-in to that many, by at most {@code maxStep}, down to
 *       {@code minParallelism}. So a scale-in never leaves fewer tasks than a scale-out would want
 *       from the same measurements.
 *   <li>Otherwise, if the busiest task is over the target with the current placement and a
 *       load-aware one at the same parallelism lowers it by at least a tenth: a rebalance.
 * </ul>
 *
 * A scale-in waits until {@code cooldown} has passed since the operator's last scale-out; a
 * scale-out or a rebalance, which keep the lag down, never wait for it, nor does a scale-in after a
 * scale-in, which keeps the direction. Two reversals in a row (out, in, out or in, out, in) contain
 * a scale-out followed by a scale-in, which came a cooldown after it, so an operator's parallelism
 * cannot change direction twice within a cooldown. Counters that span a change describe neither
 * side: the sample after a decision, and a sample taken while a reconfiguration runs, decide
 * nothing; the next one only starts a new interval.
 */
public final class AutoscalerPolicy {
  /** A rebalance must bring the busiest task's projected load at least this much lower. */
  static final double REBALANCE_GAIN = 0.9;

  /** A change to make now, and how to place the buckets. */
  public record Action(AutoscalerDecision decision, PartitionPolicy placement) {}

  private final AutoscalerSettings settings;
  private LoadSample previous;
  private final Map<String, Long> lastScaleOut = new HashMap<>();
  private final Map<String, RateModel.Arrival> arrivals = new HashMap<>();
  private final Map<String, AutoscalerEvaluation> evaluations = new LinkedHashMap<>();

  public AutoscalerPolicy(AutoscalerSettings settings) {
    this.settings = settings;
  }

  /** The last evaluation of every operator, in topological order. */
  public List<AutoscalerEvaluation> evaluations() {
    return List.copyOf(evaluations.values());
  }

  /**
   * The changes to make now, at most one per operator, from {@code sample} and the one before.
   *
   * @throws IllegalArgumentException if {@code sample} is not later than the previous one
   */
  public List<Action> decide(LoadSample sample) {
    LoadSample before = previous;
    previous = sample.reconfiguring() ? null : sample;
    if (sample.reconfiguring() || before == null) {
      return List.of();
    }
    Map<String, RateModel.Rates> rates =
        RateModel.between(
            before,
            sample,
            settings.catchUp().toMillis() / 1000.0,
            settings.lead().toMillis() / 1000.0,
            arrivals);
    List<Action> actions = new ArrayList<>();
    for (LoadSample.Vertex v : sample.vertices()) {
      Evaluated e = evaluate(sample.atMillis(), v, rates.get(v.operator()));
      evaluations.put(v.operator(), e.evaluation);
      if (e.action != null) {
        if (e.action.decision().kind() == Kind.SCALE_OUT) {
          lastScaleOut.put(v.operator(), sample.atMillis()); // only a scale-in can reverse it
        }
        actions.add(e.action);
      }
    }
    if (!actions.isEmpty()) {
      previous = null; // the next interval would span the changes: the next sample starts anew
    }
    return List.copyOf(actions);
  }

  private record Evaluated(AutoscalerEvaluation evaluation, Action action) {}

  private Evaluated evaluate(long now, LoadSample.Vertex v, RateModel.Rates r) {
    int p = v.liveTasks().length;
    Verdict verdict = verdict(now, v, r);
    AutoscalerEvaluation evaluation =
        new AutoscalerEvaluation(
            now,
            v.operator(),
            p,
            r.inputRate(),
            r.targetRate(),
            r.trueRatePerTask(),
            verdict.busiest,
            verdict.wanted,
            verdict.text);
    if (verdict.kind == null) {
      return new Evaluated(evaluation, null);
    }
    AutoscalerDecision d =
        new AutoscalerDecision(
            now,
            v.operator(),
            verdict.kind,
            p,
            verdict.to,
            verdict.text,
            AutoscalerDecision.RUNNING);
    return new Evaluated(evaluation, new Action(d, verdict.placements.policy()));
  }

  /** What to do with one vertex: a change ({@code kind} not null) or why none. */
  private record Verdict(
      Kind kind, int to, int wanted, double busiest, Placements placements, String text) {
    static Verdict hold(int wanted, double busiest, Placements placements, String why) {
      return new Verdict(null, 0, wanted, busiest, placements, why);
    }
  }

  private Verdict verdict(long now, LoadSample.Vertex v, RateModel.Rates r) {
    int p = v.liveTasks().length;
    if (v.fixed() != null) {
      return Verdict.hold(p, Double.NaN, null, "not rescalable live: " + v.fixed());
    }
    if (!settings.covers(v.operator())) {
      return Verdict.hold(p, Double.NaN, null, "not in koala.autoscaler.operators");
    }
    Placements placements = new Placements(v);
    if (Double.isNaN(r.trueRatePerTask())) {
      if (r.targetRate() == 0 && p > settings.minParallelism()) {
        return change(
            now,
            v,
            Kind.SCALE_IN,
            Math.max(settings.minParallelism(), p - settings.maxStep()),
            settings.minParallelism(),
            0,
            placements,
            "no input and none expected");
      }
      return Verdict.hold(
          p,
          Double.NaN,
          null,
          "no true rate yet: fewer than " + RateModel.MIN_RECORDS + " records in the interval");
    }
    double need = r.need();
    double busiest = need * placements.busiestShare(v.routing());
    String measured =
        String.format(
            Locale.ROOT,
            "target %,.0f records/s (given %,.0f/s), true rate %,.0f/s per task: %.2f tasks of"
                + " work; busiest task at %.0f%% with the current placement",
            r.targetRate(),
            r.inputRate(),
            r.trueRatePerTask(),
            need,
            100 * busiest);
    int wantOut = fewestTasks(placements, need, settings.headroom());
    double hysteresis = settings.headroom() * (1 + settings.scaleInHysteresis());
    int wantIn = Math.max(wantOut, fewestTasks(placements, r.projectedNeed(), hysteresis));
    if (wantOut > p) {
      int to = Math.min(wantOut, p + settings.maxStep());
      return change(
          now,
          v,
          Kind.SCALE_OUT,
          to,
          wantOut,
          busiest,
          placements,
          measured + "; " + keepUnder(wantOut));
    }
    if (wantIn < p) {
      int to = Math.max(wantIn, p - settings.maxStep());
      return change(
          now,
          v,
          Kind.SCALE_IN,
          to,
          wantIn,
          busiest,
          placements,
          measured + "; " + scaleInReason(wantIn, r));
    }
    if (busiest * settings.headroom() > 1) {
      double balanced = need * placements.busiestShare(p);
      if (balanced <= busiest * REBALANCE_GAIN) {
        return change(
            now,
            v,
            Kind.REBALANCE,
            p,
            wantOut,
            busiest,
            placements,
            String.format(
                Locale.ROOT,
                "%s; over %s busy, %.0f%% with a load-aware placement",
                measured,
                targetPercent(),
                100 * balanced));
      }
    }
    return Verdict.hold(p, busiest, placements, measured + "; within the target");
  }

  /** "n tasks keep it under t% busy", or "1 task keeps it ...". */
  private String keepUnder(int tasks) {
    return (tasks == 1 ? "1 task keeps" : tasks + " tasks keep")
        + " it under "
        + targetPercent()
        + " busy";
  }

  private String targetPercent() {
    return String.format(Locale.ROOT, "%.0f%%", 100 / settings.headroom());
  }

  private String scaleInReason(int wanted, RateModel.Rates r) {
    String kept = keepUnder(wanted);
    if (r.projectedRate() >= r.targetRate()) {
      return kept + " even with the scale-in hysteresis";
    }
    return String.format(
        Locale.ROOT,
        "%s now, and even with the scale-in hysteresis at the %,.0f records/s projected along its"
            + " fall",
        kept,
        r.projectedRate());
  }

  private Verdict change(
      long now,
      LoadSample.Vertex v,
      Kind kind,
      int to,
      int wanted,
      double busiest,
      Placements placements,
      String reason) {
    Long last = lastScaleOut.get(v.operator());
    long until = last == null ? Long.MIN_VALUE : last + settings.cooldown().toMillis();
    if (kind == Kind.SCALE_IN && now < until) {
      return Verdict.hold(
          wanted,
          busiest,
          placements,
          reason
              + "; but the cooldown after its scale-out lasts "
              + (until - now)
              + " ms more: scale-in held");
    }
    return new Verdict(kind, to, wanted, busiest, placements, reason);
  }

  /**
   * The fewest tasks, within the settings' bounds, whose busiest is busy at most {@code 1 ÷
   * headroom} with {@code need} task-seconds per second of work. When none is, the fewest with
   * which the busiest carries no more than the heaviest bucket (more tasks cannot split a bucket),
   * or the maximum.
   */
  private int fewestTasks(Placements placements, double need, double headroom) {
    int max = Math.min(settings.maxParallelism(), placements.v.maxParallelism());
    int from = Math.max(settings.minParallelism(), (int) Math.ceil(need * headroom - 1e-9));
    for (int q = Math.min(from, max); q < max; q++) {
      double share = placements.busiestShare(q);
      if (need * share * headroom <= 1 || share <= placements.heaviestBucketShare() + 1e-9) {
        return q;
      }
    }
    return max;
  }

  /**
   * The busiest task's share of a vertex's load with its buckets placed over a number of tasks: by
   * measured bucket load with {@link PartitionPolicy#loadAware(double[])}, or by bucket count with
   * {@link PartitionPolicy#even()} when no load was measured. A vertex without buckets is fed
   * round-robin: each of q tasks gets 1/q of the load.
   */
  private static final class Placements {
    private final LoadSample.Vertex v;
    private final double[] loads; // null: no buckets
    private final boolean measured;
    private final Map<Integer, Double> byParallelism = new HashMap<>();

    Placements(LoadSample.Vertex v) {
      this.v = v;
      double[] l = v.bucketLoads();
      this.measured = l != null && Arrays.stream(l).sum() > 0;
      if (measured) {
        loads = l;
      } else if (v.routing() == null) {
        loads = null;
      } else {
        loads = new double[v.routing().buckets()];
        Arrays.fill(loads, 1);
      }
    }

    /** The heaviest bucket's share of the load (0 without buckets: any task count splits it). */
    double heaviestBucketShare() {
      if (loads == null) {
        return 0;
      }
      double total = Arrays.stream(loads).sum();
      return Arrays.stream(loads).max().orElse(0) / total;
    }

    PartitionPolicy policy() {
      return measured ? PartitionPolicy.loadAware(loads) : PartitionPolicy.even();
    }

    /** The busiest task's share with {@code q} tasks: the first {@code q} live ones, or more. */
    double busiestShare(int q) {
      if (loads == null) {
        return 1.0 / q;
      }
      return byParallelism.computeIfAbsent(
          q, n -> busiestShare(policy().assign(v.routing(), tasks(n), loads.length)));
    }

    /** The busiest task's share under {@code table} (null: round-robin over the live tasks). */
    double busiestShare(RoutingTable table) {
      if (table == null) {
        return 1.0 / v.liveTasks().length;
      }
      Map<Integer, Double> load = new HashMap<>();
      double total = 0;
      for (int b = 0; b < loads.length; b++) {
        load.merge(table.owner(b), loads[b], Double::sum);
        total += loads[b];
      }
      double max = load.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
      return total == 0 ? 0 : max / total;
    }

    /** The task indices of a rescale to {@code q}: as {@code ReconfigurationPlan.rescale} picks. */
    private int[] tasks(int q) {
      int[] live = v.liveTasks();
      int[] t = Arrays.copyOf(live, Math.min(q, loads.length));
      int next = live[live.length - 1] + 1;
      for (int i = live.length; i < t.length; i++) {
        t[i] = next++;
      }
      return t;
    }
  }
}
