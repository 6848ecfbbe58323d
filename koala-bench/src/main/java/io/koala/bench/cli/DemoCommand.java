package io.koala.bench.cli;

import io.koala.bench.experiment.Charts;
import io.koala.bench.experiment.ExperimentProgress;
import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.HtmlReport;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleResult;
import io.koala.bench.experiment.RescaleSettings;
import io.koala.bench.experiment.RescaleWorkload;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code koala demo}: the README's main job. The Twitch-like viewer-loyalty dataflow on 4 workers
 * builds up state, its input doubles until a backlog builds, and the loyalty calculator is rescaled
 * from 4 to 8 tasks while it runs: first with Koala, then, for contrast, the same scenario with
 * stop-and-restart. A live status line shows each run; at the end a summary table and an HTML
 * report with the charts.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the demo: the Twitch-like viewer-loyalty dataflow on 4 workers (each in its own"
          + " ActorSystem, state in LMDB); its input doubles to build a backlog, then the loyalty"
          + " calculator is rescaled 4 -> 8 live with Koala, and the same scenario runs again with"
          + " stop-and-restart for contrast.",
      "Prints a summary table and writes an HTML report with the charts (--out)."
    })
final class DemoCommand implements Callable<Integer> {

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--quick", description = "A short run: about a minute instead of a few.")
  boolean quick;

  /**
   * A smoke run for tests (hidden): the quick scenario's shape on 2,000 keys, 4 tasks of 500
   * records/s and a few seconds a phase, so that the demo runs end to end in well under a minute;
   * its figures mean little.
   */
  @Option(names = "--smoke", hidden = true)
  boolean smoke;

  @Option(
      names = "--out",
      defaultValue = "koala-demo-report",
      description = "Directory of the report (default ${DEFAULT-VALUE}).")
  Path out;

  /** The protocols the demo runs, in this order. */
  static final List<String> PROTOCOLS = List.of("koala", "stop-restart");

  /**
   * The demo's scenario: every key written once in the warm-up, a hot tenth of them after; the
   * doubled input exceeds the 4 tasks' capacity and stays under the 8 tasks'. With {@code smoke},
   * the {@link #smoke} one.
   */
  static RescaleSettings scenario(boolean quick, boolean smoke, String protocol) {
    if (smoke) { // see the --smoke option
      double rate = 2.5 * 500;
      return scenario(true, false, protocol).toBuilder()
          .keys(2_000)
          .activeKeys(200)
          .taskCapacity(500)
          .rate(rate)
          .warmupRate(rate)
          .steadySeconds(3)
          .doubledSeconds(4)
          .tailSeconds(1)
          .build();
    }
    long keys = quick ? 100_000 : 400_000;
    double taskCapacity = quick ? 6_000 : 8_000;
    double rate = 2.5 * taskCapacity; // doubled: 5 tasks' worth, more than 4 can do, under 8
    return RescaleSettings.defaults(protocol).toBuilder()
        .workload(RescaleWorkload.TWITCH)
        .keys(keys)
        .activeKeys(keys / 10)
        .stateBytes(4096)
        .taskCapacity(taskCapacity)
        .rate(rate)
        // the warm-up writes every key's state once, at the steady rate: at 95% of the capacity
        // (the default, 0) the long run's 1.6 GB fell behind on a 2-core machine, and the quick
        // run, on a JVM not yet warm, left a backlog that made its recovery level meaningless
        .warmupRate(rate)
        .steadySeconds(quick ? 8 : 20)
        .doubledSeconds(quick ? 6 : 15)
        .tailSeconds(quick ? 2 : 5)
        .timeoutSeconds(quick ? 30 : 90)
        .build();
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    RescaleSettings first = scenario(quick, smoke, PROTOCOLS.get(0));
    stdout.printf(
        Locale.ROOT,
        "Koala demo: %,d Twitch streamers with %d B of state each (%s in LMDB), the viewer-loyalty"
            + " calculator as 4 tasks on 4 workers; input at %,.0f/s, then doubled to %,.0f/s (over the"
            + " capacity of 4 tasks, %,.0f/s) and rescaled to 8 tasks. Runs: %s.%n%n",
        first.keys(),
        first.stateBytes(),
        ExperimentProgress.megabytes(first.keys() * first.stateBytes()),
        first.rate(),
        first.doubledRate(),
        first.capacityBefore(),
        String.join(", then ", PROTOCOLS));
    stdout.flush();
    Map<String, RescaleExperiment.Outcome> outcomes = rerunInvalid(run(PROTOCOLS, stdout), stdout);
    Map<String, RescaleResult> results = new LinkedHashMap<>();
    outcomes.forEach((p, o) -> results.put(p, o.result()));
    stdout.println();
    List<Path> charts = Charts.overTime(outcomes, Charts.subtitle(first), out);
    List<String> header =
        List.of(
            "run",
            "recovered after",
            "state moved",
            "needed",
            "lowest throughput",
            "p99 before",
            "p99 recovering");
    List<List<String>> rows = new ArrayList<>();
    results.forEach((p, r) -> rows.add(row(p, r, first.timeoutSeconds())));
    stdout.println("Summary (one rescale 4 -> 8 each, same input, same machine):");
    printTable(stdout, header, rows);
    List<String> notes = new ArrayList<>();
    notes.add(
        "Recovered after: from the rescale until the backlog (records available at the source,"
            + " not yet processed by the calculator) is back at its level before the doubling. Needed: the state of the moved keys the input touched after the rescale,"
            + " the least any protocol must move. Lowest throughput: the target's lowest 1-s"
            + " throughput while recovering. p99: the target's per-batch latency in the 10 s"
            + " before the rescale and while recovering.");
    notes.addAll(notes(results));
    notes.forEach(stdout::println);
    Path index = out.resolve("index.html").toAbsolutePath();
    HtmlReport report =
        HtmlReport.titled("Koala demo: a live rescale 4 → 8 under backlog")
            .paragraph(
                String.format(
                    Locale.ROOT,
                    "The Twitch-like viewer-loyalty calculator keeps %d B of state for each of %,d"
                        + " streamers, %,d of them active. The input runs at %,.0f records/s, then"
                        + " doubles to %,.0f/s, more than 4 tasks of %,.0f/s can process, so a"
                        + " backlog builds; at %d s the operator is rescaled to 8 tasks. Koala"
                        + " hands over ownership of the moved buckets at once and moves a key's"
                        + " state when its new owner first touches it; stop-and-restart pauses"
                        + " the input and moves every key of the moved buckets first. Both runs"
                        + " follow a short untimed run that warms the JVM up. Machine: %d cores.",
                    first.stateBytes(),
                    first.keys(),
                    first.activeKeys(),
                    first.rate(),
                    first.doubledRate(),
                    first.taskCapacity(),
                    first.rescaleAtSecond(),
                    Runtime.getRuntime().availableProcessors()))
            .table(header, rows);
    for (String note : notes) {
      report.paragraph(note);
    }
    report.heading("Over time (seconds since the rescale request)");
    for (Path chart : charts) {
      report.chart(chart);
    }
    report.paragraph(
        "Per-second rows: "
            + String.join(", ", PROTOCOLS.stream().map(p -> "demo-" + p + ".csv").toList())
            + ". Checking that reconfigured runs produce exactly the output of an undisturbed one"
            + " is the job of ./koala verify.");
    report.write(index);
    stdout.println();
    stdout.println("Report with " + charts.size() + " charts: " + index);
    stdout.flush();
    return 0;
  }

