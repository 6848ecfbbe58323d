package io.koala.bench.cli;

import io.koala.bench.upgrade.UpgradeExperiment;
import io.koala.bench.upgrade.UpgradeWorkload;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code koala experiment upgrade}: see {@link UpgradeExperiment}. */
@Command(
    name = "upgrade",
    mixinStandardHelpOptions = true,
    description = {
      "Version 1 of a keyed job (running totals per customer, its state a record class) runs on a"
          + " bounded rate-limited input, stops with a savepoint; version 2 (a field added to the"
          + " state class and one removed, a stateless stage added, a stateful operator dropped,"
          + " the totals on more tasks) restores from it and finishes. The last line is JSON with"
          + " outputEquivalent (each customer's final totals equal a reference computation over"
          + " the whole input), recordsLost and recordsDuplicated (both 0: the sink is"
          + " exactly-once)."
    })
final class UpgradeCommand implements Callable<Integer> {
  @Option(names = "--records", defaultValue = "200000", description = "Orders (default 200000).")
  long records;

  @Option(
      names = "--customers",
      defaultValue = "5000",
      description = "Customers, the keys (default 5000).")
  int customers;

  @Option(
      names = "--rate",
      defaultValue = "20000",
      description = "Orders per second the source offers (default 20000).")
  double rate;

  @Option(
      names = "--savepoint-at",
      defaultValue = "0.4",
      description = "Share of the orders version 1 processes before its savepoint (default 0.4).")
  double savepointAt;

  @Option(
      names = "--v2-parallelism",
      defaultValue = "5",
      description = "Tasks of version 2's totals; version 1 runs 2 (default 5).")
  int v2Parallelism;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    UpgradeWorkload w = new UpgradeWorkload(records, customers, rate, savepointAt, v2Parallelism);
    UpgradeExperiment.Result r =
        UpgradeExperiment.run(
            w, output.dir("upgrade-experiment"), line -> System.err.println("upgrade: " + line));
    System.out.printf(
        "upgrade: version 1 ran %.1f s and stopped with checkpoint %d; version 2 restored in %d"
            + " ms and ran %.1f s; %d totals published, %d lost, %d duplicated; output %s%n",
        r.v1Seconds(),
        r.savepointCheckpoint(),
        r.restoreMillis(),
        r.v2Seconds(),
        r.verdict().published(),
        r.verdict().recordsLost(),
        r.verdict().recordsDuplicated(),
        r.verdict().outputEquivalent()
            ? "equals the reference computation"
            : "DIFFERS from the reference computation");
    System.out.println(r.json());
    return r.verdict().outputEquivalent()
            && r.verdict().recordsLost() == 0
            && r.verdict().recordsDuplicated() == 0
        ? 0
        : 1;
  }
}
