package io.koala.bench.cli;

import io.koala.bench.experiment.ExperimentRuns;
import io.koala.bench.experiment.Plans;
import io.koala.bench.experiment.RescaleSettings;
import io.koala.bench.experiment.RescaleWorkload;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment multi-operator} (the paper's App. D.4): the retention analyser and the
 * viewer-loyalty calculator of the Twitch pipeline rescaled 4 -> 8 at the same moment.
 */
@Command(
    name = "multi-operator",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the three-stage Twitch pipeline (200,000 streamers, 20,000 active, 512 B of state"
          + " per streamer in each of the first two stages, tasks of 6,000 records/s, 15,000"
          + " records/s doubled after 20 s) and rescales both keyed stages 4 -> 8 at once.",
      "Writes a CSV per protocol and charts into --out; the last stdout line is the summary (as"
          + " experiment compare)."
    })
final class MultiOperatorCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ScenarioOptions scenario;

  @Mixin OutputOptions output;

  @Option(
      names = "--protocols",
      split = ",",
      defaultValue = "koala,stop-restart",
      description = "Protocols to run (default ${DEFAULT-VALUE}).")
  List<String> protocols;

  static RescaleSettings defaults(String protocol) {
    return Experiments.figure(protocol)
        .workload(RescaleWorkload.TWITCH_PIPELINE)
        .keys(200_000)
        .activeKeys(20_000)
        .taskCapacity(6_000)
        .rate(15_000)
        .build();
  }

  @Override
  public Integer call() throws Exception {
    List<ExperimentRuns.Run> runs =
        Experiments.perProtocol(
            spec,
            protocols,
            p -> {
              RescaleSettings s = scenario.settings(p, defaults(p));
              if (RescaleWorkload.of(s).targets().size() < 2) {
                throw new IllegalArgumentException(
                    "--workload " + s.workload() + " has one keyed target; use twitch-pipeline");
              }
              return Plans.allTargets(s);
            });
    return CompareCommand.report(
        spec,
        "multi-operator",
        protocols,
        Experiments.once(runs),
        output.dir("multi-operator"),
        output.json);
  }
}
