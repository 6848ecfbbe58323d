package io.koala.samples.cli;

import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyValue;
import io.koala.dataflow.RateSchedule;
import io.koala.dataflow.SinkSpec;
import io.koala.dataflow.SourceSpec;
import io.koala.runtime.JobHandle;
import io.koala.runtime.JobMetrics;
import io.koala.runtime.JobStatus;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.runtime.ReconfigurationReport;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code koala demo}: the README's main job. A running count per key with its state in LMDB, on 3
 * workers, reconfigured four times while it runs — scale-out, rebalance, migration, scale-in — and
 * then checked: every key's counts must be 1, 2, …, n exactly once, as if nothing had happened.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Runs the demo job: a keyed running count with LMDB state on 3 workers, rescaled 2→4,"
            + " rebalanced, migrated and scaled in to 3 while it runs, then checked record by"
            + " record.")
final class DemoCommand implements Callable<Integer> {

  @Option(names = "--quick", description = "A shorter run (8 s instead of 20 s).")
  boolean quick;

  static final int KEYS = 50_000;
  static final double RATE = 20_000;

  @Override
  public Integer call() throws Exception {
    int seconds = quick ? 8 : 20;
    long records = (long) (RATE * seconds);
    System.out.printf(
        Locale.ROOT,
        "Koala demo: a running count over %,d keys, %,d records at %,.0f/s, state in LMDB,"
            + " 3 workers.%n",
        KEYS,
        records,
        RATE);
    DataflowBuilder b = Dataflow.builder("demo").parallelism(2);
    b.source(
            SourceSpec.generator("events", (i, seed) -> (i * 7919) % KEYS)
                .partitions(4)
                .count(records)
                .rate(RateSchedule.constant(RATE)))
        .keyBy(k -> k)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(3))) {
      long t0 = System.nanoTime();
      JobHandle job = runtime.submit(b.build());
      double step = seconds / 5.0;
      report(job, t0, at(t0, step, job).rescale("count", 4));
      report(
          job,
          t0,
          at(t0, 2 * step, job)
              .rebalance("count", io.koala.core.PartitionPolicy.consistentHashing()));
      report(job, t0, at(t0, 3 * step, job).migrate("count", 0, 2));
      report(job, t0, at(t0, 4 * step, job).rescale("count", 3));
      JobStatus status = job.await(Duration.ofSeconds(seconds + 60L));
      JobMetrics m = job.metrics();
      List<KeyValue<Long, Long>> out = job.collected("counts");
      Map<Long, Long> expected = new HashMap<>();
      for (long i = 0; i < records; i++) {
        expected.merge((i * 7919) % KEYS, 1L, Long::sum);
      }
      Map<Long, Long> seen = new HashMap<>();
      long sumOfCounts = 0;
      for (KeyValue<Long, Long> kv : out) {
        seen.merge(kv.key(), 1L, Long::sum);
        sumOfCounts += kv.value();
      }
      long expectedSum = 0;
      for (long n : expected.values()) {
        expectedSum += n * (n + 1) / 2; // 1 + 2 + ... + n
      }
      boolean exact = out.size() == records && seen.equals(expected) && sumOfCounts == expectedSum;
      System.out.printf(
          Locale.ROOT,
          "%s after %.1f s: %,d results; state moved: %,d keys (%,d bytes), %,d of them drained"
              + " from retired tasks, the rest fetched on first access in %,d requests; retired"
              + " tasks drained and stopped: %s.%n",
          status,
          (System.nanoTime() - t0) / 1e9,
          out.size(),
          m.keysTransferred(),
          m.stateBytesTransferred(),
          m.keysDrained(),
          m.fetchRequests(),
          m.releasedTasks("count").stream().map(t -> "#" + t.index()).toList());
      System.out.println(
          exact
              ? "Check: every key counted 1, 2, ..., n exactly once, as without reconfiguration."
              : "CHECK FAILED: the counts differ from a plain loop over the same input.");
      return exact && status == JobStatus.FINISHED ? 0 : 1;
    }
  }

  /** Waits until {@code seconds} after {@code t0}, then returns the job. */
  private static JobHandle at(long t0, double seconds, JobHandle job) throws InterruptedException {
    long wait = t0 + (long) (seconds * 1e9) - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
    return job;
  }

  private static void report(
      JobHandle job, long t0, java.util.concurrent.CompletionStage<ReconfigurationReport> stage)
      throws Exception {
    ReconfigurationReport r = stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    JobMetrics m = job.metrics();
    System.out.printf(
        Locale.ROOT,
        "%5.1f s  epoch %d: %-9s tasks %s -> %s, %3d buckets moved, hand-over %d ms, done in"
            + " %d ms; %,.0f records/s%n",
        (System.nanoTime() - t0) / 1e9,
        r.epoch(),
        r.kind(),
        r.tasksBefore(),
        r.tasksAfter(),
        r.bucketsMoved(),
        r.handoverMillis(),
        r.durationMillis(),
        m.recordsInPerSecond("count"));
  }
}
