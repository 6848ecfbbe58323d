package io.koala.samples.cli;

import io.koala.runtime.KoalaConfig;
import io.koala.samples.experiment.RescaleExperiment;
import io.koala.samples.experiment.RescaleResult;
import io.koala.samples.experiment.RescaleSample;
import io.koala.samples.experiment.RescaleSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
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
      names = "--workload",
      defaultValue = RescaleSettings.Q6STAR,
      description = "Workload (default ${DEFAULT-VALUE}; the only one so far).")
  String workload;

  @Option(
      names = "--protocol",
      defaultValue = RescaleSettings.KOALA,
      description =
          "Reconfiguration protocol: koala, stop-restart, eager or fluid (default"
              + " ${DEFAULT-VALUE}).")
  String protocol;

  @Option(names = "--from", defaultValue = "4", description = "Tasks before (default 4).")
  int from;

  @Option(names = "--to", defaultValue = "8", description = "Tasks after (default 8).")
  int to;

  @Option(
      names = "--workers",
      defaultValue = "4",
      description = "Workers, each in its own ActorSystem over loopback TCP (default 4).")
  int workers;

  @Option(names = "--keys", defaultValue = "2000000", description = "Keys (default 2,000,000).")
  long keys;

  @Option(
      names = "--active-keys",
      defaultValue = "200000",
      description = "Keys touched after the warm-up (default 200,000).")
  long activeKeys;

  @Option(
      names = "--state-bytes",
      defaultValue = "512",
      description = "Bytes of state per key (default 512).")
  int stateBytes;

  @Option(
      names = "--task-capacity",
      defaultValue = "25000",
      description = "Emulated capacity of each target task, records/s (default 25,000).")
  double taskCapacity;

  @Option(
      names = "--rate",
      defaultValue = "60000",
      description = "Input rate after the warm-up, records/s; doubled later (default 60,000).")
  double rate;

  @Option(
      names = "--warmup-rate",
      defaultValue = "0",
      description =
          "Upper bound of the warm-up rate, records/s (default 0: 95%% of --from x"
              + " --task-capacity).")
  double warmupRate;

  @Option(
      names = "--steady-seconds",
      defaultValue = "30",
      description = "Seconds at --rate (default 30).")
  int steadySeconds;

  @Option(
      names = "--doubled-seconds",
      defaultValue = "30",
      description = "Seconds at twice --rate before the rescale (default 30).")
  int doubledSeconds;

  @Option(
      names = "--tail-seconds",
      defaultValue = "10",
      description = "Seconds to go on once the backlog has recovered (default 10).")
  int tailSeconds;

  @Option(
      names = "--timeout-seconds",
      defaultValue = "120",
      description = "Seconds after the rescale after which the run ends (default 120).")
  int timeoutSeconds;

  @Option(names = "--seed", defaultValue = "42", description = "Generator seed (default 42).")
  long seed;

  @Option(names = "--csv", paramLabel = "FILE", description = "Writes the per-second rows here.")
  Path csv;

  @Option(names = "--json", description = "Prints the summary as one JSON line (the last line).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    RescaleSettings settings;
    try {
      settings =
          new RescaleSettings(
              workload,
              protocol,
              from,
              to,
              workers,
              keys,
              activeKeys,
              stateBytes,
              taskCapacity,
              rate,
              warmupRate,
              steadySeconds,
              doubledSeconds,
              tailSeconds,
              timeoutSeconds,
              seed);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    if (csv != null && csv.getParent() != null && !Files.isDirectory(csv.getParent())) {
      throw new ParameterException(
          spec.commandLine(), "--csv " + csv + ": no such directory " + csv.getParent());
    }
    RescaleExperiment.Outcome outcome =
        RescaleExperiment.run(settings, KoalaConfig.load(), System.err);
    if (csv != null) {
      writeCsv(outcome, csv);
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

  private static void writeCsv(RescaleExperiment.Outcome outcome, Path file) throws IOException {
    try (PrintWriter out =
        new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), false)) {
      out.println(RescaleSample.CSV_HEADER);
      for (RescaleSample row : outcome.samples()) {
        out.println(row.toCsv());
      }
      if (out.checkError()) {
        throw new IOException("cannot write " + file);
      }
    }
  }
}
