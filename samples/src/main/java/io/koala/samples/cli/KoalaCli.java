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
      AdminCommand.class,
      BenchCommand.class,
      DemoCommand.class,
      ExperimentCommand.class,
      NodeCommand.class,
      VerifyCommand.class,
      CommandLine.HelpCommand.class
    })
public final class KoalaCli {

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, with bad input reported as one line (exit code 2), not a stack trace. */
  static CommandLine commandLine() {
    return new CommandLine(new KoalaCli())
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              if (e instanceof io.koala.runtime.ConfigurationException) {
                // its message names the setting
                cmd.getErr().println("koala: " + e.getMessage());
                return 2;
              }
              throw e;
            });
  }
}