  /**
   * Runs each invalid run of {@code outcomes} once more (a busy moment of the machine, a JVM not
   * yet warm); a run invalid again stays invalid, and its row says so instead of figures.
   */
  private Map<String, RescaleExperiment.Outcome> rerunInvalid(
      Map<String, RescaleExperiment.Outcome> outcomes, PrintWriter stdout) throws Exception {
    Map<String, RescaleExperiment.Outcome> result = new LinkedHashMap<>(outcomes);
    for (Map.Entry<String, RescaleExperiment.Outcome> e : outcomes.entrySet()) {
      RescaleResult r = e.getValue().result();
      if (r.error() == null) {
        continue;
      }
      String p = e.getKey();
      stdout.printf("The %s run is not valid (%s); running it once more.%n", p, r.error());
      stdout.flush();
      result.put(p, run(List.of(p), stdout).get(p));
    }
    return result;
  }

  /** Runs the demo's scenario once with each of {@code protocols}, in that order. */
  private Map<String, RescaleExperiment.Outcome> run(List<String> protocols, PrintWriter stdout)
      throws Exception {
    List<ExperimentRuns.Run> runs =
        Experiments.perProtocol(
            spec, protocols, p -> RescaleExperiment.Plan.rescale(scenario(quick, smoke, p)));
    return ExperimentRuns.run("demo", runs, out, System.out, stdout, false);
  }

  /**
   * The summary row of one run that ended {@code timeoutSeconds} after the rescale at most; an
   * invalid run shows no figures.
   */
  static List<String> row(String protocol, RescaleResult r, int timeoutSeconds) {
    if (r.error() != null) {
      return List.of(protocol, "invalid (below)", "-", "-", "-", "-", "-");
    }
    return List.of(
        protocol,
        r.endToEndRecoveryMs() == null
            ? "not within " + timeoutSeconds + " s"
            : String.format(Locale.ROOT, "%.1f s", r.endToEndRecoveryMs() / 1000),
        ExperimentProgress.megabytes(r.stateBytesTransferred()),
        ExperimentProgress.megabytes(r.accessedMovedKeysStateBytes()),
        r.minThroughputDuringReconfig() == null
            ? "-"
            : String.format(Locale.ROOT, "%,.0f/s", r.minThroughputDuringReconfig()),
        String.format(Locale.ROOT, "%.1f ms", r.p99BatchLatencyMsBefore()),
        r.p99BatchLatencyMsDuring() == null
            ? "-"
            : String.format(Locale.ROOT, "%.1f ms", r.p99BatchLatencyMsDuring()));
  }

  /** Sentences on the runs: Koala against stop-and-restart, and any invalid run. */
  static List<String> notes(Map<String, RescaleResult> results) {
    List<String> notes = new ArrayList<>();
    RescaleResult koala = results.get("koala");
    RescaleResult restart = results.get("stop-restart");
    if (koala != null && restart != null && koala.stateBytesTransferred() > 0) {
      notes.add(
          String.format(
              Locale.ROOT,
              "Stop-and-restart moved %.1fx the state Koala moved.",
              (double) restart.stateBytesTransferred() / koala.stateBytesTransferred()));
    }
    results.forEach(
        (p, r) -> {
          if (r.error() != null) {
            notes.add("The " + p + " run is not valid: " + r.error() + ".");
          }
        });
    return notes;
  }

  private static void printTable(PrintWriter out, List<String> header, List<List<String>> rows) {
    int[] width = new int[header.size()];
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    for (List<String> row : all) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    for (List<String> row : all) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        String cell = row.get(i);
        line.append(i == 0 ? String.format("%-" + width[i] + "s", cell) : "  ")
            .append(i == 0 ? "" : String.format("%" + width[i] + "s", cell));
      }
      out.println(line);
    }
  }
}
