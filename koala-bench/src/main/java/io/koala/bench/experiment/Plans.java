package io.koala.bench.experiment;

import io.koala.connector.RateSchedule;
import io.koala.dataflow.Dataflow;
import io.koala.deploy.DeploymentPlan;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.TaskId;
import io.koala.routing.Buckets;
import io.koala.routing.RoutingTable;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.internal.EngineSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * The plans of the experiments other than a single rescale (WORKLOADS.md, "Experiments"). Each
 * starts like {@link RescaleExperiment.Plan#rescale}: warm-up, steady input, doubled input, then
 * the first reconfiguration at {@link RescaleSettings#rescaleAtSecond()}.
 */
public final class Plans {
  private Plans() {}

  /**
   * The utilisation the repeated experiment's input keeps after each rescale: the rate is this
   * share of the new parallelism's capacity, so that a scale-out follows a rise the old parallelism
   * could not serve and a scale-in a fall the new one can.
   */
  static final double REPEATED_UTILISATION = 0.8;

  /** Seconds by which the repeated experiment's rate changes before the rescale that follows. */
  static final int REPEATED_LEAD_SECONDS = 5;

  /**
   * {@code experiment repeated} (the paper's Fig. 10): the target rescaled {@code from → to} under
   * the doubled input's backlog, then to each of {@code next} every {@code stepSeconds}, with a
   * day-like rate: {@value #REPEATED_LEAD_SECONDS} s before each later rescale, the input moves to
   * {@value #REPEATED_UTILISATION} of the next parallelism's capacity (a rise before a scale-out, a
   * fall before a scale-in). The run waits until the tasks the scale-ins retire are released.
   */
  public static RescaleExperiment.Plan repeated(
      RescaleSettings s, List<Integer> next, int stepSeconds) {
    if (stepSeconds <= REPEATED_LEAD_SECONDS) {
      throw new IllegalArgumentException(
          "--step-seconds must exceed " + REPEATED_LEAD_SECONDS + ", got " + stepSeconds);
    }
    String target = RescaleWorkload.of(s).target();
    List<RescaleExperiment.Step> steps = new ArrayList<>(RescaleExperiment.Plan.rescale(s).steps());
    RateSchedule rates = s.schedule();
    int at = s.rescaleAtSecond();
    int before = s.to();
    int retired = 0;
    for (int p : next) {
      retired += Math.max(0, before - p);
      at += stepSeconds;
      double rate = REPEATED_UTILISATION * p * s.taskCapacity();
      rates = rates.then(Duration.ofSeconds(at - REPEATED_LEAD_SECONDS), rate);
      int parallelism = p;
      steps.add(
          new RescaleExperiment.Step(
              at,
              String.format(
                  Locale.ROOT,
                  "rescale %s %d -> %d (input %,.0f/s since %d s)",
                  target,
                  before,
                  p,
                  rate,
                  at - REPEATED_LEAD_SECONDS),
              job -> job.rescale(target, parallelism)));
      before = p;
    }
    return new RescaleExperiment.Plan(s, rates, steps, retired);
  }

  /**
   * {@code experiment skew} (the paper's Fig. 11): the target's buckets are rebalanced over its
   * {@code from} tasks at the rescale second by a load-aware explicit map, which {@code rebalance}
   * builds then from the runtime's measured per-bucket loads ({@link LoadAwareRebalance}); the
   * parallelism does not change.
   */
  public static RescaleExperiment.Plan skew(RescaleSettings s, LoadAwareRebalance rebalance) {
    String target = RescaleWorkload.of(s).target();
    return new RescaleExperiment.Plan(
        s,
        s.schedule(),
        List.of(
            new RescaleExperiment.Step(
                s.rescaleAtSecond(),
                "rebalance "
                    + target
                    + " over its "
                    + s.from()
                    + " tasks by the load the runtime measured per bucket",
                rebalance)));
  }

  /**
   * The load of each bucket of the workload's target as the generator predicts it: the records
   * {@code [fromIndex, toIndex)}, counted by the bucket of their key. {@code experiment skew} picks
   * its doubled rate with it before the run (a workload setting); the map it applies comes from the
   * runtime's counters.
   */
  public static double[] bucketLoads(RescaleSettings s, long fromIndex, long toIndex) {
    return new KeySpace(s, RescaleWorkload.of(s)).bucketLoads(fromIndex, toIndex);
  }

  /** Each task's share of {@code loads} under {@code owners} (bucket → task index 0..tasks-1). */
  public static double[] shares(double[] loads, int[] owners, int tasks) {
    double[] share = new double[tasks];
    double total = Arrays.stream(loads).sum();
    for (int b = 0; b < loads.length; b++) {
      share[owners[b]] += total == 0 ? 0 : loads[b] / total;
    }
    return share;
  }

  /** The first deployment's bucket → task map of an operator of {@code tasks} tasks. */
  public static int[] evenOwners(int tasks) {
    return RoutingTable.even(Buckets.DEFAULT_BUCKETS, tasks).toArray();
  }

  /**
   * A load-aware map: the heaviest bucket first, each to the task with the least load so far (the
   * longest-processing-time rule, within 4/3 of the best possible largest load).
   */
  public static int[] balance(double[] loads, int tasks) {
    Integer[] order = new Integer[loads.length];
    for (int b = 0; b < order.length; b++) {
      order[b] = b;
    }
    Arrays.sort(order, Comparator.comparingDouble((Integer b) -> loads[b]).reversed());
    double[] load = new double[tasks];
    int[] owners = new int[loads.length];
    for (int b : order) {
      int least = 0;
      for (int t = 1; t < tasks; t++) {
        if (load[t] < load[least]) {
          least = t;
        }
      }
      owners[b] = least;
      load[least] += loads[b];
    }
    return owners;
  }

  /**
   * {@code experiment migrate} (the paper's Fig. 12): at the rescale second, every task of the
   * target moves to the next worker (a full task migration); the old tasks hold their state until
   * the new ones have drained it; the run waits until they are released.
   */
  public static RescaleExperiment.Plan migrate(RescaleSettings s, KoalaConfig config) {
    String target = RescaleWorkload.of(s).target();
    Dataflow dataflow = RescaleExperiment.dataflow(s, s.schedule(), new LongAdder());
    DeploymentPlan deployment =
        DeploymentPlan.of(
            "plan",
            ExecutionPlan.of(dataflow.plan()),
            s.workers(),
            EngineSettings.of(config).channels());
    List<RescaleExperiment.Step> steps = new ArrayList<>();
    for (var placed : deployment.placement().entrySet()) {
      TaskId task = placed.getKey();
      if (task.operator().name().equals(target)) {
        int worker = (placed.getValue() + 1) % s.workers();
        steps.add(
            new RescaleExperiment.Step(
                s.rescaleAtSecond(),
                "migrate " + task + " from worker " + placed.getValue() + " to " + worker,
                job -> job.migrate(target, task.index(), worker)));
      }
    }
    return new RescaleExperiment.Plan(s, s.schedule(), steps, steps.size());
  }

  /**
   * {@code experiment multi-operator} (the paper's App. D.4): every target of the workload rescaled
   * {@code from → to} at the same second.
   */
  public static RescaleExperiment.Plan allTargets(RescaleSettings s) {
    List<RescaleExperiment.Step> steps = new ArrayList<>();
    for (String target : RescaleWorkload.of(s).targets()) {
      steps.add(
          new RescaleExperiment.Step(
              s.rescaleAtSecond(),
              "rescale " + target + " " + s.from() + " -> " + s.to(),
              job -> job.rescale(target, s.to())));
    }
    return new RescaleExperiment.Plan(s, s.schedule(), steps);
  }
}
