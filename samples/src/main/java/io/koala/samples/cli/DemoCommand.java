package io.koala.samples.cli;

import io.koala.runtime.KoalaConfig;
import io.koala.samples.bench.BenchResult;
import io.koala.samples.bench.BenchSettings;
import io.koala.samples.bench.KeyedCountBench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code koala demo}: the README's main job. Until the live-reconfiguration demo exists, it runs
 * the keyed-count workload with LMDB state for a short while and prints its figures.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Runs the demo job: a keyed count over 1M keys with LMDB state on 2 workers"
            + " (the live-rescale demo comes with the reconfiguration protocol).")
final class DemoCommand implements Callable<Integer> {

  @Option(names = "--quick", description = "A shorter run (10 s).")
  boolean quick;

  @Override
  public Integer call() throws Exception {
    int seconds = quick ? 10 : 30;
    System.out.println(
        "Koala demo: keyed count over 1,000,000 keys, parallelism 2, state in LMDB, for "
            + seconds
            + " s (plus 5 s warm-up)...");
    BenchResult r =
        KeyedCountBench.run(
            new BenchSettings(seconds, 5, 2, 2, 1_000_000, 8, false, 0, 42, 1_000_000),
            KoalaConfig.load());
    System.out.println(r.toText());
    return 0;
  }
}
