package io.koala.samples.cli;

import io.koala.samples.experiment.Charts;
import io.koala.samples.experiment.CompareSummary;
import io.koala.samples.experiment.ExperimentRuns;
import io.koala.samples.experiment.RescaleExperiment;
import io.koala.samples.experiment.RescaleResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment compare}: the rescale experiment once per protocol, in one process, on
 * the same scenario (DESIGN §4.7; the paper's Fig. 6–8).
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the rescale experiment's scenario once per protocol, one after the other in this"
          + " process, with the same workload, emulated capacities and input schedule. Writes a"
          + " per-second CSV per protocol and PNG charts of throughput, source lag and p99"
          + " per-batch latency (one line per protocol) into --out.",
      "Progress goes to stderr. Stdout has a table of the runs (with --json: one JSON line per"
          + " protocol, the fields of experiment rescale), then a JSON summary line with each"
          + " protocol's ratios to Koala."
    })
final class CompareCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ScenarioOptions scenario;

  @Option(
      names = "--protocols",
      split = ",",
      defaultValue = "koala,stop-restart,eager,fluid,remote",
      description = "Protocols to run, in this order (default ${DEFAULT-VALUE}).")
  List<String> protocols;

  @Option(
      names = "--out",
      defaultValue = "koala-compare",
      description = "Directory for the CSVs and charts (default ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--json", description = "Prints one JSON line per protocol, then the summary.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    Set<String> listed = new HashSet<>();
    List<ExperimentRuns.Run> runs =
        Experiments.perProtocol(
            spec,
            protocols,
            p -> {
              if (!listed.add(p)) {
                throw new IllegalArgumentException("--protocols lists \"" + p + "\" twice");
              }
              return RescaleExperiment.Plan.rescale(scenario.rescale(p));
            });
    return report(spec, "compare", runs, out, json);
  }

  /**
   * Runs {@code runs} (one per protocol, the same scenario), writes their CSVs and charts into
   * {@code out}, and prints a table of their figures (unless {@code json}: each run's JSON line
   * instead) and, last, the JSON summary of their ratios to Koala.
   *
   * @return the exit code: 1 when a run is invalid
   */
  static int report(
      CommandSpec spec, String name, List<ExperimentRuns.Run> runs, Path out, boolean json)
      throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    Map<String, RescaleExperiment.Outcome> outcomes = Experiments.run(spec, name, runs, out, json);
    List<Path> charts =
        Charts.overTime(outcomes, Charts.subtitle(runs.get(0).plan().settings()), out);
    System.err.println("charts written: " + charts);
    Map<String, RescaleResult> results = new LinkedHashMap<>();
    outcomes.forEach((p, o) -> results.put(p, o.result()));
    CompareSummary summary = CompareSummary.of(name, results);
    if (!json) {
      printTable(stdout, results);
    }
    stdout.println(summary.toJson());
    stdout.flush();
    List<String> invalid = new ArrayList<>(summary.invalid());
    if (!invalid.isEmpty()) {
      spec.commandLine().getErr().println("runs invalid: " + invalid + " (see their error field)");
      return 1;
    }
    return 0;
  }

  private static void printTable(PrintWriter out, Map<String, RescaleResult> results) {
    out.printf(
        "%-14s %14s %16s %12s %12s %14s%n",
        "protocol", "recovery ms", "state bytes", "p99 before", "p99 during", "min thr./s");
    results.forEach(
        (p, r) ->
            out.printf(
                "%-14s %14s %16d %12.2f %12s %14s%n",
                p,
                r.backlogRecoveryMs(),
                r.stateBytesTransferred(),
                r.p99BatchLatencyMsBefore(),
                r.p99BatchLatencyMsDuring(),
                r.minThroughputDuringReconfig()));
  }
}
