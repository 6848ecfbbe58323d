package io.koala.bench;

import io.koala.dataflow.Dataflow;
import io.koala.job.JobMetrics;
import io.koala.job.LatencyHistogram;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.lang.management.ManagementFactory;
import java.util.function.ToLongFunction;

/**
 * Runs a benchmark dataflow: warms up, then measures the records consumed by one operator and its
 * per-batch latency, printing progress every 5 s on stderr. It also reports the CPU time the whole
 * process spent per measured record, which other load on a shared machine disturbs far less than
 * the throughput.
 */
public final class BenchRunner {
  private static final int INTERVAL_SECONDS = 5;
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private BenchRunner() {}

  /**
   * @param measured the operator whose consumed records and batch latency are reported
   * @param keySpace the number of keys the input has had by the end, given the metrics
   */
  public static BenchResult run(
      String workload,
      Dataflow dataflow,
      String measured,
      ToLongFunction<JobMetrics> keySpace,
      BenchSettings s,
      KoalaConfig base)
      throws InterruptedException {
    KoalaConfig config = base.withWorkers(s.workers()).withSeparateSystems(s.separateSystems());
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow);
      Thread.sleep(s.warmupSeconds() * 1000L);
      JobMetrics m0 = job.metrics();
      long cpu0 = OS.getProcessCpuTime();
      long t0 = System.nanoTime();
      JobMetrics m1 = m0;
      long previousAt = t0;
      for (int second = 0; second < s.seconds(); second += INTERVAL_SECONDS) {
        Thread.sleep(Math.min(INTERVAL_SECONDS, s.seconds() - second) * 1000L);
        JobMetrics now = job.metrics();
        long at = System.nanoTime();
        System.err.printf(
            "%s: %3d s  %,12.0f records/s  lag %,d records%n",
            workload,
            Math.round((at - t0) / 1e9),
            (now.recordsIn(measured) - m1.recordsIn(measured)) / ((at - previousAt) / 1e9),
            now.sourceLagRecords());
        m1 = now;
        previousAt = at;
      }
      double elapsed = (System.nanoTime() - t0) / 1e9;
      long cpu = OS.getProcessCpuTime() - cpu0;
      job.cancel().toCompletableFuture().join();
      long records = m1.recordsIn(measured) - m0.recordsIn(measured);
      LatencyHistogram latency = m1.batchLatency(measured).minus(m0.batchLatency(measured));
      return new BenchResult()
          .put("workload", workload)
          .put("parallelism", s.parallelism())
          .put("workers", s.workers())
          .put("mode", s.separateSystems() ? "separate" : "shared")
          .put("records", records)
          .put("seconds", round(elapsed))
          .put("recordsPerSecond", Math.round(records / elapsed))
          .put("cpuNanosPerRecord", round((double) cpu / Math.max(1, records)))
          .put("p50BatchLatencyMs", round(latency.percentile(50) / 1e6))
          .put("p99BatchLatencyMs", round(latency.percentile(99) / 1e6))
          .put("batches", latency.count())
          .put("keys", keySpace.applyAsLong(m1))
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
}
