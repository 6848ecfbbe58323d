package io.koala.bench.cli;

import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleSettings;
import io.koala.connector.Json;
import io.koala.runtime.KoalaConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * What the {@code experiment} commands share: the schedule of the figure experiments, building the
 * runs with an invalid option reported as a usage error, running them, and the JSON summary line
 * that ends a command's output.
 */
final class Experiments {
  private Experiments() {}

  /**
   * The figure experiments' scenario before each sets its scale: {@link RescaleSettings#defaults}
   * with 20 s at the rate, 20 s at twice the rate before the change, and a 5 s tail.
   */
  static RescaleSettings.Builder figure(String protocol) {
    return RescaleSettings.defaults(protocol).toBuilder()
        .steadySeconds(20)
        .doubledSeconds(20)
        .tailSeconds(5);
  }

  /**
   * {@code value}, or the usage error of the command of {@code spec} when an option is invalid.
   *
   * @throws ParameterException with the message of {@code value}'s {@link IllegalArgumentException}
   */
  static <T> T checked(CommandSpec spec, Supplier<T> value) {
    try {
      return value.get();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  /**
   * A run per item, in order: {@code run} builds each and throws {@link IllegalArgumentException}
   * naming an invalid option, which becomes the command's usage error ({@link #checked}).
   */
  static <T> List<ExperimentRuns.Run> runs(
      CommandSpec spec, List<T> items, Function<? super T, ExperimentRuns.Run> run) {
    List<ExperimentRuns.Run> runs = new ArrayList<>();
    for (T item : items) {
      runs.add(checked(spec, () -> run.apply(item)));
    }
    return runs;
  }

  /**
   * A run per protocol, labelled with it, on the runtime's configuration: {@code plan} gives each
   * its plan ({@link #runs}).
   */
  static List<ExperimentRuns.Run> perProtocol(
      CommandSpec spec, List<String> protocols, Function<String, RescaleExperiment.Plan> plan) {
    return runs(spec, protocols, p -> new ExperimentRuns.Run(p, plan.apply(p), KoalaConfig.load()));
  }

  /** A run and the repetition (from 0) it belongs to. */
  record Repetition(ExperimentRuns.Run run, int repetition) {}

  /**
   * {@code repetitions} runs of each of {@code protocols}, repetition by repetition, the first in
   * their order rotated by {@code rotation} and each next one in the order of the one before
   * rotated by one, so that no protocol always goes first, within an invocation or across
   * invocations with different rotations; labelled with the protocol, and with {@code -N} (the
   * repetition, from 1) when there is more than one.
   */
  static List<Repetition> repeated(
      CommandSpec spec,
      List<String> protocols,
      int repetitions,
      int rotation,
      Function<String, RescaleExperiment.Plan> plan) {
    List<Repetition> out = new ArrayList<>();
    for (int r = 0; r < repetitions; r++) {
      List<String> order = new ArrayList<>(protocols);
      Collections.rotate(order, -(r + rotation));
      int rep = r;
      List<ExperimentRuns.Run> runs =
          runs(
              spec,
              order,
              p ->
                  new ExperimentRuns.Run(
                      repetitions == 1 ? p : p + "-" + (rep + 1),
                      plan.apply(p),
                      KoalaConfig.load()));
      for (ExperimentRuns.Run run : runs) {
        out.add(new Repetition(run, r));
      }
    }
    return out;
  }

  /** {@code runs}, each its own and only repetition. */
  static List<Repetition> once(List<ExperimentRuns.Run> runs) {
    return runs.stream().map(r -> new Repetition(r, 0)).toList();
  }

  /**
   * Runs {@code runs} of experiment {@code name} ({@link ExperimentRuns#run}), with progress on
   * stderr, the CSVs in {@code dir} and, when {@code json}, each run's JSON line on stdout.
   */
  static Map<String, RescaleExperiment.Outcome> run(
      CommandSpec spec, String name, List<ExperimentRuns.Run> runs, Path dir, boolean json)
      throws Exception {
    return ExperimentRuns.run(name, runs, dir, System.err, spec.commandLine().getOut(), json);
  }

  /** A summary that starts with {@code "summary": name}. */
  static Map<String, Object> summary(String name) {
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("summary", name);
    return summary;
  }

  /**
   * Prints {@code summary} as the last stdout line.
   *
   * @return the exit code: 1 when a run of {@code outcomes} is invalid
   */
  static int printSummary(
      CommandSpec spec,
      Map<String, Object> summary,
      Map<String, RescaleExperiment.Outcome> outcomes) {
    PrintWriter stdout = spec.commandLine().getOut();
    stdout.println(Json.encode(summary));
    stdout.flush();
    return outcomes.values().stream().allMatch(o -> o.result().error() == null) ? 0 : 1;
  }
}
