package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

import io.koala.job.CheckpointStats;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.LatencyHistogram;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.StatePlaneStats;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskMetricsSnapshot.OperatorCounts;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rows a node exports for a job: names, kinds, tags and values from one snapshot. */
class MetricRowsTest {
  private static final TaskId COUNT_0 = new TaskId(new OperatorId("count"), 0);
  private static final TaskId COUNT_1 = new TaskId(new OperatorId("count"), 1);

  private static TaskMetricsSnapshot task(TaskId id, long in, long stateBytes, long watermark) {
    return task(id, in, stateBytes, watermark, List.of());
  }

  private static TaskMetricsSnapshot task(
      TaskId id, long in, long stateBytes, long watermark, List<OperatorCounts> operators) {
    LatencyHistogram h = LatencyHistogram.of(2_000_000, 8_000_000); // 2 ms, 8 ms
    return new TaskMetricsSnapshot(
        id,
        "RUNNING",
        in,
        in / 2,
        100.0,
        50.0,
        2,
        h,
        0,
        0,
        stateBytes,
        stateBytes / 10,
        true,
        watermark,
        3,
        TaskMetricsSnapshot.Reconfiguration.NONE,
        new StatePlaneStats(
            new long[] {1_500_000_000L, 0, 0, 0, 250_000_000L, 0, 0},
            2_000_000_000L,
            Map.of(1, h),
            10,
            2,
            0,
            0),
        operators);
  }

