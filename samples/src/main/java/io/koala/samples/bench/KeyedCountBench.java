package io.koala.samples.bench;

import io.koala.dataflow.Collector;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedProcessFunction;
import io.koala.dataflow.RateSchedule;
import io.koala.dataflow.SinkSpec;
import io.koala.dataflow.SourceSpec;
import io.koala.runtime.JobHandle;
import io.koala.runtime.JobMetrics;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * Keyed count: a generator of uniformly random long keys over a key space, a keyed function that
 * reads, increments and writes each key's count in LMDB (padded to {@code stateBytes}), and a
 * discarding sink. Measures throughput and per-batch latency after a warm-up.
 */
public final class KeyedCountBench {

  /** Settings of one run. */
  public record Settings(
      int seconds,
      int warmupSeconds,
      int parallelism,
      int workers,
      long keys,
      int stateBytes,
      boolean separateSystems,
      double rate,
      long seed) {}

  private KeyedCountBench() {}

  /**
   * Record {@code index}'s key: uniform over {@code [0, keys)}, a pure function of index and seed.
   */
  public static long keyOf(long index, long seed, long keys) {
    long z = index * 0x9E3779B97F4A7C15L + seed;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    return Math.floorMod(z, keys);
  }

  /** The dataflow of the bench. */
  public static Dataflow dataflow(Settings s) {
    long keys = s.keys();
    DataflowBuilder b = Dataflow.builder("keyed-count").parallelism(s.parallelism());
    RateSchedule rate = s.rate() > 0 ? RateSchedule.constant(s.rate()) : RateSchedule.unlimited();
    int stateBytes = s.stateBytes();
    b.source(
            SourceSpec.generator("events", (i, seed) -> keyOf(i, seed, keys))
                .partitions(s.parallelism())
                .rate(rate)
                .seed(s.seed()))
        .keyBy((Long k) -> k)
        .process("count", () -> new Count(stateBytes))
        .sink(SinkSpec.discarding("counts"));
    return b.build();
  }

  /** Counts per key in a value of {@code stateBytes} bytes (the count in the first 8). */
  static final class Count extends KeyedProcessFunction<Long, Long, Long> {
    private final int stateBytes;
    private ValueState<byte[]> count;

    Count(int stateBytes) {
      this.stateBytes = Math.max(8, stateBytes);
    }

    @Override
    public void open(KeyedStateContext ctx) {
      count = ctx.valueState("count", byte[].class);
    }

    @Override
    public void process(Long key, Context<Long> ctx, Collector<Long> out) {
      byte[] v = count.value();
      if (v == null) {
        v = new byte[stateBytes];
      }
      ByteBuffer buf = ByteBuffer.wrap(v);
      long n = buf.getLong(0) + 1;
      buf.putLong(0, n);
      count.update(v);
      out.collect(n);
    }
  }

  /** Runs the bench and returns its figures. */
  public static BenchResult run(Settings s, KoalaConfig base) throws InterruptedException {
    KoalaConfig config = base.withWorkers(s.workers()).withSeparateSystems(s.separateSystems());
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(s));
      Thread.sleep(s.warmupSeconds() * 1000L);
      JobMetrics m0 = job.metrics();
      long t0 = System.nanoTime();
      JobMetrics m1 = m0;
      long previousAt = t0;
      for (int second = 0; second < s.seconds(); second += INTERVAL_SECONDS) {
        Thread.sleep(Math.min(INTERVAL_SECONDS, s.seconds() - second) * 1000L);
        JobMetrics now = job.metrics();
        long at = System.nanoTime();
        System.err.printf(
            "keyed-count: %3d s  %,12.0f records/s  lag %,d records%n",
            Math.round((at - t0) / 1e9),
            (now.recordsIn("count") - m1.recordsIn("count")) / ((at - previousAt) / 1e9),
            now.sourceLagRecords());
        m1 = now;
        previousAt = at;
      }
      double elapsed = (System.nanoTime() - t0) / 1e9;
      job.cancel().toCompletableFuture().join();
      long records = m1.recordsIn("count") - m0.recordsIn("count");
      Histogram latency = m1.batchLatency("count");
      latency.subtract(m0.batchLatency("count"));
      return new BenchResult()
          .put("workload", "keyed-count")
          .put("parallelism", s.parallelism())
          .put("workers", s.workers())
          .put("mode", s.separateSystems() ? "separate" : "shared")
          .put("records", records)
          .put("seconds", round(elapsed))
          .put("recordsPerSecond", Math.round(records / elapsed))
          .put("p50BatchLatencyMs", round(latency.getValueAtPercentile(50) / 1e6))
          .put("p99BatchLatencyMs", round(latency.getValueAtPercentile(99) / 1e6))
          .put("batches", latency.getTotalCount())
          .put("keys", s.keys())
          .put("stateKeys", m1.stateEntries())
          .put("stateBytes", m1.stateBytes())
          .put("stateBytesPerKey", s.stateBytes())
          .put("sourceLagRecords", m1.sourceLagRecords())
          .put("cores", Runtime.getRuntime().availableProcessors());
    }
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** Seconds between the progress lines printed on stderr. */
  private static final int INTERVAL_SECONDS = 5;
}
