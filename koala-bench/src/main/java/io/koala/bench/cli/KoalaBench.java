package io.koala.bench.cli;

import io.koala.cli.KoalaCli;
import picocli.CommandLine;

/**
 * The command line {@code ./koala} runs: the operator's ({@link KoalaCli}: node, admin, verify)
 * with the demo, the benchmarks and the experiments.
 */
public final class KoalaBench {
  private KoalaBench() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, as {@link KoalaCli#commandLine(Object...)} gives it. */
  public static CommandLine commandLine() {
    return KoalaCli.commandLine(new BenchCommand(), new DemoCommand(), new ExperimentCommand());
  }
}