  private static MetricRows.Row row(List<MetricRows.Row> rows, String name, String task) {
    return rows.stream()
        .filter(r -> r.name().equals(name))
        .filter(r -> task == null || task.equals(r.tags().get("task")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row " + name + " for " + task + " in " + rows));
  }

  private static MetricRows.Row operatorRow(
      List<MetricRows.Row> rows, String name, String operator) {
    return rows.stream()
        .filter(r -> r.name().equals(name) && operator.equals(r.tags().get("operator")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row " + name + " for " + operator));
  }

  @Test
  void aRunningJobWithAReconfigurationAndACheckpoint() {
    ReconfigurationProgress progress =
        new ReconfigurationProgress(
            "rescale count to 3", "count", 4, "DRAINING", 1_000, 1, 5_000, 2.5);
    JobMetrics m =
        new JobMetrics(
            "orders",
            JobStatus.RUNNING,
            10_000,
            List.of(task(COUNT_0, 1_000, 4_000, 7_000), task(COUNT_1, 500, 1_000, Long.MIN_VALUE)),
            List.of(),
            Map.of(COUNT_0, 0, COUNT_1, 1),
            2,
            new CheckpointStats(5, 9, 1_500, 64_000),
            progress);
    List<MetricRows.Row> rows = MetricRows.of(m, List.of("pekko://koala@a:1", "pekko://koala@b:2"));

    MetricRows.Row status = row(rows, "koala.job.status", null);
    assertThat(status.tags()).containsEntry("job", "orders").containsEntry("status", "RUNNING");
    assertThat(row(rows, "koala.job.rollbacks", null).value()).isEqualTo(2);
    assertThat(row(rows, "koala.job.rollbacks", null).kind()).isEqualTo(MetricRows.Kind.COUNTER);
    assertThat(row(rows, "koala.job.reconfiguration.active", null).value()).isEqualTo(1);
    MetricRows.Row eta = row(rows, "koala.job.reconfiguration.eta.seconds", null);
    assertThat(eta.value()).isEqualTo(2.5);
    assertThat(eta.tags()).containsEntry("operator", "count").containsEntry("phase", "DRAINING");
    assertThat(row(rows, "koala.job.reconfiguration.holder.bytes", null).value()).isEqualTo(5_000);
    assertThat(row(rows, "koala.job.checkpoints", null).value()).isEqualTo(5);
    assertThat(row(rows, "koala.job.checkpoint.last.duration.seconds", null).value())
        .isEqualTo(1.5);
    assertThat(row(rows, "koala.job.checkpoint.last.bytes", null).value()).isEqualTo(64_000);

    MetricRows.Row in = row(rows, "koala.task.records.in", "count#1");
    assertThat(in.value()).isEqualTo(500);
    assertThat(in.kind()).isEqualTo(MetricRows.Kind.COUNTER);
    assertThat(in.tags())
        .containsEntry("job", "orders")
        .containsEntry("operator", "count")
        .containsEntry("worker", "pekko://koala@b:2");
    assertThat(row(rows, "koala.task.state.bytes", "count#0").value()).isEqualTo(4_000);
    assertThat(row(rows, "koala.task.backpressured", "count#0").value()).isEqualTo(1);
    // 10 s wall clock, watermark at 7 s: 3 s behind; no watermark yet: no row
    assertThat(row(rows, "koala.task.watermark.lag.seconds", "count#0").value()).isEqualTo(3.0);
    assertThat(rows)
        .noneMatch(
            r ->
                r.name().equals("koala.task.watermark.lag.seconds")
                    && "count#1".equals(r.tags().get("task")));
    List<MetricRows.Row> latency =
        rows.stream()
            .filter(r -> r.name().equals("koala.task.batch.latency.seconds"))
            .filter(r -> "count#0".equals(r.tags().get("task")))
            .toList();
    assertThat(latency)
        .extracting(r -> r.tags().get("quantile"))
        .containsExactly("0.5", "0.99", "1.0");
    assertThat(latency.get(2).value()).isBetween(0.0079, 0.0081);
  }

  @Test
  void aTasksStallsRoundTripsAndReleases() {
    JobMetrics m =
        new JobMetrics(
            "orders",
            JobStatus.RUNNING,
            10_000,
            List.of(task(COUNT_0, 1_000, 4_000, 7_000)),
            List.of(),
            Map.of(COUNT_0, 0),
            0,
            CheckpointStats.NONE,
            null);
    List<MetricRows.Row> rows = MetricRows.of(m, List.of("pekko://koala@a:1"));
    List<MetricRows.Row> stalls =
        rows.stream().filter(r -> r.name().equals("koala.task.stall.seconds")).toList();
    assertThat(stalls)
        .extracting(r -> r.tags().get("reason"))
        .containsExactly(
            "parked_gate",
            "parked_limit",
            "held_limit",
            "throttle",
            "blocked_output",
            "alignment",
            "sink_busy");
    assertThat(stalls.get(0).value()).isEqualTo(1.5);
    assertThat(stalls.get(4).value()).isEqualTo(0.25);
    assertThat(stalls.get(0).kind()).isEqualTo(MetricRows.Kind.COUNTER);
    assertThat(row(rows, "koala.task.hold.seconds", "count#0").value()).isEqualTo(2.0);
    List<MetricRows.Row> trips =
        rows.stream().filter(r -> r.name().equals("koala.task.fetch.round.trip.seconds")).toList();
    assertThat(trips).allMatch(r -> "1".equals(r.tags().get("holder")));
    assertThat(trips).extracting(r -> r.tags().get("quantile")).containsExactly("0.5", "0.99");
    assertThat(trips.get(1).value()).isBetween(0.0079, 0.0081);
    assertThat(row(rows, "koala.task.releases.sent", "count#0").value()).isEqualTo(10);
    assertThat(row(rows, "koala.task.release.messages.sent", "count#0").value()).isEqualTo(2);
  }

  @Test
  void eachOperatorOfAChainHasRowsOfItsOwn() {
    // count#0 runs count → out (a chained sink): out has no task, only operator rows
    List<OperatorCounts> chain =
        List.of(
            new OperatorCounts(new OperatorId("count"), 1_000, 900, 100.0, 3),
            new OperatorCounts(new OperatorId("out"), 900, 0, 90.0, 0));
    JobMetrics m =
        new JobMetrics(
            "orders",
            JobStatus.RUNNING,
            10_000,
            List.of(task(COUNT_0, 1_000, 4_000, 7_000, chain)),
            List.of(),
            Map.of(COUNT_0, 0),
            0,
            CheckpointStats.NONE,
            null);
    List<MetricRows.Row> rows = MetricRows.of(m, List.of("pekko://koala@a:1"));

    List<MetricRows.Row> in =
        rows.stream().filter(r -> r.name().equals("koala.operator.records.in")).toList();
    assertThat(in)
        .extracting(r -> r.tags().get("operator"), MetricRows.Row::value)
        .containsExactly(tuple("count", 1_000.0), tuple("out", 900.0));
    assertThat(in.get(1).kind()).isEqualTo(MetricRows.Kind.COUNTER);
    assertThat(in.get(1).tags())
        .containsExactly(
            entry("job", "orders"),
            entry("operator", "out"),
            entry("task", "count#0"),
            entry("worker", "pekko://koala@a:1"));
    assertThat(operatorRow(rows, "koala.operator.records.out", "count").value()).isEqualTo(900);
    assertThat(operatorRow(rows, "koala.operator.records.out", "out").value()).isZero();
    MetricRows.Row rate = operatorRow(rows, "koala.operator.records.in.rate", "out");
    assertThat(rate.value()).isEqualTo(90.0);
    assertThat(rate.kind()).isEqualTo(MetricRows.Kind.GAUGE);
    assertThat(operatorRow(rows, "koala.operator.late.records", "count").value()).isEqualTo(3);
    assertThat(row(rows, "koala.task.records.in", "count#0").tags())
        .as("the task's rows keep the head's name")
        .containsEntry("operator", "count");
  }

  @Test
  void anIdleJobHasNoReconfigurationOrCheckpointDetail() {
    JobMetrics m =
        new JobMetrics(
            "idle",
            JobStatus.DEPLOYING,
            0,
            List.of(),
            List.of(),
            Map.of(),
            0,
            CheckpointStats.NONE,
            null);
    List<MetricRows.Row> rows = MetricRows.of(m, List.of());
    assertThat(row(rows, "koala.job.reconfiguration.active", null).value()).isZero();
    assertThat(rows)
        .extracting(MetricRows.Row::name)
        .doesNotContain(
            "koala.job.reconfiguration.eta.seconds",
            "koala.job.checkpoint.last.bytes",
            "koala.job.reconfiguration.last.duration.seconds");
  }
}
