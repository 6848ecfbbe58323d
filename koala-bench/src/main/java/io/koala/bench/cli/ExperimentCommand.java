package io.koala.bench.cli;

import picocli.CommandLine.Command;

/** {@code koala experiment KIND}: the paper's experiments at this machine's scale. */
@Command(
    name = "experiment",
    mixinStandardHelpOptions = true,
    description = "Runs an experiment of the paper at this machine's scale (WORKLOADS.md).",
    subcommands = {
      RescaleCommand.class,
      CompareCommand.class,
      SweepCommand.class,
      RepeatedCommand.class,
      SkewCommand.class,
      AutoscaleCommand.class,
      MigrateCommand.class,
      MultiOperatorCommand.class,
      MicroCommand.class,
      UniformCommand.class,
      ClusterCommand.class,
      UpgradeCommand.class,
      SoakCommand.class
    })
final class ExperimentCommand {}
