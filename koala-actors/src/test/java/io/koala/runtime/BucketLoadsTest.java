package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.BucketLoads;
import io.koala.job.JobStatus;
import io.koala.job.OperatorLoad;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.routing.Buckets;
import io.koala.routing.PartitionPolicy;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The runtime's per-bucket load counters on a running job (every message serialized): with one key
 * taking half of the records, its bucket tops the operator's loads with about half of them; the
 * busy time shows the tasks' emulated capacity; after a rebalance the bucket's load is counted by
 * its new owner.
 */
class BucketLoadsTest {
  static final double CAPACITY = 2_000;
  static final Duration WAIT = Duration.ofSeconds(30);

  /** Half of the records have key 0, the others spread over 499 keys; 1,600 records/s. */
  static Dataflow skewed() {
    DataflowBuilder b = Dataflow.builder("loads").parallelism(2);
    b.source(
            SourceSpec.generator("n", (i, seed) -> i % 2 == 0 ? 0L : 1 + (i * 7919) % 499)
                .partitions(2)
                .rate(RateSchedule.constant(1_600)))
        .keyBy(x -> x)
        .count("count")
        .capacity(CAPACITY)
        .sink(SinkSpec.discarding("out"));
    return b.build();
  }

  static int hotBucket() {
    KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
    return Buckets.bucketOf(keys.encode(0L), Buckets.DEFAULT_BUCKETS);
  }

  /** Whether {@code bucket} is the busiest of {@code load} with 40-60% of its records. */
  static boolean hotOnTop(OperatorLoad load, int bucket) {
    double[] rates = load.bucketRecordsPerSecond();
    if (rates.length != Buckets.DEFAULT_BUCKETS || load.recordsPerSecond() <= 0) {
      return false;
    }
    double total = 0;
    int top = 0;
    for (int b = 0; b < rates.length; b++) {
      total += rates[b];
      top = rates[b] > rates[top] ? b : top;
    }
    double share = rates[bucket] / total;
    return top == bucket && share > 0.4 && share < 0.6;
  }

  static boolean reports(TaskMetricsSnapshot t, int bucket) {
    BucketLoads l = t.bucketLoads();
    for (int i = 0; i < l.size(); i++) {
      if (l.bucket(i) == bucket) {
        return true;
      }
    }
    return false;
  }

  @Test
  void theHotKeysBucketTopsTheLoadsAndFollowsARebalance() throws Exception {
    int hot = hotBucket();
    KoalaConfig config =
        KoalaConfig.load().withWorkers(2).with("koala.metrics.load-half-life", "1 s");
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(skewed());
      AtomicReference<OperatorLoad> seen = new AtomicReference<>();
      Eventually.await(
          "the hot key's bucket on top of count's loads with about half of its records",
          WAIT,
          () -> {
            if (job.status() != JobStatus.RUNNING) {
              return false;
            }
            seen.set(job.metrics().load("count"));
            return hotOnTop(seen.get(), hot);
          });
      OperatorLoad before = seen.get();
      assertThat(before.tasks()).hasSize(2);
      // the tasks run far below their emulated capacity, which their busy time shows
      assertThat(before.processingRate()).isBetween(0.8 * CAPACITY, 1.01 * CAPACITY);
      assertThat(before.busyFraction()).isBetween(0.2, 1.2);
      int from = before.bucketOwners()[hot];
      int to = 1 - from;

      int[] owners = before.bucketOwners();
      owners[hot] = to;
      job.rebalance("count", PartitionPolicy.explicit(owners))
          .toCompletableFuture()
          .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      Eventually.await(
          "the hot bucket's load counted by count#" + to + " only",
          WAIT,
          () -> {
            var m = job.metrics();
            OperatorLoad load = m.load("count");
            return load.bucketOwners()[hot] == to
                && hotOnTop(load, hot)
                && m.tasksOf("count").stream()
                    .noneMatch(t -> t.task().index() == from && reports(t, hot));
          });
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }
}
