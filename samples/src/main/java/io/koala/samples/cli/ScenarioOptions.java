package io.koala.samples.cli;

import io.koala.samples.experiment.RescaleSettings;
import picocli.CommandLine.Option;

/**
 * The scenario of the rescale experiments (DESIGN §4.7): workload, scale, state, emulated
 * capacities and input schedule; shared by {@code experiment rescale} and {@code experiment
 * compare}, so that every protocol runs exactly the same scenario.
 */
final class ScenarioOptions {

  @Option(
      names = "--workload",
      defaultValue = RescaleSettings.Q6STAR,
      description = "Workload: q6star or twitch (default ${DEFAULT-VALUE}).")
  String workload;

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

  /**
   * The settings of this scenario under {@code protocol}.
   *
   * @throws IllegalArgumentException naming the invalid option
   */
  RescaleSettings settings(String protocol) {
    return new RescaleSettings(
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
  }
}
