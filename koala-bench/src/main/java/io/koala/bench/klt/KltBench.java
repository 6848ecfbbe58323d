package io.koala.bench.klt;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link KltLookupBenchmark} with JMH (one fork) and sums it up against the DESIGN §5.3
 * targets: at most 5 µs per 1,000-record batch in buckets that never moved, and lookups at most 3%
 * of a batch's processing time in moved buckets (here: lookup / (lookup + the least state work)).
 */
public final class KltBench {
  private KltBench() {}

  /** The JMH averages, in microseconds per 1,000-record batch. */
  public record Result(Map<String, Double> resolveUs, Map<String, Double> stateUpdateUs) {
    /** The lookup's share of a batch in moved buckets whose keys were {@code kind}. */
    public double share(String kind) {
      double lookup = resolveUs.get(kind);
      return lookup / (lookup + stateUpdateUs.get(kind));
    }

    public String toJson() {
      return String.format(
          Locale.ROOT,
          "{\"benchmark\":\"klt\",\"batch\":%d,\"neverMovedUsPerBatch\":%.3f,"
              + "\"movedTouchedUsPerBatch\":%.3f,\"movedUntouchedUsPerBatch\":%.3f,"
              + "\"stateUpdateUsPerBatch\":%.3f,\"movedTouchedShare\":%.4f,"
              + "\"movedUntouchedShare\":%.4f,\"cores\":%d}",
          KltLookupBenchmark.BATCH,
          resolveUs.get("never-moved"),
          resolveUs.get("moved-touched"),
          resolveUs.get("moved-untouched"),
          stateUpdateUs.get("moved-touched"),
          share("moved-touched"),
          share("moved-untouched"),
          Runtime.getRuntime().availableProcessors());
    }

    public String toText() {
      return String.format(
          Locale.ROOT,
          "KLT lookups per %,d-record batch (JMH, average):%n"
              + "  never-moved buckets       %10.2f µs   (target ≤ 5 µs)%n"
              + "  moved, touched keys       %10.2f µs   %5.2f%% of the batch (target ≤ 3%%)%n"
              + "  moved, untouched keys     %10.2f µs   %5.2f%% of the batch%n"
              + "  least state work of the batch (read + write 512 B per key): %,.0f µs%n",
          KltLookupBenchmark.BATCH,
          resolveUs.get("never-moved"),
          resolveUs.get("moved-touched"),
          100 * share("moved-touched"),
          resolveUs.get("moved-untouched"),
          100 * share("moved-untouched"),
          stateUpdateUs.get("moved-touched"));
    }
  }

  /** Runs the benchmark: {@code iterations} measured seconds after as many warm-up seconds. */
  public static Result run(int iterations) throws RunnerException {
    return run(iterations, TimeValue.seconds(1), 1);
  }

  /**
   * Runs the benchmark: {@code iterations} measured iterations of {@code iteration} after as many
   * warm-up ones, in {@code forks} forked JVMs (0: in this one, as a smoke test whose figures mean
   * little does).
   */
  public static Result run(int iterations, TimeValue iteration, int forks) throws RunnerException {
    Options options =
        new OptionsBuilder()
            .include(KltLookupBenchmark.class.getName() + "\\.")
            .forks(forks)
            .warmupIterations(iterations)
            .warmupTime(iteration)
            .measurementIterations(iterations)
            .measurementTime(iteration)
            .build();
    Collection<RunResult> results = new Runner(options).run();
    Map<String, Double> resolve = new TreeMap<>();
    Map<String, Double> update = new TreeMap<>();
    for (RunResult r : results) {
      String method = r.getParams().getBenchmark();
      String kind = r.getParams().getParam("buckets");
      double us = r.getPrimaryResult().getScore();
      (method.endsWith("resolveBatch") ? resolve : update).put(kind, us);
    }
    return new Result(resolve, update);
  }
}
