package io.koala.bench.cli;

import io.koala.bench.experiment.Charts;
import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.Plans;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleResult;
import io.koala.bench.experiment.RescaleSettings;
import io.koala.runtime.KoalaConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment migrate} (the paper's Fig. 12): every task of the target moves to another
 * worker, and the old tasks' state is drained by fetch on demand only, or with N keys piggybacked
 * on every fetch.
 */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Runs Q6* (1,000,000 keys of 512 B, 100,000 active) on 4 tasks of 10,000 records/s at"
          + " 15,000 records/s doubled after 20 s, then migrates every task of the target to the"
          + " next worker; once per --piggyback value (0: fetch on demand only; N: N keys drained"
          + " with every fetch to an old task, koala.reconfiguration.drain.piggyback-keys). A run"
          + " ends once every old task is released, or 60 s after the migrations.",
      "Writes a CSV per run and charts into --out; the last stdout line is the JSON summary,"
          + " with when each old task was released."
    })
final class MigrateCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ScenarioOptions scenario;

  @Mixin OutputOptions output;

  @Option(
      names = "--piggyback",
      split = ",",
      defaultValue = "0,25,50",
      description = "Keys piggybacked per fetch, one run each (default ${DEFAULT-VALUE}).")
  List<Integer> piggyback;

  static RescaleSettings defaults() {
    return Experiments.figure(RescaleSettings.KOALA)
        .to(4)
        .keys(1_000_000)
        .activeKeys(100_000)
        .taskCapacity(10_000)
        .rate(15_000)
        .timeoutSeconds(60)
        .build();
  }

  @Override
  public Integer call() throws Exception {
    List<ExperimentRuns.Run> runs =
        Experiments.runs(
            spec,
            piggyback,
            n -> {
              RescaleSettings s = scenario.settings(RescaleSettings.KOALA, defaults());
              if (s.from() != s.to()) {
                throw new IllegalArgumentException(
                    "migrate keeps the parallelism: --to must equal --from (" + s.from() + ")");
              }
              KoalaConfig config =
                  KoalaConfig.load().with("koala.reconfiguration.drain.piggyback-keys", n);
              return new ExperimentRuns.Run(
                  n == 0 ? "on-demand" : "N=" + n, Plans.migrate(s, config), config);
            });
    Path dir = output.dir("migrate");
    Map<String, RescaleExperiment.Outcome> outcomes =
        Experiments.run(spec, "migrate", runs, dir, output.json);
    RescaleSettings first = runs.get(0).plan().settings();
    List<Path> charts =
        Charts.overTime(
            outcomes, first.workload() + ", every task of " + first.from() + " migrated", dir);
    System.err.println("charts written: " + charts);
    Map<String, Object> summary = Experiments.summary("migrate");
    summary.put("tasks", first.from());
    Map<String, Object> results = new LinkedHashMap<>();
    for (var o : outcomes.entrySet()) {
      RescaleResult r = o.getValue().result();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("tasksReleased", r.taskReleasedMs().size());
      row.put(
          "lastReleasedMs",
          r.taskReleasedMs().isEmpty()
              ? null
              : r.taskReleasedMs().get(r.taskReleasedMs().size() - 1));
      row.put("stateBytesTransferred", r.stateBytesTransferred());
      row.put("backlogRecoveryMs", r.backlogRecoveryMs());
      row.put("minThroughputDuringReconfig", r.minThroughputDuringReconfig());
      row.put("p99BatchLatencyMsBefore", r.p99BatchLatencyMsBefore());
      row.put("p99BatchLatencyMsDuring", r.p99BatchLatencyMsDuring());
      row.put("error", r.error());
      results.put(o.getKey(), row);
    }
    summary.put("runs", results);
    return Experiments.printSummary(spec, summary, outcomes);
  }
}
