package io.koala.bench.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where an experiment writes its CSVs and charts, and whether it prints JSON lines. */
final class OutputOptions {

  @Option(
      names = "--out",
      description = "Directory for the CSVs and charts (default koala-EXPERIMENT).")
  Path out;

  @Option(
      names = "--json",
      description = "Prints each run's result as a JSON line before the summary line.")
  boolean json;

  /** The output directory of experiment {@code name}. */
  Path dir(String name) {
    return out != null ? out : Path.of("koala-" + name);
  }
}
