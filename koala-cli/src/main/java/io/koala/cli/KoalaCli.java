package io.koala.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code koala} command line of an operator: {@code node}, {@code admin} and {@code verify}.
 * The benchmarks' command line ({@code ./koala}, module koala-bench) is this one with its commands
 * added ({@link #commandLine(Object...)}).
 */
@Command(
    name = "koala",
    mixinStandardHelpOptions = true,
    version = "koala 0.1.0-SNAPSHOT",
    description = "Koala: stateful dataflows that rescale, rebalance and migrate live.")
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
   *
   * @param more commands to add to node, admin and verify (picocli command objects)
   */
  public static CommandLine commandLine(Object... more) {
    CommandLine cli =
        new CommandLine(new KoalaCli())
            .addSubcommand(new AdminCommand())
            .addSubcommand(new NodeCommand())
            .addSubcommand(new VerifyCommand());
    for (Object command : more) {
      cli.addSubcommand(command);
    }
    return cli.addSubcommand(new CommandLine.HelpCommand())
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
