package io.koala.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

import io.koala.job.BucketLoads;
import io.koala.job.CheckpointStats;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.LatencyHistogram;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.ReconfigurationReport;
import io.koala.job.StatePlaneStats;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskMetricsSnapshot.OperatorCounts;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rows of a job: names, kinds, tags and values from one snapshot. */
class MeterRowsTest {
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
            Map.of(1, h, 2, h),
            10,
            2,
            0,
            0),
        operators,
        1_200_000_000L,
        0.75,
        80.0,
        BucketLoads.NONE);
  }

  private static MeterRows.Value row(List<MeterRows.Row> rows, String name, String task) {
    return rows.stream()
        .filter(r -> r.name().equals(name))
        .filter(r -> task == null || task.equals(r.tags().get("task")))
        .map(MeterRows.Value.class::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row " + name + " for " + task + " in " + rows));
  }

  private static MeterRows.Value operatorRow(
      List<MeterRows.Row> rows, String name, String operator) {
    return rows.stream()
        .filter(r -> r.name().equals(name) && operator.equals(r.tags().get("operator")))
        .map(MeterRows.Value.class::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row " + name + " for " + operator));
  }

  private static MeterRows.Latencies latencies(List<MeterRows.Row> rows, String name, String task) {
    return rows.stream()
        .filter(r -> r.name().equals(name) && task.equals(r.tags().get("task")))
        .map(MeterRows.Latencies.class::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row " + name + " for " + task + " in " + rows));
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
            new CheckpointStats(
                5,
                9,
                1_500,
                64_000,
                1,
                3,
                new CheckpointStats.Pending(10, 2_500, "checkpoint 10: {}")),
            progress);
    List<MeterRows.Row> rows =
        MeterRows.of(m, List.of("pekko://koala@a:1", "pekko://koala@b:2")).rows();

    List<MeterRows.Value> status =
        rows.stream()
            .filter(r -> r.name().equals("koala.job.status"))
            .map(MeterRows.Value.class::cast)
            .toList();
    assertThat(status)
        .as("one gauge per status, 1 for the current one")
        .extracting(r -> r.tags().get("status"), MeterRows.Value::value)
        .containsExactly(
            tuple("DEPLOYING", 0.0),
            tuple("RUNNING", 1.0),
            tuple("FINISHED", 0.0),
            tuple("FAILED", 0.0),
            tuple("CANCELLED", 0.0),
            tuple("STOPPED", 0.0));
    assertThat(status).allMatch(r -> r.tags().get("job").equals("orders"));
    assertThat(row(rows, "koala.job.rollbacks", null).value()).isEqualTo(2);
    assertThat(row(rows, "koala.job.rollbacks", null).kind()).isEqualTo(MeterRows.Kind.COUNTER);
    assertThat(row(rows, "koala.job.reconfiguration.active", null).value()).isEqualTo(1);
    MeterRows.Value eta = row(rows, "koala.job.reconfiguration.eta.seconds", null);
    assertThat(eta.value()).isEqualTo(2.5);
    assertThat(eta.tags()).containsEntry("operator", "count").containsEntry("phase", "DRAINING");
    assertThat(row(rows, "koala.job.reconfiguration.holder.bytes", null).value()).isEqualTo(5_000);
    assertThat(row(rows, "koala.job.checkpoints", null).value()).isEqualTo(5);
    assertThat(row(rows, "koala.job.checkpoints.quarantined", null).value()).isEqualTo(1);
    assertThat(row(rows, "koala.job.checkpoints.timed.out", null).value()).isEqualTo(3);
    assertThat(row(rows, "koala.job.checkpoint.pending.seconds", null).value()).isEqualTo(2.5);
    assertThat(row(rows, "koala.job.checkpoint.last.duration.seconds", null).value())
        .isEqualTo(1.5);
    assertThat(row(rows, "koala.job.checkpoint.last.bytes", null).value()).isEqualTo(64_000);

    MeterRows.Value in = row(rows, "koala.task.records.in", "count#1");
    assertThat(in.value()).isEqualTo(500);
    assertThat(in.kind())
        .as("a task's total restarts with it")
        .isEqualTo(MeterRows.Kind.RUN_COUNTER);
    assertThat(in.tags())
        .containsEntry("job", "orders")
        .containsEntry("operator", "count")
        .containsEntry("worker", "pekko://koala@b:2");
    assertThat(row(rows, "koala.task.state.bytes", "count#0").value()).isEqualTo(4_000);
    MeterRows.Value busy = row(rows, "koala.task.busy.fraction", "count#0");
    assertThat(busy.value()).isEqualTo(0.75);
    assertThat(busy.kind()).isEqualTo(MeterRows.Kind.GAUGE);
    MeterRows.Value busySeconds = row(rows, "koala.task.busy.seconds", "count#0");
    assertThat(busySeconds.value()).isEqualTo(1.2);
    assertThat(busySeconds.kind()).isEqualTo(MeterRows.Kind.RUN_COUNTER);
    assertThat(row(rows, "koala.task.backpressured", "count#0").value()).isEqualTo(1);
    // 10 s wall clock, watermark at 7 s: 3 s behind; no watermark yet: no row
    assertThat(row(rows, "koala.task.watermark.lag.seconds", "count#0").value()).isEqualTo(3.0);
    assertThat(rows)
        .noneMatch(
            r ->
                r.name().equals("koala.task.watermark.lag.seconds")
                    && "count#1".equals(r.tags().get("task")));
    MeterRows.Latencies latency = latencies(rows, "koala.task.batch.latency", "count#0");
    assertThat(latency.nanos().getTotalCount()).isEqualTo(2);
    assertThat(latency.nanos().getMaxValue()).isBetween(7_900_000L, 8_100_000L);
    assertThat(latency.tags()).containsEntry("worker", "pekko://koala@a:1");
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
    List<MeterRows.Row> rows = MeterRows.of(m, List.of("pekko://koala@a:1")).rows();
    List<MeterRows.Row> stalls =
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
    assertThat(stalls)
        .extracting(r -> ((MeterRows.Value) r).value())
        .containsExactly(1.5, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0);
    assertThat(((MeterRows.Value) stalls.get(0)).kind()).isEqualTo(MeterRows.Kind.RUN_COUNTER);
    assertThat(row(rows, "koala.task.hold.seconds", "count#0").value()).isEqualTo(2.0);
    MeterRows.Latencies trips = latencies(rows, "koala.task.fetch.round.trip", "count#0");
    assertThat(trips.nanos().getTotalCount()).as("both holders' round trips").isEqualTo(4);
    assertThat(trips.tags()).doesNotContainKey("holder");
    assertThat(row(rows, "koala.task.releases.sent", "count#0").value()).isEqualTo(10);
    assertThat(row(rows, "koala.task.release.messages.sent", "count#0").value()).isEqualTo(2);
  }

  @Test
  void eachOperatorOfAChainHasRowsOfItsOwn() {
    // count#0 runs count → out (a chained sink): out has no task, only operator rows
    List<OperatorCounts> chain =
        List.of(
            new OperatorCounts(new OperatorId("count"), 1_000, 900, 100.0, 3, 2),
            new OperatorCounts(new OperatorId("out"), 900, 0, 90.0, 0, 0));
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
    List<MeterRows.Row> rows = MeterRows.of(m, List.of("pekko://koala@a:1")).rows();

    List<MeterRows.Value> in =
        rows.stream()
            .filter(r -> r.name().equals("koala.operator.records.in"))
            .map(MeterRows.Value.class::cast)
            .toList();
    assertThat(in)
        .extracting(r -> r.tags().get("operator"), MeterRows.Value::value)
        .containsExactly(tuple("count", 1_000.0), tuple("out", 900.0));
    assertThat(in.get(1).kind()).isEqualTo(MeterRows.Kind.RUN_COUNTER);
    assertThat(in.get(1).tags())
        .containsExactly(
            entry("job", "orders"),
            entry("operator", "out"),
            entry("task", "count#0"),
            entry("worker", "pekko://koala@a:1"));
    assertThat(operatorRow(rows, "koala.operator.records.out", "count").value()).isEqualTo(900);
    assertThat(operatorRow(rows, "koala.operator.records.out", "out").value()).isZero();
    MeterRows.Value rate = operatorRow(rows, "koala.operator.records.in.rate", "out");
    assertThat(rate.value()).isEqualTo(90.0);
    assertThat(rate.kind()).isEqualTo(MeterRows.Kind.GAUGE);
    assertThat(operatorRow(rows, "koala.operator.late.records", "count").value()).isEqualTo(3);
    assertThat(operatorRow(rows, "koala.operator.records.skipped", "count").value()).isEqualTo(2);
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
    List<MeterRows.Row> rows = MeterRows.of(m, List.of()).rows();
    assertThat(row(rows, "koala.job.reconfiguration.active", null).value()).isZero();
    assertThat(rows)
        .extracting(MeterRows.Row::name)
        .doesNotContain(
            "koala.job.reconfiguration.eta.seconds",
            "koala.job.checkpoint.last.bytes",
            "koala.job.reconfiguration.last.duration.seconds");
  }

  @Test
  void anAutoscaledJobCountsDecisionsByKindAndShowsTheParallelismWanted() {
    io.koala.job.AutoscalerStatus status =
        new io.koala.job.AutoscalerStatus(
            true,
            List.of(
                new io.koala.job.AutoscalerEvaluation(
                    5_000, "count", 2, 900, 1_200, 300, 2.0, 5, "target 1,200 records/s ...")),
            List.of(),
            3,
            1,
            2);
    JobMetrics m =
        new JobMetrics(
            "scaled",
            JobStatus.RUNNING,
            5_000,
            List.of(),
            List.of(),
            Map.of(),
            0,
            CheckpointStats.NONE,
            null,
            status);
    List<MeterRows.Row> rows = MeterRows.of(m, List.of()).rows();
    java.util.Map<String, Double> byKind = new java.util.HashMap<>();
    rows.stream()
        .filter(r -> r.name().equals("koala.job.autoscaler.decisions"))
        .map(MeterRows.Value.class::cast)
        .forEach(r -> byKind.put(r.tags().get("kind"), r.value()));
    assertThat(byKind)
        .containsOnly(
            java.util.Map.entry("SCALE_OUT", 3.0),
            java.util.Map.entry("SCALE_IN", 1.0),
            java.util.Map.entry("REBALANCE", 2.0));
    assertThat(operatorRow(rows, "koala.job.autoscaler.wanted.parallelism", "count").value())
        .isEqualTo(5);
  }

  @Test
  void aJobNotAutoscaledHasNoAutoscalerRows() {
    JobMetrics m =
        new JobMetrics(
            "plain",
            JobStatus.RUNNING,
            0,
            List.of(),
            List.of(),
            Map.of(),
            0,
            CheckpointStats.NONE,
            null);
    assertThat(MeterRows.of(m, List.of()).rows())
        .extracting(MeterRows.Row::name)
        .noneMatch(n -> n.startsWith("koala.job.autoscaler"));
  }

  private static ReconfigurationReport report(long epoch, String operator, String kind, long ms) {
    return new ReconfigurationReport(
        epoch, operator, kind, List.of(0), List.of(0, 1), List.of(3), 1, ms, 0, 0, 0, 0, 0, 0, 0);
  }

  @Test
  void completedReconfigurationsAreAHistoryOfDurationsByOperatorAndKind() {
    JobMetrics m =
        new JobMetrics(
            "orders",
            JobStatus.RUNNING,
            10_000,
            List.of(),
            List.of(
                report(1, "count", "rescale", 1_500),
                report(2, "join", "migrate", 700),
                report(3, "count", "rescale", 2_500)),
            Map.of(),
            0,
            CheckpointStats.NONE,
            null);
    List<MeterRows.Row> rows = MeterRows.of(m, List.of()).rows();
    assertThat(rows)
        .filteredOn(r -> r.name().equals("koala.job.reconfiguration.duration"))
        .extracting(
            r -> r.tags().get("operator"),
            r -> r.tags().get("kind"),
            r -> ((MeterRows.Durations) r).nanos())
        .containsExactly(
            tuple("count", "rescale", List.of(1_500_000_000L, 2_500_000_000L)),
            tuple("join", "migrate", List.of(700_000_000L)));
    assertThat(row(rows, "koala.job.reconfigurations", null).value()).isEqualTo(3);
    assertThat(row(rows, "koala.job.reconfiguration.last.duration.seconds", null).value())
        .isEqualTo(2.5);
  }
}
