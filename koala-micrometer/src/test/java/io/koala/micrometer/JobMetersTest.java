package io.koala.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.BucketLoads;
import io.koala.job.CheckpointStats;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.LatencyHistogram;
import io.koala.job.ReconfigurationReport;
import io.koala.job.StatePlaneStats;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * A job's meters across successive snapshots: counters that keep counting through rollbacks and
 * restarted tasks, timers fed each duration once, meters that go with their tasks.
 */
class JobMetersTest {
  private static final TaskId COUNT_0 = new TaskId(new OperatorId("count"), 0);
  private static final TaskId COUNT_1 = new TaskId(new OperatorId("count"), 1);

  /** A task that consumed {@code in} records in {@code batches} batches of {@code millis} ms. */
  private static TaskMetricsSnapshot task(TaskId id, long in, int batches, long millis) {
    Histogram h = new Histogram(LatencyHistogram.MAX_NANOS, 2);
    h.recordValueWithCount(millis * 1_000_000, batches);
    return new TaskMetricsSnapshot(
        id,
        "RUNNING",
        in,
        in,
        0,
        0,
        batches,
        LatencyHistogram.fromCompressed(Increments.compress(h)),
        0,
        0,
        0,
        0,
        false,
        Long.MIN_VALUE,
        0,
        TaskMetricsSnapshot.Reconfiguration.NONE,
        StatePlaneStats.NONE,
        List.of(),
        0,
        0,
        0,
        BucketLoads.NONE);
  }

  private static MeterRows.Snapshot snapshot(
      int rollbacks, List<ReconfigurationReport> reports, TaskMetricsSnapshot... tasks) {
    return snapshot(rollbacks, reports, reports.size(), tasks);
  }

  /** A snapshot keeping {@code reports}, the newest of {@code completed} reconfigurations. */
  private static MeterRows.Snapshot snapshot(
      int rollbacks,
      List<ReconfigurationReport> reports,
      int completed,
      TaskMetricsSnapshot... tasks) {
    Map<TaskId, Integer> placement = new LinkedHashMap<>();
    for (TaskMetricsSnapshot t : tasks) {
      placement.put(t.task(), t.task().index());
    }
    return MeterRows.of(
        new JobMetrics(
            "orders",
            JobStatus.RUNNING,
            10_000,
            List.of(tasks),
            reports,
            placement,
            rollbacks,
            CheckpointStats.NONE,
            null,
            io.koala.job.AutoscalerStatus.OFF,
            completed),
        List.of());
  }

  private static MeterRows.Snapshot snapshot(int rollbacks, TaskMetricsSnapshot... tasks) {
    return snapshot(rollbacks, List.of(), tasks);
  }

  private static double recordsIn(MeterRegistry registry, TaskId task) {
    return registry
        .get("koala.task.records.in")
        .tag("task", task.toString())
        .functionCounter()
        .count();
  }

  private static long batches(MeterRegistry registry, TaskId task) {
    return registry.get("koala.task.batch.latency").tag("task", task.toString()).timer().count();
  }

