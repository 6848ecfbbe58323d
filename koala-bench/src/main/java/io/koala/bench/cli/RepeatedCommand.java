package io.koala.bench.cli;

import io.koala.bench.experiment.Charts;
import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.Plans;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleResult;
import io.koala.bench.experiment.RescaleSettings;
import io.koala.bench.experiment.StepResult;
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
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment repeated} (the paper's Fig. 10): one job rescaled again and again as its
 * input rises and falls, and the state each step moved against what a full migration of the moved
 * buckets would move.
 */
@Command(
    name = "repeated",
    mixinStandardHelpOptions = true,
    description = {
      "Rescales Q6* (500,000 keys of 512 B, 100,000 active, tasks of 4,000 records/s) 4 -> 8"
          + " under the doubled input's backlog, then to each of --next every --step-seconds;"
          + " 5 s before each later rescale the input moves to 80% of the next parallelism's"
          + " capacity (a day-like rise and fall).",
      "Writes a CSV per protocol and charts into --out; the last stdout line is the JSON"
          + " summary: per step, the state moved and the state of the moved buckets."
    })
final class RepeatedCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ScenarioOptions scenario;

  @Mixin OutputOptions output;

  @Option(
      names = "--next",
      split = ",",
      defaultValue = "12,9,6",
      description = "Parallelisms after the first rescale, in order (default ${DEFAULT-VALUE}).")
  List<Integer> next;

  @Option(
      names = "--step-seconds",
      defaultValue = "40",
      description = "Seconds between rescales (default ${DEFAULT-VALUE}).")
  int stepSeconds;

  @Option(
      names = "--protocols",
      split = ",",
      defaultValue = "koala,stop-restart",
      description = "Protocols to run (default ${DEFAULT-VALUE}).")
  List<String> protocols;

  static RescaleSettings defaults(String protocol) {
    return Experiments.figure(protocol)
        .keys(500_000)
        .activeKeys(100_000)
        .taskCapacity(4_000)
        .rate(10_000)
        .build();
  }

  @Override
  public Integer call() throws Exception {
    List<ExperimentRuns.Run> runs =
        Experiments.perProtocol(
            spec,
            protocols,
            p -> Plans.repeated(scenario.settings(p, defaults(p)), next, stepSeconds));
    Path dir = output.dir("repeated");
    Map<String, RescaleExperiment.Outcome> outcomes =
        Experiments.run(spec, "repeated", runs, dir, output.json);
    List<Path> charts =
        new ArrayList<>(
            Charts.overTime(
                outcomes, Charts.subtitle(runs.get(0).plan().settings()) + ", then " + next, dir));
    Map<String, List<double[]>> perStep = new LinkedHashMap<>();
    Map<String, Object> runsSummary = new LinkedHashMap<>();
    for (var run : outcomes.entrySet()) {
      RescaleResult r = run.getValue().result();
      List<Map<String, Object>> steps = new ArrayList<>();
      List<double[]> moved = new ArrayList<>();
      List<double[]> full = new ArrayList<>();
      int i = 0;
      for (StepResult step : r.steps()) {
        i++;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("step", step.description());
        row.put("stateBytesTransferred", step.stateBytesTransferred());
        row.put("movedBucketsStateBytes", step.movedBucketsStateBytes());
        row.put("durationMs", step.durationMs());
        row.put("error", step.error());
        steps.add(row);
        moved.add(new double[] {i, step.stateBytesTransferred() / 1e6});
        full.add(new double[] {i, step.movedBucketsStateBytes() / 1e6});
      }
      perStep.put(run.getKey() + ": state moved", moved);
      perStep.putIfAbsent("full migration of the moved buckets", full);
      Map<String, Object> runSummary = new LinkedHashMap<>();
      runSummary.put("backlogRecoveryMs", r.backlogRecoveryMs());
      runSummary.put("tasksReleased", r.taskReleasedMs().size());
      runSummary.put("steps", steps);
      runSummary.put("error", r.error());
      runsSummary.put(run.getKey(), runSummary);
    }
    charts.add(
        Charts.xy(
            dir.resolve("state-per-step.png"),
            "State moved per rescale — 4 → 8 → " + next,
            "rescale (1 = the first)",
            "MB",
            perStep));
    System.err.println("charts written: " + charts);
    Map<String, Object> summary = Experiments.summary("repeated");
    summary.put("runs", runsSummary);
    return Experiments.printSummary(spec, summary, outcomes);
  }
}
