package io.koala.bench.cli;

import io.koala.bench.experiment.ExperimentProgress;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleResult;
import io.koala.bench.experiment.RescaleSample;
import io.koala.bench.experiment.RescaleSettings;
import io.koala.runtime.KoalaConfig;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment rescale}: backlog recovery after a live scale-out (the paper's §5.2). See
 * {@link RescaleExperiment}; with --json the last stdout line is the {@link RescaleResult}.
 */
@Command(
    name = "rescale",
    mixinStandardHelpOptions = true,
    description = {
      "Warms up the state of every key, runs at --rate, doubles the rate until a backlog builds,"
          + " rescales the target operator from --from to --to tasks, and measures how the"
          + " backlog recovers and how much state moved.",
      "Progress goes to stderr; with --json the last stdout line is one JSON object."
    })
final class RescaleCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--protocol",
      defaultValue = RescaleSettings.KOALA,
      description =
          "Reconfiguration protocol: koala, stop-restart, eager or fluid, or remote (the remote"
              + " state backend; default ${DEFAULT-VALUE}).")
  String protocol;

  @Mixin ScenarioOptions scenario;

  @Option(names = "--csv", paramLabel = "FILE", description = "Writes the per-second rows here.")
  Path csv;

  @Option(names = "--json", description = "Prints the summary as one JSON line (the last line).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    RescaleSettings settings = Experiments.checked(spec, () -> scenario.rescale(protocol));
    if (csv != null && csv.getParent() != null && !Files.isDirectory(csv.getParent())) {
      throw new ParameterException(
          spec.commandLine(), "--csv " + csv + ": no such directory " + csv.getParent());
    }
    RescaleExperiment.Outcome outcome =
        RescaleExperiment.run(
            settings,
            KoalaConfig.load(),
            ExperimentProgress.forTerminal(System.err, settings.protocol(), settings));
    if (csv != null) {
      RescaleSample.writeCsv(outcome.samples(), csv);
      System.err.println("per-second rows written to " + csv);
    }
    RescaleResult r = outcome.result();
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(r.toJson());
    } else {
      for (var c : RescaleResult.class.getRecordComponents()) {
        out.printf("%-30s %s%n", c.getName(), c.getAccessor().invoke(r));
      }
    }
    out.flush();
    if (r.error() != null) {
      spec.commandLine().getErr().println("experiment invalid: " + r.error());
      return 1;
    }
    return 0;
  }
}
