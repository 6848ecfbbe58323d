package io.koala.samples.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code koala} command line: benchmarks, experiments and the demo. */
@Command(
    name = "koala",
    mixinStandardHelpOptions = true,
    version = "koala 0.1.0-SNAPSHOT",
    description = "Koala: stateful dataflows that rescale, rebalance and migrate live.",
    subcommands = {
      BenchCommand.class,
      DemoCommand.class,
      ExperimentCommand.class,
      NodeCommand.class,
      VerifyCommand.class,
      CommandLine.HelpCommand.class
    })
public final class KoalaCli {

  public static void main(String[] args) {
    int code = new CommandLine(new KoalaCli()).execute(args);
    System.exit(code);
  }
}
