package io.koala.bench.cli;

import io.koala.bench.experiment.RescaleSettings;
import picocli.CommandLine.Option;

/**
 * The scenario of the experiments (DESIGN §4.7): workload, scale, state, emulated capacities and
 * input schedule; shared by every {@code experiment} command, so that each protocol of a run shares
 * exactly the same scenario. An option left out takes the experiment's default ({@link
 * #settings(String, RescaleSettings)}).
 */
final class ScenarioOptions {

  @Option(
      names = "--workload",
      description =
          "Workload: q6star, q6star-sellers, twitch, twitch-pipeline, taxi, borg or azure.")
  String workload;

  @Option(names = "--from", description = "Tasks of the target before.")
  Integer from;

  @Option(names = "--to", description = "Tasks after.")
  Integer to;

  @Option(
      names = "--workers",
      description = "Workers, each in its own ActorSystem over loopback TCP.")
  Integer workers;

  @Option(names = "--keys", description = "Keys, each written once in the warm-up.")
  Long keys;

  @Option(names = "--active-keys", description = "Keys touched after the warm-up.")
  Long activeKeys;

  @Option(names = "--state-bytes", description = "Bytes of state per key.")
  Integer stateBytes;

  @Option(
      names = "--task-capacity",
      description = "Emulated capacity of each target task, records/s.")
  Double taskCapacity;

  @Option(names = "--rate", description = "Input rate after the warm-up, records/s; doubled later.")
  Double rate;

  @Option(
      names = "--warmup-rate",
      description =
          "Upper bound of the warm-up rate, records/s (0: 95%% of --from x --task-capacity).")
  Double warmupRate;

  @Option(names = "--steady-seconds", description = "Seconds at --rate.")
  Integer steadySeconds;

  @Option(names = "--doubled-seconds", description = "Seconds at twice --rate before the change.")
  Integer doubledSeconds;

  @Option(
      names = "--tail-seconds",
      description = "Seconds to go on once the backlog has recovered.")
  Integer tailSeconds;

  @Option(
      names = "--timeout-seconds",
      description = "Seconds after the (last) reconfiguration after which the run ends.")
  Integer timeoutSeconds;

  @Option(names = "--seed", description = "Generator seed.")
  Long seed;

  /**
   * The settings of this scenario under {@code protocol}: the options given, the rest from {@code
   * defaults}.
   *
   * @throws IllegalArgumentException naming the invalid option
   */
  RescaleSettings settings(String protocol, RescaleSettings defaults) {
    return new RescaleSettings(
        workload != null ? workload : defaults.workload(),
        protocol,
        from != null ? from : defaults.from(),
        to != null ? to : defaults.to(),
        workers != null ? workers : defaults.workers(),
        keys != null ? keys : defaults.keys(),
        activeKeys != null ? activeKeys : defaults.activeKeys(),
        stateBytes != null ? stateBytes : defaults.stateBytes(),
        taskCapacity != null ? taskCapacity : defaults.taskCapacity(),
        rate != null ? rate : defaults.rate(),
        warmupRate != null ? warmupRate : defaults.warmupRate(),
        steadySeconds != null ? steadySeconds : defaults.steadySeconds(),
        doubledSeconds != null ? doubledSeconds : defaults.doubledSeconds(),
        tailSeconds != null ? tailSeconds : defaults.tailSeconds(),
        timeoutSeconds != null ? timeoutSeconds : defaults.timeoutSeconds(),
        seed != null ? seed : defaults.seed());
  }

  /**
   * The settings of a rescale under {@code protocol}, the defaults being {@link
   * RescaleSettings#defaults}.
   *
   * @throws IllegalArgumentException naming the invalid option, or when {@code --to} equals {@code
   *     --from}
   */
  RescaleSettings rescale(String protocol) {
    RescaleSettings s = settings(protocol, RescaleSettings.defaults(protocol));
    if (s.from() == s.to()) {
      throw new IllegalArgumentException("--to must differ from --from (" + s.from() + ")");
    }
    return s;
  }
}
