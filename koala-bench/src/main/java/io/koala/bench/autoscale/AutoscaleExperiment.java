package io.koala.bench.autoscale;

import io.koala.bench.experiment.Charts;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code koala experiment autoscale}: the diurnal input run four ways in one process, one after the
 * other — {@code koala} (the autoscaler, Koala's live reconfiguration), {@code restart} (the same
 * policy, its decisions carried out by stop-and-restart), {@code static-peak} and {@code
 * static-mean} (no autoscaler, the tasks that serve the peak or the mean rate) — and their summary:
 * per run the fraction of seconds whose end-to-end lag stayed under 1 s, the task-seconds used, the
 * state moved, the decisions, and whether the run is valid; and the proportional ideal's
 * task-seconds.
 */
public final class AutoscaleExperiment {
  /** The ways, in the order they run. */
  public static final List<String> WAYS = List.of("koala", "restart", "static-peak", "static-mean");

  private AutoscaleExperiment() {}

  /** The way called {@code name} in scenario {@code s}. */
  public static AutoscaleRun.Way way(String name, AutoscaleSettings s) {
    return switch (name) {
      case "koala" -> new AutoscaleRun.Way(name, true, "koala", s.initialParallelism());
      case "restart" -> new AutoscaleRun.Way(name, true, "stop-restart", s.initialParallelism());
      case "static-peak" -> new AutoscaleRun.Way(name, false, "koala", s.peakParallelism());
      case "static-mean" -> new AutoscaleRun.Way(name, false, "koala", s.meanParallelism());
      default -> throw new IllegalArgumentException("no way '" + name + "'; the ways are " + WAYS);
    };
  }

  /**
   * Runs {@code ways} of {@code s}, writing a CSV per run and the charts into {@code dir}; returns
   * the summary, whose JSON is the command's last line.
   */
  public static Map<String, Object> run(
      AutoscaleSettings s, List<String> ways, Path dir, Consumer<String> progress)
      throws InterruptedException, IOException {
    DiurnalInput input = new DiurnalInput(s);
    long[] expected = input.expectedCounts();
    Files.createDirectories(dir);
    progress.accept(
        String.format(
            Locale.ROOT,
            "%d cycles of %d s after %d s of warm-up: %,.0f to %,.0f records/s, %,d records over"
                + " %,d keys (Zipf %.2f, hot keys moving at each peak), %d B of state per key;"
                + " tasks of %,.0f records/s: %d for the peak, %d for the mean; ideal %,d"
                + " task-seconds",
            s.cycles(),
            s.periodSeconds(),
            s.warmupSeconds(),
            s.baseRate(),
            4 * s.baseRate(),
            input.records(),
            s.keys(),
            s.zipfExponent(),
            s.stateBytes(),
            s.taskCapacity(),
            s.peakParallelism(),
            s.meanParallelism(),
            input.idealTaskSeconds()));
    Map<String, AutoscaleRun.Result> results = new LinkedHashMap<>();
    for (String name : ways) {
      AutoscaleRun.Way way = way(name, s);
      progress.accept("run " + name + ": " + way);
      AutoscaleRun.Result r = AutoscaleRun.run(s, input, expected, way, progress);
      results.put(name, r);
      writeCsv(r, dir.resolve(name + ".csv"));
      progress.accept(name + ": " + json(r));
    }
    charts(results, dir);
    return summary(s, input, results);
  }

