package io.koala.bench.cli;

import io.koala.bench.autoscale.AutoscaleExperiment;
import io.koala.bench.autoscale.AutoscaleSettings;
import io.koala.connector.Json;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code koala experiment autoscale}: see {@link AutoscaleExperiment}. */
@Command(
    name = "autoscale",
    mixinStandardHelpOptions = true,
    description = {
      "A diurnal input (after a warm-up, cycles from the base rate to 4 times it and back, the hot"
          + " keys of a Zipf distribution moving at each peak) into a keyed count with an emulated"
          + " per-task capacity, run four ways one after the other: koala (the autoscaler,"
          + " koala.autoscaler, carrying out its decisions live), restart (the same policy, its"
          + " decisions carried out by stop-and-restart), static-peak and static-mean (no"
          + " autoscaler; the tasks that serve the peak or the mean rate).",
      "Writes a CSV per run and charts of rate, parallelism and lag into --out. The last line is"
          + " JSON: idealTaskSeconds (each second's rate over the task capacity, rounded up, summed)"
          + " and per run lagUnder1sFraction, taskSeconds, stateBytesTransferred, decisions and"
          + " valid (the job finished and every key's final count equals its records)."
    })
final class AutoscaleCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--cycles", description = "Diurnal cycles (default 3).")
  int cycles = AutoscaleSettings.DEFAULTS.cycles();

  @Option(names = "--period-seconds", description = "Seconds per cycle (default 90).")
  int periodSeconds = AutoscaleSettings.DEFAULTS.periodSeconds();

  @Option(names = "--base-rate", description = "Records/s at the cycle's low (default 2000).")
  double baseRate = AutoscaleSettings.DEFAULTS.baseRate();

  @Option(
      names = "--task-capacity",
      description = "Emulated records/s of each task of the keyed operator (default 1000).")
  double taskCapacity = AutoscaleSettings.DEFAULTS.taskCapacity();

  @Option(names = "--keys", description = "Distinct keys (default 100000).")
  int keys = AutoscaleSettings.DEFAULTS.keys();

  @Option(names = "--zipf", description = "Zipf exponent of the keys (default 0.8).")
  double zipf = AutoscaleSettings.DEFAULTS.zipfExponent();

  @Option(names = "--state-bytes", description = "Bytes of state per key (default 512).")
  int stateBytes = AutoscaleSettings.DEFAULTS.stateBytes();

  @Option(names = "--headroom", description = "koala.autoscaler.headroom (default 1.1).")
  double headroom = AutoscaleSettings.DEFAULTS.headroom();

  @Option(
      names = "--scale-in-hysteresis",
      description = "koala.autoscaler.scale-in-hysteresis (default 0.1).")
  double hysteresis = AutoscaleSettings.DEFAULTS.scaleInHysteresis();

  @Option(names = "--cooldown-seconds", description = "koala.autoscaler.cooldown (default 10).")
  int cooldownSeconds = AutoscaleSettings.DEFAULTS.cooldownSeconds();

  @Option(names = "--lead-seconds", description = "koala.autoscaler.lead (default 4).")
  int leadSeconds = AutoscaleSettings.DEFAULTS.leadSeconds();

  @Option(
      names = "--ways",
      split = ",",
      description = "Ways to run, in order (default koala,restart,static-peak,static-mean).")
  List<String> ways = AutoscaleExperiment.WAYS;

  @Mixin OutputOptions output;

  @Override
  public Integer call() throws Exception {
    AutoscaleSettings s =
        Experiments.checked(
            spec,
            () ->
                new AutoscaleSettings(
                    cycles,
                    periodSeconds,
                    AutoscaleSettings.DEFAULTS.warmupSeconds(),
                    baseRate,
                    taskCapacity,
                    keys,
                    zipf,
                    stateBytes,
                    AutoscaleSettings.DEFAULTS.workers(),
                    headroom,
                    hysteresis,
                    cooldownSeconds,
                    leadSeconds,
                    AutoscaleSettings.DEFAULTS.seed()));
    for (String w : ways) {
      Experiments.checked(spec, () -> AutoscaleExperiment.way(w, s));
    }
    Map<String, Object> summary =
        AutoscaleExperiment.run(
            s, ways, output.dir("autoscale"), line -> System.err.println("autoscale: " + line));
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> runs = (Map<String, Map<String, Object>>) summary.get("runs");
    if (output.json) {
      for (var run : runs.entrySet()) {
        Map<String, Object> line = new java.util.LinkedHashMap<>();
        line.put("run", run.getKey());
        line.putAll(run.getValue());
        spec.commandLine().getOut().println(Json.encode(line));
      }
    }
    spec.commandLine().getOut().println(Json.encode(summary));
    spec.commandLine().getOut().flush();
    return runs.values().stream().allMatch(r -> Boolean.TRUE.equals(r.get("valid"))) ? 0 : 1;
  }
}
