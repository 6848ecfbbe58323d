package io.koala.bench;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobMetrics;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The cost of checkpoints (issue 7): the keyed-count bench with checkpoints off and every {@code
 * interval}, one after the other on the same machine and settings (throughput and per-batch
 * latency; with a 1 s interval every second of the measured run has a checkpoint in it; and the
 * process's CPU time per record, whose ratio estimates the throughput retained on an idle machine
 * where the job is CPU-bound, when other load makes the throughputs noisy), and the time a job with
 * {@code keys × stateBytes} of state takes to resume processing after its runtime restarts on the
 * same data directory.
 */
public final class CheckpointBench {
  private CheckpointBench() {}

  /** Keyed count, checkpoints off, then every {@code interval}; the two results and the ratios. */
  public static BenchResult overhead(BenchSettings s, KoalaConfig base, Duration interval)
      throws InterruptedException {
    BenchResult off = KeyedCountBench.run(s, base);
    BenchResult on = KeyedCountBench.run(s, base.withCheckpointInterval(interval));
    long offRate = (long) off.get("recordsPerSecond");
    long onRate = (long) on.get("recordsPerSecond");
    double offP99 = (double) off.get("p99BatchLatencyMs");
    double onP99 = (double) on.get("p99BatchLatencyMs");
    return new BenchResult()
        .put("workload", "checkpoint-overhead")
        .put("intervalMs", interval.toMillis())
        .put("recordsPerSecondOff", offRate)
        .put("recordsPerSecondOn", onRate)
        .put("throughputRetained", round((double) onRate / offRate))
        .put("cpuNanosPerRecordOff", off.get("cpuNanosPerRecord"))
        .put("cpuNanosPerRecordOn", on.get("cpuNanosPerRecord"))
        .put(
            "cpuPerRecordRetained",
            round((double) off.get("cpuNanosPerRecord") / (double) on.get("cpuNanosPerRecord")))
        .put("p99BatchLatencyMsOff", offP99)
        .put("p99BatchLatencyMsOn", onP99)
        .put("p99Ratio", round(onP99 / offP99))
        .put("p50BatchLatencyMsOff", off.get("p50BatchLatencyMs"))
        .put("p50BatchLatencyMsOn", on.get("p50BatchLatencyMs"))
        .put("stateBytes", on.get("stateBytes"))
        .put("parallelism", s.parallelism())
        .put("cores", Runtime.getRuntime().availableProcessors());
  }

  /**
   * Fills {@code s.keys()} keys of {@code s.stateBytes()} each (every key once, in order), takes a
   * checkpoint, closes the runtime, starts a new one on the same data directory and submits the job
   * again: reports the checkpoint's duration and size and the time from the submission until the
   * restored job processes records again.
   */
  public static BenchResult restart(BenchSettings s, KoalaConfig base) throws Exception {
    Path dir = Files.createTempDirectory("koala-restart-bench");
    try {
      KoalaConfig config =
          base.withWorkers(s.workers())
              .withDataDir(dir)
              .withCheckpointInterval(Duration.ofHours(1)); // only the one asked for
      Dataflow dataflow = fill(s);
      long checkpointMs;
      long stateBytes;
      try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
        JobHandle job = runtime.submit(dataflow);
        long t0 = System.nanoTime();
        while (job.metrics().recordsIn("count") < s.keys()) {
          Thread.sleep(200);
          System.err.printf(
              "restart bench: filling %,d of %,d keys (%.0f s)%n",
              job.metrics().recordsIn("count"), s.keys(), (System.nanoTime() - t0) / 1e9);
        }
        stateBytes = job.metrics().stateBytes();
        long c0 = System.nanoTime();
        long id = job.checkpoint().toCompletableFuture().join();
        checkpointMs = (System.nanoTime() - c0) / 1_000_000;
        System.err.printf("restart bench: checkpoint %d took %d ms%n", id, checkpointMs);
      }
      long snapshotBytes = sizeOf(dir.resolve("checkpoints"));
      try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
        long t0 = System.nanoTime();
        JobHandle job = runtime.submit(dataflow);
        JobMetrics m = job.metrics();
        while (m.recordsIn("count") == 0) {
          Thread.sleep(20);
          m = job.metrics();
        }
        long resumedMs = (System.nanoTime() - t0) / 1_000_000;
        job.cancel().toCompletableFuture().join();
        return new BenchResult()
            .put("workload", "checkpoint-restart")
            .put("keys", s.keys())
            .put("stateBytesPerKey", s.stateBytes())
            .put("stateBytes", stateBytes)
            .put("checkpointBytesOnDisk", snapshotBytes)
            .put("checkpointMs", checkpointMs)
            .put("resumedAfterMs", resumedMs)
            .put("parallelism", s.parallelism())
            .put("cores", Runtime.getRuntime().availableProcessors());
      }
    } finally {
      delete(dir);
    }
  }

  /** Every key in {@code [0, keys)} once, then again, counted in a value of {@code stateBytes}. */
  private static Dataflow fill(BenchSettings s) {
    long keys = s.keys();
    DataflowBuilder b = Dataflow.builder("checkpoint-restart").parallelism(s.parallelism());
    RateSchedule rate = s.rate() > 0 ? RateSchedule.constant(s.rate()) : RateSchedule.unlimited();
    int stateBytes = s.stateBytes();
    b.source(
            SourceSpec.generator("events", (i, seed) -> i % keys)
                .partitions(s.parallelism())
                .rate(rate)
                .seed(s.seed()))
        .keyBy((Long k) -> k)
        .process("count", () -> new KeyedCountBench.Count(stateBytes))
        .sink(SinkSpec.discarding("counts"));
    return b.build();
  }

  private static long sizeOf(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
