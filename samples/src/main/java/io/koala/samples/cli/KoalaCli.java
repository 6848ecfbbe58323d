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

  /**
   * The commands that talk to, or are, a node of a cluster: every other one runs its runtimes'
   * actor systems in this process.
   */
  private static final java.util.Set<String> CLUSTER_COMMANDS = java.util.Set.of("node", "admin");

  /**
   * The command line, with bad input reported as one line (exit code 2), not a stack trace. A
   * command whose actor systems all live in this process and end with its runs (the demo, the
   * experiments, benches and verify) does not log Artery's warnings about peers that went away:
   * those peers are its own systems, terminated together at the end of a run (issue 48: {@code
   * ./koala demo} ended with "Association … irrecoverably failed"). On a node they stay warnings.
   */
  static CommandLine commandLine() {
    return new CommandLine(new KoalaCli())
        .setExecutionStrategy(
            parsed -> {
              CommandLine.ParseResult sub = parsed.subcommand();
              if (sub != null && !CLUSTER_COMMANDS.contains(sub.commandSpec().name())) {
                ((ch.qos.logback.classic.Logger)
                        org.slf4j.LoggerFactory.getLogger(
                            "org.apache.pekko.remote.artery.Association"))
                    .setLevel(ch.qos.logback.classic.Level.ERROR);
              }
              return new CommandLine.RunLast().execute(parsed);
            })
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
