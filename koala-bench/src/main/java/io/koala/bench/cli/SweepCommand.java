package io.koala.bench.cli;

import io.koala.bench.experiment.Charts;
import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleResult;
import io.koala.bench.experiment.RescaleSettings;
import io.koala.runtime.KoalaConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment sweep} (the paper's §5.4 and Fig. 9): the same rescale at growing total
 * state and a fixed hot set. Koala's recovery and the state it moves should stay flat; a full
 * transfer's grow with the state.
 */
@Command(
    name = "sweep",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the 4 -> 8 rescale once per total key count in --keys-list, with the same"
          + " 50,000 active keys: Q6* with 512 B per key, tasks of 10,000 records/s, 25,000"
          + " records/s doubled after 20 s, rescaled 20 s later, warm-up at up to 40,000"
          + " records/s.",
      "Writes a CSV per run and charts (over time, and recovery and state moved against the"
          + " total state) into --out; the last stdout line is the JSON summary."
    })
final class SweepCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ScenarioOptions scenario;

  @Mixin OutputOptions output;

  @Option(
      names = "--keys-list",
      split = ",",
      defaultValue = "250000,500000,1000000,2000000",
      description = "Total keys of each run (default ${DEFAULT-VALUE}).")
  List<Long> keysList;

  @Option(
      names = "--protocols",
      split = ",",
      defaultValue = "koala",
      description = "Protocols to run at each size (default ${DEFAULT-VALUE}).")
  List<String> protocols;

  static RescaleSettings defaults(String protocol) {
    return Experiments.figure(protocol)
        .keys(250_000)
        .activeKeys(50_000)
        .taskCapacity(10_000)
        .rate(25_000)
        .warmupRate(40_000)
        .build();
  }

  @Override
  public Integer call() throws Exception {
    if (scenario.keys != null) {
      throw new ParameterException(spec.commandLine(), "sweep takes --keys-list, not --keys");
    }
    List<Map.Entry<String, Long>> sizes =
        protocols.stream().flatMap(p -> keysList.stream().map(k -> Map.entry(p, k))).toList();
    List<ExperimentRuns.Run> runs =
        Experiments.runs(
            spec,
            sizes,
            size -> {
              String p = size.getKey();
              RescaleSettings s = scenario.settings(p, defaults(p)).withKeys(size.getValue());
              return new ExperimentRuns.Run(
                  p + "-" + size.getValue(), RescaleExperiment.Plan.rescale(s), KoalaConfig.load());
            });
    Path dir = output.dir("sweep");
    Map<String, RescaleExperiment.Outcome> outcomes =
        Experiments.run(spec, "sweep", runs, dir, output.json);
    RescaleSettings first = runs.get(0).plan().settings();
    List<Path> charts = new ArrayList<>(Charts.overTime(outcomes, Charts.subtitle(first), dir));
    Map<String, List<double[]>> recovery = new LinkedHashMap<>();
    Map<String, List<double[]>> moved = new LinkedHashMap<>();
    List<Map<String, Object>> points = new ArrayList<>();
    for (var o : outcomes.values()) {
      RescaleResult r = o.result();
      double gb = r.stateBytesTotal() / 1e9;
      if (r.backlogRecoveryMs() != null) {
        recovery
            .computeIfAbsent(r.protocol(), k -> new ArrayList<>())
            .add(new double[] {gb, r.backlogRecoveryMs() / 1000});
      }
      moved
          .computeIfAbsent(r.protocol(), k -> new ArrayList<>())
          .add(new double[] {gb, r.stateBytesTransferred() / 1e6});
      moved
          .computeIfAbsent(
              "moved buckets' state (" + r.protocol() + " run)", k -> new ArrayList<>())
          .add(new double[] {gb, r.movedBucketsStateBytes() / 1e6});
      Map<String, Object> point = new LinkedHashMap<>();
      point.put("protocol", r.protocol());
      point.put("keys", r.keys());
      point.put("stateBytesTotal", r.stateBytesTotal());
      point.put("backlogRecoveryMs", r.backlogRecoveryMs());
      point.put("stateBytesTransferred", r.stateBytesTransferred());
      point.put("movedBucketsStateBytes", r.movedBucketsStateBytes());
      point.put("accessedMovedKeysStateBytes", r.accessedMovedKeysStateBytes());
      point.put("kltBytes", r.kltBytes());
      point.put("error", r.error());
      points.add(point);
    }
    charts.add(
        Charts.xy(
            dir.resolve("recovery-vs-state.png"),
            "Backlog recovery against total state — " + Charts.subtitle(first),
            "total state (GB)",
            "recovery (s)",
            recovery));
    charts.add(
        Charts.xy(
            dir.resolve("transferred-vs-state.png"),
            "State transferred against total state — " + Charts.subtitle(first),
            "total state (GB)",
            "state transferred (MB)",
            moved));
    System.err.println("charts written: " + charts);
    Map<String, Object> summary = Experiments.summary("sweep");
    summary.put("activeKeys", first.activeKeys());
    summary.put("points", points);
    return Experiments.printSummary(spec, summary, outcomes);
  }
}
