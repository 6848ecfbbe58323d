package io.koala.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binder on running embedded jobs: meters appear with their tags, counters follow the records
 * processed, the batch latency timers of the tasks add up to the batches counted apart, an ended
 * job's meters show its end once and then go, and {@code close()} unbinds.
 */
class KoalaMetricsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int RECORDS = 12_000;

  /** Two generator tasks feeding two count tasks; {@code records} in all at 6,000 a second. */
  private static Dataflow counting(String name, long records) {
    DataflowBuilder b = Dataflow.builder(name).parallelism(2);
    b.source(
            SourceSpec.generator("numbers", (i, s) -> i % 100)
                .partitions(2)
                .count(records)
                .rate(RateSchedule.constant(6_000)))
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.discarding("out"));
    return b.build();
  }

  private static KoalaConfig config(Path dir) {
    return KoalaConfig.load().withWorkers(2).withDataDir(dir);
  }

  private static double sum(MeterRegistry registry, String name, String job, String operator) {
    return registry.find(name).tag("job", job).tag("operator", operator).functionCounters().stream()
        .mapToDouble(FunctionCounter::count)
        .sum();
  }

  @Test
  void aJobsMetersFollowItsRecordsAndGoAfterItsEnd(@TempDir Path dir) {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir));
        KoalaMetrics metrics =
            KoalaMetrics.builder(runtime)
                .tags(Tags.of("service", "test"))
                .pollInterval(Duration.ZERO) // polled by refresh() alone
                .build()) {
      metrics.bindTo(registry);
      io.micrometer.core.instrument.Gauge disk =
          registry.find("koala.store.disk.usable.bytes").tag("service", "test").gauge();
      assertThat(disk).as("the disk of the runtime's stores").isNotNull();
      assertThat(disk.value()).isPositive();
      assertThat(disk.getId().getTag("path")).isEqualTo(runtime.dataDir().toString());
      JobHandle job = runtime.submit(counting("numbers", RECORDS));
      String id = job.id();

      List<Double> seen = new ArrayList<>();
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (!finished(registry, id)) { // until a poll has seen the job's end
        assertThat(System.nanoTime()).as("the job's end seen").isLessThan(deadline);
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        metrics.refresh();
        seen.add(sum(registry, "koala.task.records.in", id, "count"));
      }
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(seen).as("polled while it ran").hasSizeGreaterThan(3).isSorted();
      assertThat(seen.get(seen.size() - 1)).as("every record generated").isEqualTo(RECORDS);

      assertThat(registry.find("koala.task.records.in").tag("job", id).meters())
          .as("two sources and two count tasks")
          .hasSize(4)
          .allSatisfy(
              m ->
                  assertThat(m.getId().getTags())
                      .extracting(t -> t.getKey())
                      .contains("job", "operator", "task", "worker", "service"));

      // the timers were fed increments at every poll; their counts add up to the batches
      List<Timer> latencies =
          List.copyOf(
              registry
                  .find("koala.task.batch.latency")
                  .tag("job", id)
                  .tag("operator", "count")
                  .timers());
      assertThat(latencies).hasSize(2);
      long timed = latencies.stream().mapToLong(Timer::count).sum();
      assertThat(timed).isPositive();
      assertThat((double) timed).isEqualTo(sum(registry, "koala.task.batches", id, "count"));
      assertThat(timed)
          .as("the batches the tasks' own histograms hold")
          .isEqualTo(
              job.metrics().tasksOf("count").stream()
                  .mapToLong(t -> t.batchLatency().count())
                  .sum());

      metrics.refresh(); // the poll after its end
      assertThat(registry.find("koala.task.records.in").tag("job", id).meters()).isEmpty();
      assertThat(registry.find("koala.job.status").tag("job", id).meters()).isEmpty();
    }
    assertThat(registry.getMeters()).as("nothing left once closed").isEmpty();
  }

  @Test
  void closingUnbindsAndStopsPolling(@TempDir Path dir) {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir))) {
      // README-BEGIN
      KoalaMetrics metrics =
          KoalaMetrics.builder(runtime) // every job the runtime runs; builder(job) for one
              .tags(Tags.of("service", "orders"))
              .pollInterval(Duration.ofSeconds(1)) // 10 s unless set
              .build();
      metrics.bindTo(registry); // the service's MeterRegistry: Prometheus, OTLP, ...
      JobHandle job = runtime.submit(counting("orders", Long.MAX_VALUE));
      // README-END
      await(
          "the job's task meters",
          () -> registry.find("koala.task.records.in").tag("job", job.id()).meters().size() == 4);
      assertThat(registry.get("koala.task.batch.latency").tag("service", "orders").timers())
          .isNotEmpty();

      metrics.close();
      assertThat(registry.getMeters()).isEmpty();
      metrics.refresh(); // polls nothing once closed
      assertThat(registry.getMeters()).isEmpty();
      assertThatThrownBy(() -> metrics.bindTo(registry))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("closed");
      job.close();
    }
  }

  @Test
  void aBinderBindsOnceAndRefreshesOnlyOnceBound() {
    try (KoalaMetrics metrics =
        KoalaMetrics.builder(List::<JobHandle>of).pollInterval(Duration.ZERO).build()) {
      assertThatThrownBy(metrics::refresh)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("bind");
      metrics.bindTo(new SimpleMeterRegistry());
      assertThatThrownBy(() -> metrics.bindTo(new SimpleMeterRegistry()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("CompositeMeterRegistry");
    }
    assertThatThrownBy(
            () -> KoalaMetrics.builder(List::<JobHandle>of).pollInterval(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("poll interval");
  }

  /** Whether the job's status gauge says it finished. */
  private static boolean finished(MeterRegistry registry, String job) {
    var status = registry.find("koala.job.status").tag("job", job).tag("status", "FINISHED");
    return status.gauge() != null && status.gauge().value() == 1;
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }
}
