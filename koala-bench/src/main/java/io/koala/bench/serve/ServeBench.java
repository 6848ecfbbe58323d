package io.koala.bench.serve;

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
 * Runs {@link ServeBenchmark} with JMH (one fork) and sums it up: the median microseconds for a
 * holder to answer a fetch of 1,000 keys (read and serialize), and for the owner to decode the
 * reply, per state size (JMH samples each call; the median of the samples).
 */
public final class ServeBench {
  private ServeBench() {}

  /** The JMH medians in microseconds per 1,000-key fetch, by state bytes per key. */
  public record Result(Map<Integer, Double> serveUs, Map<Integer, Double> decodeUs) {

    public String toJson() {
      StringBuilder s = new StringBuilder("{\"benchmark\":\"serve\",\"fetchKeys\":");
      s.append(ServeBenchmark.FETCH).append(",\"storeKeys\":").append(ServeBenchmark.KEYS);
      serveUs.forEach(
          (bytes, us) ->
              s.append(String.format(Locale.ROOT, ",\"serveUs%d\":%.1f", bytes, us))
                  .append(
                      String.format(
                          Locale.ROOT, ",\"decodeUs%d\":%.1f", bytes, decodeUs.get(bytes))));
      return s.append(",\"cores\":")
          .append(Runtime.getRuntime().availableProcessors())
          .append('}')
          .toString();
    }

    public String toText() {
      StringBuilder s =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "Serving a fetch of %,d random keys of %,d in LMDB (JMH, median):%n",
                  ServeBenchmark.FETCH,
                  ServeBenchmark.KEYS));
      serveUs.forEach(
          (bytes, us) ->
              s.append(
                  String.format(
                      Locale.ROOT,
                      "  %4d B per key: serve + serialize %10.1f µs, decode %10.1f µs%n",
                      bytes,
                      us,
                      decodeUs.get(bytes))));
      return s.toString();
    }
  }

  /** Runs the benchmark: {@code iterations} measured seconds after as many warm-up seconds. */
  public static Result run(int iterations) throws RunnerException {
    Options options =
        new OptionsBuilder()
            .include(ServeBenchmark.class.getName() + "\\.")
            .forks(1)
            .warmupIterations(iterations)
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(iterations)
            .measurementTime(TimeValue.seconds(1))
            .build();
    Collection<RunResult> results = new Runner(options).run();
    Map<Integer, Double> serve = new TreeMap<>();
    Map<Integer, Double> decode = new TreeMap<>();
    for (RunResult r : results) {
      String method = r.getParams().getBenchmark();
      int bytes = Integer.parseInt(r.getParams().getParam("stateBytes"));
      double us = r.getPrimaryResult().getStatistics().getPercentile(50);
      (method.endsWith(".serve") ? serve : decode).put(bytes, us);
    }
    return new Result(serve, decode);
  }
}
