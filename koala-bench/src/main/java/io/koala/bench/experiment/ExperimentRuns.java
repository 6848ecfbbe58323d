package io.koala.bench.experiment;

import io.koala.runtime.KoalaConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs an experiment's runs one after the other in this process, after an untimed run that warms
 * the JVM up (unless this process has run the workload): each its own job on a fresh runtime, with
 * a progress line on {@code progress}, a per-second CSV {@code NAME-LABEL.csv} in the output
 * directory and, when asked, its JSON result line on stdout.
 */
public final class ExperimentRuns {
  private ExperimentRuns() {}

  /**
   * One run.
   *
   * @param label its name in files, charts and summaries (unique within an experiment)
   * @param plan what it does
   * @param config the runtime's configuration (the plan's protocol is applied on top)
   */
  public record Run(String label, RescaleExperiment.Plan plan, KoalaConfig config) {}

  /**
   * A few seconds of {@code s}'s workload and a rescale with Koala, on a tenth of its keys: run
   * before the measured runs, so that the first of them does not run its first seconds on code not
   * compiled yet while the later ones do (in a fresh JVM the first run's warm-up fell behind).
   */
  static RescaleSettings warmUp(RescaleSettings s) {
    return s.toBuilder()
        .protocol(RescaleSettings.KOALA)
        .to(s.from() == 1 ? 2 : s.from() - 1)
        .keys(Math.max(1, s.keys() / 10))
        .activeKeys(Math.max(1, s.activeKeys() / 10))
        .warmupRate(0)
        .steadySeconds(2)
        .doubledSeconds(2)
        .tailSeconds(0)
        .timeoutSeconds(5)
        .seed(s.seed() + 1)
        .build();
  }

  /**
   * Runs {@code runs} in order, after {@link #warmUp} unless this process has run the first run's
   * workload already ({@link RescaleExperiment#ran}: its code is compiled, as in a later experiment
   * of a test class, or a rerun of invalid runs).
   *
   * @param name the experiment's name, the prefix of the CSV files
   * @param json whether to print each run's result as a JSON line on {@code stdout}
   * @return each run's outcome by label, in order
   * @throws IOException when a CSV cannot be written
   */
  public static Map<String, RescaleExperiment.Outcome> run(
      String name, List<Run> runs, Path out, PrintStream progress, PrintWriter stdout, boolean json)
      throws IOException, InterruptedException {
    Files.createDirectories(out);
    RescaleSettings first = runs.get(0).plan().settings();
    if (RescaleExperiment.ran(first.workload())) {
      progress.println("the JVM is warm: it has run the " + first.workload() + " workload");
    } else {
      progress.println(
          "warming the JVM up with a short untimed run, so that no run pays for compiling the"
              + " code");
      RescaleExperiment.run(warmUp(first), runs.get(0).config(), ExperimentProgress.silent());
    }
    Map<String, RescaleExperiment.Outcome> outcomes = new LinkedHashMap<>();
    int i = 0;
    for (Run run : runs) {
      if (outcomes.containsKey(run.label())) {
        throw new IllegalArgumentException("two runs are labelled " + run.label());
      }
      progress.printf("=== %s: %s (%d of %d)%n", name, run.label(), ++i, runs.size());
      RescaleExperiment.Outcome outcome =
          RescaleExperiment.run(
              run.plan(),
              run.config(),
              ExperimentProgress.forTerminal(progress, run.label(), run.plan().settings()));
      Path csv = out.resolve(name + "-" + run.label() + ".csv");
      RescaleSample.writeCsv(outcome.samples(), csv);
      progress.println("per-second rows written to " + csv);
      outcomes.put(run.label(), outcome);
      if (json) {
        stdout.println(outcome.result().toJson());
        stdout.flush();
      }
    }
    return outcomes;
  }
}