  @Test
  void countersAndTimersGoOnThroughARollbackWhoseTasksCountAfresh() {
    MeterRegistry registry = new SimpleMeterRegistry();
    JobMeters meters = new JobMeters(registry, Tags.empty(), true);
    meters.update(snapshot(0, task(COUNT_0, 100, 10, 1), task(COUNT_1, 50, 5, 2)));
    meters.update(snapshot(0, task(COUNT_0, 150, 15, 1), task(COUNT_1, 80, 8, 2)));
    assertThat(recordsIn(registry, COUNT_0)).isEqualTo(150);
    assertThat(batches(registry, COUNT_0)).as("10, then 5 more").isEqualTo(15);

    // rolled back: count#0's new run has already passed its old total, count#1's has not
    meters.update(snapshot(1, task(COUNT_0, 200, 20, 1), task(COUNT_1, 10, 1, 2)));
    assertThat(recordsIn(registry, COUNT_0)).isEqualTo(150 + 200);
    assertThat(recordsIn(registry, COUNT_1)).isEqualTo(80 + 10);
    assertThat(batches(registry, COUNT_0)).isEqualTo(15 + 20);
    assertThat(batches(registry, COUNT_1)).isEqualTo(8 + 1);
    assertThat(
            registry
                .get("koala.task.batch.latency")
                .tag("task", "count#1")
                .timer()
                .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
        .as("9 batches of 2 ms, to HdrHistogram's two significant digits")
        .isBetween(17.8, 18.2);
    assertThat(registry.get("koala.job.rollbacks").functionCounter().count()).isEqualTo(1);
  }

  @Test
  void aTaskWhoseTotalGoesDownWithoutARollbackRestartedAndCountsAfresh() {
    MeterRegistry registry = new SimpleMeterRegistry();
    JobMeters meters = new JobMeters(registry, Tags.empty(), true);
    meters.update(snapshot(0, task(COUNT_0, 100, 10, 1)));
    meters.update(snapshot(0, task(COUNT_0, 30, 3, 1)));
    assertThat(recordsIn(registry, COUNT_0)).isEqualTo(130);
    assertThat(batches(registry, COUNT_0)).isEqualTo(13);
  }

  @Test
  void theMetersOfARetiredTaskGoAndThoseOfANewOneCountFromItsStart() {
    MeterRegistry registry = new SimpleMeterRegistry();
    JobMeters meters = new JobMeters(registry, Tags.of("service", "orders-api"), false);
    meters.update(snapshot(0, task(COUNT_0, 100, 10, 1)));
    assertThat(batches(registry, COUNT_0))
        .as("a job that ran before the binder: its history is not replayed")
        .isZero();
    assertThat(recordsIn(registry, COUNT_0)).as("counters show its totals").isEqualTo(100);

    meters.update(snapshot(0, task(COUNT_0, 120, 12, 1), task(COUNT_1, 40, 4, 1)));
    assertThat(batches(registry, COUNT_0)).isEqualTo(2);
    assertThat(batches(registry, COUNT_1)).as("a task that appeared since: all of it").isEqualTo(4);
    assertThat(registry.get("koala.task.records.in").tag("service", "orders-api").meters())
        .hasSize(2);

    meters.update(snapshot(0, task(COUNT_1, 60, 6, 1)));
    assertThat(registry.find("koala.task.records.in").tag("task", "count#0").meters()).isEmpty();
    assertThat(registry.find("koala.task.batch.latency").tag("task", "count#0").meters()).isEmpty();
    assertThat(batches(registry, COUNT_1)).isEqualTo(6);

    meters.close();
    assertThat(registry.getMeters()).isEmpty();
  }

  private static ReconfigurationReport rescale(long epoch, long millis) {
    return new ReconfigurationReport(
        epoch,
        "count",
        "rescale",
        List.of(0),
        List.of(0, 1),
        List.of(),
        1,
        millis,
        0,
        0,
        0,
        0,
        0,
        0,
        0);
  }

  @Test
  void eachReconfigurationIsTimedOnceEvenWhenARollbackUndoesIt() {
    MeterRegistry registry = new SimpleMeterRegistry();
    JobMeters meters = new JobMeters(registry, Tags.empty(), true);
    meters.update(snapshot(0, List.of(rescale(1, 1_000), rescale(2, 2_000))));
    // a rollback to a checkpoint taken before epoch 2 undoes its report; then epoch 3 completes
    meters.update(snapshot(1, List.of(rescale(1, 1_000))));
    meters.update(snapshot(1, List.of(rescale(1, 1_000), rescale(3, 4_000))));
    Timer timer = registry.get("koala.job.reconfiguration.duration").tag("kind", "rescale").timer();
    assertThat(timer.count()).isEqualTo(3);
    assertThat(timer.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(7.0);
    FunctionCounter completed = registry.get("koala.job.reconfigurations").functionCounter();
    assertThat(completed.count()).as("what was counted stays counted").isEqualTo(3);
  }

  @Test
  void aJobKeepingOnlyItsNewestReportsHasEachTimedOnceAndAllCounted() {
    MeterRegistry registry = new SimpleMeterRegistry();
    JobMeters meters = new JobMeters(registry, Tags.empty(), true);
    meters.update(snapshot(0, List.of(rescale(99, 1_000), rescale(100, 2_000)), 100));
    // the oldest kept report dropped out as epoch 101 completed: only that one is new
    meters.update(snapshot(0, List.of(rescale(100, 2_000), rescale(101, 4_000)), 101));
    Timer timer = registry.get("koala.job.reconfiguration.duration").tag("kind", "rescale").timer();
    assertThat(timer.count()).isEqualTo(3);
    assertThat(timer.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(7.0);
    FunctionCounter completed = registry.get("koala.job.reconfigurations").functionCounter();
    assertThat(completed.count()).as("every one, not only those kept").isEqualTo(101);
  }

  @Test
  void prometheusGetsBucketsThatSumAcrossTasks() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    JobMeters meters = new JobMeters(registry, Tags.empty(), true);
    meters.update(snapshot(0, task(COUNT_0, 100, 10, 1), task(COUNT_1, 50, 5, 30)));
    String scrape = registry.scrape();

    List<Double> all = series(scrape, "koala_task_batch_latency_seconds_bucket", "le=\"+Inf\"");
    assertThat(all).as("one +Inf bucket per task").hasSize(2);
    assertThat(all.stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(15);
    // count#0's ten 1 ms batches are under 20 ms, count#1's five 30 ms ones are not
    List<Double> under20ms =
        series(scrape, "koala_task_batch_latency_seconds_bucket", "le=\"0.02\"");
    assertThat(under20ms.stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(10);
    assertThat(scrape).contains("koala_task_records_in_total{");
    meters.close();
  }

  /** The values of the series {@code name} whose labels contain {@code label}. */
  private static List<Double> series(String scrape, String name, String label) {
    Matcher m =
        Pattern.compile(
                "(?m)^"
                    + Pattern.quote(name)
                    + "\\{[^}]*"
                    + Pattern.quote(label)
                    + "[^}]*} (\\S+)$")
            .matcher(scrape);
    List<Double> out = new ArrayList<>();
    while (m.find()) {
      out.add(Double.parseDouble(m.group(1)));
    }
    return out;
  }
}
