package io.koala.samples.cli;

import io.koala.runtime.KoalaConfig;
import io.koala.samples.experiment.CompareCharts;
import io.koala.samples.experiment.CompareSummary;
import io.koala.samples.experiment.RescaleExperiment;
import io.koala.samples.experiment.RescaleResult;
import io.koala.samples.experiment.RescaleSample;
import io.koala.samples.experiment.RescaleSettings;
import java.io.PrintWriter;
import java.nio.file.Files;
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
      "Progress goes to stderr; with --json stdout has one JSON line per protocol (the fields of"
          + " experiment rescale), then a summary line with each protocol's ratios to Koala."
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
    Map<String, RescaleSettings> runs = new LinkedHashMap<>();
    for (String p : protocols) {
      try {
        if (runs.put(p, scenario.settings(p)) != null) {
          throw new IllegalArgumentException("--protocols lists \"" + p + "\" twice");
        }
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage(), e);
      }
    }
    Files.createDirectories(out);
    PrintWriter stdout = spec.commandLine().getOut();
    Map<String, RescaleResult> results = new LinkedHashMap<>();
    Map<String, List<RescaleSample>> samples = new LinkedHashMap<>();
    int i = 0;
    for (Map.Entry<String, RescaleSettings> run : runs.entrySet()) {
      String p = run.getKey();
      System.err.printf("=== compare: protocol %s (%d of %d)%n", p, ++i, runs.size());
      RescaleExperiment.Outcome outcome =
          RescaleExperiment.run(run.getValue(), KoalaConfig.load(), System.err);
      Path csv = out.resolve("compare-" + p + ".csv");
      RescaleSample.writeCsv(outcome.samples(), csv);
      System.err.println("per-second rows written to " + csv);
      results.put(p, outcome.result());
      samples.put(p, outcome.samples());
      if (json) {
        stdout.println(outcome.result().toJson());
        stdout.flush();
      }
    }
    List<Path> charts = CompareCharts.write(samples, runs.values().iterator().next(), out);
    System.err.println("charts written: " + charts);
    CompareSummary summary = CompareSummary.of(results);
    if (json) {
      stdout.println(summary.toJson());
    } else {
      printTable(stdout, results);
    }
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
