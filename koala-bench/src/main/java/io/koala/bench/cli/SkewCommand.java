package io.koala.bench.cli;

import io.koala.bench.experiment.Charts;
import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.LoadAwareRebalance;
import io.koala.bench.experiment.Plans;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleResult;
import io.koala.bench.experiment.RescaleSettings;
import io.koala.bench.experiment.RescaleWorkload;
import io.koala.runtime.KoalaConfig;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment skew} (the paper's Fig. 11): a skewed workload overloads one task of four
 * while the four together could keep up; a load-aware rebalance over the same four tasks fixes it.
 */
@Command(
    name = "skew",
    mixinStandardHelpOptions = true,
    description = {
      "Runs Taxi trends (200,000 routes, 20,000 active with Zipf skew, 2,048 B of state each)"
          + " on 4 tasks of 6,000 records/s. Unless --rate is given, the doubled input is set"
          + " midway between what overloads the busiest task under the even bucket map and what"
          + " a load-aware map can serve, as the generator's next records predict them. At the"
          + " rescale second the buckets are rebalanced over the same 4 tasks by the load the"
          + " runtime measured per bucket (its decayed per-bucket counters, half-life "
          + SkewCommand.LOAD_HALF_LIFE
          + " here; heaviest bucket first to the least loaded task).",
      "Writes a CSV per protocol and charts into --out; the last stdout line is the JSON"
          + " summary: the task shares the generator predicts before and after, and per run the"
          + " shares the runtime measured at the rebalance and at the run's end."
    })
final class SkewCommand implements Callable<Integer> {

  /** Records after the warm-up whose keys give the predicted bucket loads. */
  static final long LOAD_SAMPLE = 1_000_000;

  /**
   * {@code koala.metrics.load-half-life} of the runs: short, so that the shares measured at the
   * run's end are those of the load-aware map, not the even one's decaying.
   */
  static final String LOAD_HALF_LIFE = "3 s";

  @Spec CommandSpec spec;

  @Mixin ScenarioOptions scenario;

  @Mixin OutputOptions output;

  @Option(
      names = "--protocols",
      split = ",",
      defaultValue = "koala",
      description = "Protocols to run (default ${DEFAULT-VALUE}).")
  List<String> protocols;

  static RescaleSettings defaults(String protocol) {
    return Experiments.figure(protocol)
        .workload(RescaleWorkload.TAXI)
        .to(4)
        .keys(200_000)
        .activeKeys(20_000)
        .stateBytes(2048)
        .taskCapacity(6_000)
        .rate(6_000)
        .build();
  }

  @Override
  public Integer call() throws Exception {
    Map<String, Object> summary = Experiments.summary("skew");
    Map<String, LoadAwareRebalance> rebalances = new LinkedHashMap<>();
    List<ExperimentRuns.Run> runs =
        Experiments.runs(
            spec,
            protocols,
            p ->
                new ExperimentRuns.Run(
                    p,
                    plan(p, scenario.settings(p, defaults(p)), summary, rebalances),
                    KoalaConfig.load().with("koala.metrics.load-half-life", LOAD_HALF_LIFE)));
    Path dir = output.dir("skew");
    Map<String, RescaleExperiment.Outcome> outcomes =
        Experiments.run(spec, "skew", runs, dir, output.json);
    RescaleSettings first = runs.get(0).plan().settings();
    List<Path> charts =
        Charts.overTime(
            outcomes, first.workload() + ", rebalanced over " + first.from() + " tasks", dir);
    System.err.println("charts written: " + charts);
    Map<String, Object> results = new LinkedHashMap<>();
    for (var o : outcomes.entrySet()) {
      RescaleResult r = o.getValue().result();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("throughputBeforeReconfig", r.throughputBeforeReconfig());
      row.put("backlogRecoveryMs", r.backlogRecoveryMs());
      row.put("stateBytesTransferred", r.stateBytesTransferred());
      row.put("movedBuckets", r.movedBuckets().size());
      row.put("p99BatchLatencyMsBefore", r.p99BatchLatencyMsBefore());
      row.put("p99BatchLatencyMsDuring", r.p99BatchLatencyMsDuring());
      LoadAwareRebalance.Measured measured = rebalances.get(o.getKey()).measured();
      if (measured != null) {
        String target = RescaleWorkload.of(o.getValue().settings()).target();
        int tasks = o.getValue().settings().from();
        row.put("measuredSharesBefore", list(measured.sharesBefore()));
        row.put("plannedSharesAfter", list(measured.plannedSharesAfter()));
        row.put(
            "measuredSharesAfter",
            list(LoadAwareRebalance.taskShares(o.getValue().last().load(target), tasks)));
      }
      row.put("error", r.error());
      results.put(o.getKey(), row);
    }
    summary.put("runs", results);
    return Experiments.printSummary(spec, summary, outcomes);
  }

  /**
   * The plan of protocol {@code p} on {@code s}: the rebalance by measured load (put into {@code
   * rebalances}), and the rate unless given; puts the task shares the generator predicts and the
   * doubled rate into {@code summary}.
   *
   * @throws IllegalArgumentException naming an invalid option
   */
  private RescaleExperiment.Plan plan(
      String p,
      RescaleSettings s,
      Map<String, Object> summary,
      Map<String, LoadAwareRebalance> rebalances) {
    if (s.from() != s.to()) {
      throw new IllegalArgumentException(
          "skew rebalances over the same tasks: --to must equal --from (" + s.from() + ")");
    }
    double[] loads = Plans.bucketLoads(s, s.keys(), s.keys() + LOAD_SAMPLE);
    int[] even = Plans.evenOwners(s.from());
    int[] balanced = Plans.balance(loads, s.from());
    double[] before = Plans.shares(loads, even, s.from());
    double[] after = Plans.shares(loads, balanced, s.from());
    double maxBefore = Arrays.stream(before).max().orElseThrow();
    double maxAfter = Arrays.stream(after).max().orElseThrow();
    if (scenario.rate == null) {
      // doubled: midway between overloading the busiest task before and serving all after
      double doubled = s.taskCapacity() * (1 / maxBefore + 1 / maxAfter) / 2;
      s = s.withRate(doubled / 2);
    }
    System.err.printf(
        Locale.ROOT,
        "%s: predicted task shares of the load under the even map %s, under a load-aware map"
            + " %s;"
            + " doubled input %,.0f/s: busiest task at %.0f%% of its capacity before, %.0f%%"
            + " after%n",
        p,
        percents(before),
        percents(after),
        s.doubledRate(),
        100 * s.doubledRate() * maxBefore / s.taskCapacity(),
        100 * s.doubledRate() * maxAfter / s.taskCapacity());
    summary.put("sharesBefore", list(before));
    summary.put("sharesAfter", list(after));
    summary.put("doubledRate", s.doubledRate());
    LoadAwareRebalance rebalance = new LoadAwareRebalance(RescaleWorkload.of(s).target(), s.from());
    rebalances.put(p, rebalance);
    return Plans.skew(s, rebalance);
  }

  private static List<Double> list(double[] values) {
    return Arrays.stream(values).boxed().toList();
  }

  private static String percents(double[] shares) {
    StringBuilder b = new StringBuilder("[");
    for (double s : shares) {
      b.append(b.length() > 1 ? ", " : "").append(String.format(Locale.ROOT, "%.1f%%", 100 * s));
    }
    return b.append("]").toString();
  }
}
