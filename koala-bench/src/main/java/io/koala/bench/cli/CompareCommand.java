package io.koala.bench.cli;

import io.koala.bench.experiment.Charts;
import io.koala.bench.experiment.CompareSummary;
import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleResult;
import io.koala.cli.ProtocolChoice;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
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
      "Runs the rescale experiment's scenario once per protocol and repetition (--runs), one after"
          + " the other in this process, with the same workload, emulated capacities and input"
          + " schedule, plus a control run per repetition: the target at its final parallelism"
          + " from the start, with the capacity before in total until the rescale and the capacity"
          + " after from then on, so that its recovery is the measured ideal. Each repetition"
          + " runs them in another order (rotated), so that no protocol always goes first.",
      "Writes a per-second CSV per run and PNG charts of throughput, source lag and p99 per-batch"
          + " latency (one line per run) into --out. Progress goes to stderr. Stdout has a table"
          + " of the runs (with --json: one JSON line per run, the fields of experiment rescale),"
          + " then a JSON summary line: per protocol, the medians and every run's value of the"
          + " end-to-end recovery, the control's, their ratio, the lowest throughput over the"
          + " throughput before, the state moved over its lower bound, and p99 during over before."
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
      names = "--runs",
      defaultValue = "1",
      description =
          "Repetitions of every protocol and of the control, in rotated order (default"
              + " ${DEFAULT-VALUE}); the summary gives medians.")
  int runs;

  @Option(
      names = "--out",
      defaultValue = "koala-compare",
      description = "Directory for the CSVs and charts (default ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--json", description = "Prints one JSON line per run, then the summary.")
  boolean json;

  @Option(
      names = "--rotation",
      description =
          "Rotates the first repetition's order of the runs by this many places (default: the"
              + " invocation's start time in seconds, so that the protocol that goes first changes"
              + " between invocations; printed on stderr so a run can be repeated).")
  Integer rotation;

  @Override
  public Integer call() throws Exception {
    Set<String> listed = new HashSet<>();
    for (String p : protocols) {
      if (!listed.add(p)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--protocols lists \"" + p + "\" twice");
      }
      if (p.equals(ProtocolChoice.CONTROL)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--protocols: the control runs anyway; list protocols only");
      }
    }
    if (runs < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--runs must be at least 1, got " + runs);
    }
    List<String> all = new ArrayList<>(protocols);
    all.add(ProtocolChoice.CONTROL);
    int rotate =
        rotation != null
            ? Math.floorMod(rotation, all.size())
            : (int) (System.currentTimeMillis() / 1000 % all.size());
    System.err.println("compare: the first repetition's order is rotated by " + rotate);
    return report(
        spec,
        "compare",
        protocols,
        Experiments.repeated(
            spec, all, runs, rotate, p -> RescaleExperiment.Plan.rescale(scenario.rescale(p))),
        out,
        json);
  }

  /**
   * Runs {@code runs} (each a protocol's or the control's run of one repetition, the same
   * scenario), writes their CSVs and charts into {@code out}, and prints a table of their figures
   * (unless {@code json}: each run's JSON line instead) and, last, the JSON summary.
   *
   * @param protocols the protocols, in the order the summary lists them
   * @return the exit code: 1 when a run is invalid (a protocol that could not keep up with the
   *     load, where the control could, is a finding, not an invalid run)
   */
  static int report(
      CommandSpec spec,
      String name,
      List<String> protocols,
      List<Experiments.Repetition> runs,
      Path out,
      boolean json)
      throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    List<ExperimentRuns.Run> plain = runs.stream().map(Experiments.Repetition::run).toList();
    Map<String, RescaleExperiment.Outcome> outcomes = Experiments.run(spec, name, plain, out, json);
    List<Path> charts =
        Charts.overTime(outcomes, Charts.subtitle(plain.get(0).plan().settings()), out);
    System.err.println("charts written: " + charts);
    List<CompareSummary.Run> results = new ArrayList<>();
    for (Experiments.Repetition r : runs) {
      RescaleExperiment.Outcome o = outcomes.get(r.run().label());
      results.add(
          new CompareSummary.Run(
              r.run().label(), o.settings().protocol(), r.repetition(), o.result()));
    }
    int repetitions = runs.stream().mapToInt(Experiments.Repetition::repetition).max().orElse(0);
    CompareSummary summary = CompareSummary.of(name, protocols, repetitions + 1, results);
    if (!json) {
      printTable(stdout, results);
    }
    stdout.println(summary.toJson());
    stdout.flush();
    if (!summary.unsustained().isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "could not keep up with the input before the doubling, where the control did: "
                  + summary.unsustained()
                  + " (a finding about those protocols at this load; their figures are left out)");
    }
    List<String> invalid = new ArrayList<>(summary.invalid());
    if (!invalid.isEmpty()) {
      spec.commandLine().getErr().println("runs invalid: " + invalid + " (see their error field)");
      return 1;
    }
    return 0;
  }

  private static void printTable(PrintWriter out, List<CompareSummary.Run> results) {
    out.printf(
        "%-18s %14s %14s %16s %12s %12s %14s%n",
        "run",
        "recovery ms",
        "e2e recov. ms",
        "state bytes",
        "p99 before",
        "p99 during",
        "min thr./s");
    for (CompareSummary.Run run : results) {
      RescaleResult r = run.result();
      out.printf(
          "%-18s %14s %14s %16d %12.2f %12s %14s%n",
          run.label(),
          r.backlogRecoveryMs(),
          r.endToEndRecoveryMs(),
          r.stateBytesTransferred(),
          r.p99BatchLatencyMsBefore(),
          r.p99BatchLatencyMsDuring(),
          r.minThroughputDuringReconfig());
    }
  }
}
