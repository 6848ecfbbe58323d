package io.koala.bench.cli;

import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.RescaleExperiment;
import io.koala.bench.experiment.RescaleSettings;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment uniform} (the paper's App. D.5): every key equally likely after the
 * warm-up, so every moved key is needed and laziness saves nothing; what differs is whether the
 * input keeps flowing.
 */
@Command(
    name = "uniform",
    mixinStandardHelpOptions = true,
    description = {
      "Compares protocols on a 4 -> 8 rescale when the input touches every key uniformly"
          + " (--active-keys is --keys): Q6* over 500,000 keys of 512 B, tasks of 10,000"
          + " records/s, 25,000 records/s doubled after 20 s, rescaled 20 s later.",
      "Writes a CSV per protocol and charts into --out; the last stdout line is the summary"
          + " (with --json, JSON lines as experiment compare)."
    })
final class UniformCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ScenarioOptions scenario;

  @Mixin OutputOptions output;

  @Option(
      names = "--protocols",
      split = ",",
      defaultValue = "koala,stop-restart,eager",
      description = "Protocols to run, in this order (default ${DEFAULT-VALUE}).")
  List<String> protocols;

  /** The defaults with {@code keys} keys, every one of them active. */
  static RescaleSettings defaults(String protocol, long keys) {
    return Experiments.figure(protocol)
        .keys(keys)
        .activeKeys(keys)
        .taskCapacity(10_000)
        .rate(25_000)
        .tailSeconds(10)
        .build();
  }

  @Override
  public Integer call() throws Exception {
    long keys = scenario.keys != null ? scenario.keys : 500_000;
    List<ExperimentRuns.Run> runs =
        Experiments.perProtocol(
            spec,
            protocols,
            p -> RescaleExperiment.Plan.rescale(scenario.settings(p, defaults(p, keys))));
    return CompareCommand.report(
        spec, "uniform", protocols, Experiments.once(runs), output.dir("uniform"), output.json);
  }
}