  /** The summary of {@code results}. */
  static Map<String, Object> summary(
      AutoscaleSettings s, DiurnalInput input, Map<String, AutoscaleRun.Result> results) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("experiment", "autoscale");
    out.put("cycles", s.cycles());
    out.put("periodSeconds", s.periodSeconds());
    out.put("baseRate", s.baseRate());
    out.put("taskCapacity", s.taskCapacity());
    out.put("headroom", s.headroom());
    out.put("scaleInHysteresis", s.scaleInHysteresis());
    out.put("cooldownSeconds", s.cooldownSeconds());
    out.put("leadSeconds", s.leadSeconds());
    out.put("records", input.records());
    out.put("idealTaskSeconds", input.idealTaskSeconds());
    Map<String, Object> runs = new LinkedHashMap<>();
    results.forEach((name, r) -> runs.put(name, json(r)));
    out.put("runs", runs);
    AutoscaleRun.Result koala = results.get("koala");
    AutoscaleRun.Result restart = results.get("restart");
    if (koala != null) {
      Map<String, Object> targets = new LinkedHashMap<>();
      targets.put("lagUnder1sIn99PercentOfSeconds", koala.lagUnder1sFraction() >= 0.99);
      targets.put(
          "taskSecondsAtMost1.2xIdeal", koala.taskSeconds() <= 1.2 * input.idealTaskSeconds());
      if (restart != null) {
        targets.put(
            "betterLagThanRestart", koala.lagUnder1sFraction() > restart.lagUnder1sFraction());
      }
      targets.put("noFlapping", !koala.flapped());
      out.put("targets", targets);
    }
    return out;
  }

  /** One run's figures, as the summary lists them. */
  static Map<String, Object> json(AutoscaleRun.Result r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("lagUnder1sFraction", round(r.lagUnder1sFraction(), 4));
    m.put("maxLagSeconds", round(r.maxLagSeconds(), 2));
    m.put("taskSeconds", r.taskSeconds());
    m.put("stateBytesTransferred", r.stateBytesTransferred());
    m.put("decisions", r.decisions());
    LongSummaryStatistics epochs =
        r.reconfigurationMillis().stream().mapToLong(Long::longValue).summaryStatistics();
    if (epochs.getCount() > 0) {
      m.put("reconfigurationMillis", List.of(round(epochs.getAverage(), 0), epochs.getMax()));
    }
    if (!r.stoppedSeconds().isEmpty()) {
      m.put("stoppedSeconds", r.stoppedSeconds());
    }
    m.put("flapped", r.flapped());
    m.put("valid", r.valid());
    if (!r.valid()) {
      m.put("invalidReason", r.invalidReason());
    }
    m.put("loadAverage", List.of(round(r.loadAverageBefore(), 2), round(r.loadAverageAfter(), 2)));
    return m;
  }

  private static double round(double v, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }

  private static void writeCsv(AutoscaleRun.Result r, Path file) throws IOException {
    try (PrintWriter out =
        new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), false)) {
      out.println("second,inputRate,processedRate,lagSeconds,parallelism,stalls");
      for (AutoscaleRun.Second s : r.seconds()) {
        out.printf(
            Locale.ROOT,
            "%d,%.0f,%.0f,%.3f,%d,\"%s\"%n",
            s.second(),
            s.inputRate(),
            s.processedRate(),
            s.lagSeconds(),
            s.parallelism(),
            s.stalls());
      }
      if (out.checkError()) {
        throw new IOException("could not write " + file);
      }
    }
  }

  private static void charts(Map<String, AutoscaleRun.Result> results, Path dir)
      throws IOException {
    Map<String, List<double[]>> rate = new LinkedHashMap<>();
    Map<String, List<double[]>> tasks = new LinkedHashMap<>();
    Map<String, List<double[]>> lag = new LinkedHashMap<>();
    boolean input = false;
    for (var e : results.entrySet()) {
      List<double[]> in = new ArrayList<>();
      List<double[]> done = new ArrayList<>();
      List<double[]> p = new ArrayList<>();
      List<double[]> l = new ArrayList<>();
      for (AutoscaleRun.Second s : e.getValue().seconds()) {
        in.add(new double[] {s.second(), s.inputRate()});
        done.add(new double[] {s.second(), s.processedRate()});
        p.add(new double[] {s.second(), s.parallelism()});
        l.add(new double[] {s.second(), s.lagSeconds()});
      }
      if (!input) {
        rate.put("input", in);
        input = true;
      }
      rate.put(e.getKey() + " processed", done);
      tasks.put(e.getKey(), p);
      lag.put(e.getKey(), l);
    }
    String x = "seconds since the job started";
    Charts.lines(dir.resolve("rate.png"), "Input and processed rate", x, "records/s", rate);
    Charts.lines(dir.resolve("parallelism.png"), "Tasks of the keyed operator", x, "tasks", tasks);
    Charts.lines(dir.resolve("lag.png"), "End-to-end lag", x, "seconds", lag);
  }
}
