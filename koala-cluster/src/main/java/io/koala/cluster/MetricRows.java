package io.koala.cluster;

import io.koala.job.JobMetrics;
import io.koala.job.LatencyHistogram;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.ReconfigurationReport;
import io.koala.job.StatePlaneStats;
import io.koala.job.StatePlaneStats.Stall;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskMetricsSnapshot.OperatorCounts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metrics a node exports for a job it coordinates, as rows: a pure translation of a {@link
 * JobMetrics} snapshot (tested without a registry). {@code docs/operations.md} lists every name,
 * its tags and its unit; a Micrometer name {@code koala.task.records.in} of kind {@link
 * Kind#COUNTER} is {@code koala_task_records_in_total} in Prometheus' text format, a gauge keeps
 * its name with underscores.
 */
final class MetricRows {
  private MetricRows() {}

  /** How Prometheus should read a row. */
  enum Kind {
    /** A value that goes up and down. */
    GAUGE,
    /** A running total since the job's coordinator started; it may reset on a rollback. */
    COUNTER
  }

  /** One time series' value now. */
  record Row(String name, Kind kind, Map<String, String> tags, double value, String help) {
    Row {
      tags = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tags));
    }
  }

  private static final double[] QUANTILES = {0.5, 0.99};

  /**
   * The rows of {@code m}, a snapshot taken at {@code m.atMillis()}; {@code workerNodes}: the node
   * address of each worker index (a task's {@code worker} tag; the index itself when unknown).
   */
  static List<Row> of(JobMetrics m, List<String> workerNodes) {
    List<Row> rows = new ArrayList<>();
    Map<String, String> job = Map.of("job", m.jobId());
    rows.add(
        new Row(
            "koala.job.status",
            Kind.GAUGE,
            tags(job, "status", m.status().name()),
            1,
            "1 for the job's current status"));
    rows.add(
        new Row(
            "koala.job.rollbacks",
            Kind.COUNTER,
            job,
            m.rollbacks(),
            "rollbacks to a checkpoint since the job's coordinator started"));
    rows.add(
        new Row(
            "koala.job.reconfigurations",
            Kind.COUNTER,
            job,
            m.reconfigurations().size(),
            "reconfigurations completed"));
    rows.add(
        new Row(
            "koala.job.state.transferred.bytes",
            Kind.COUNTER,
            job,
            m.stateBytesTransferred(),
            "bytes of state installed from other tasks (fetched or drained)"));
    rows.add(
        new Row(
            "koala.job.keys.transferred",
            Kind.COUNTER,
            job,
            m.keysTransferred(),
            "keys whose state was installed from other tasks"));
    if (!m.reconfigurations().isEmpty()) {
      ReconfigurationReport last = m.reconfigurations().get(m.reconfigurations().size() - 1);
      rows.add(
          new Row(
              "koala.job.reconfiguration.last.duration.seconds",
              Kind.GAUGE,
              job,
              last.durationMillis() / 1000.0,
              "duration of the last completed reconfiguration"));
    }
    ReconfigurationProgress p = m.reconfiguring();
    rows.add(
        new Row(
            "koala.job.reconfiguration.active",
            Kind.GAUGE,
            job,
            p == null ? 0 : 1,
            "1 while a reconfiguration runs"));
    if (p != null) {
      Map<String, String> running = tags(job, "operator", p.operator(), "phase", p.phase());
      rows.add(
          new Row(
              "koala.job.reconfiguration.holder.bytes",
              Kind.GAUGE,
              running,
              p.holderBytes(),
              "state the running reconfiguration has still to move from retiring holders"));
      rows.add(
          new Row(
              "koala.job.reconfiguration.eta.seconds",
              Kind.GAUGE,
              running,
              p.etaSeconds(),
              "time left for the running reconfiguration (NaN: unknown yet)"));
      rows.add(
          new Row(
              "koala.job.reconfiguration.queued",
              Kind.GAUGE,
              job,
              p.queued(),
              "reconfigurations waiting behind the running one"));
    }
    rows.add(
        new Row(
            "koala.job.checkpoints",
            Kind.COUNTER,
            job,
            m.checkpoints().completed(),
            "checkpoints committed since the job's coordinator started"));
    if (m.checkpoints().completed() > 0) {
      rows.add(
          new Row(
              "koala.job.checkpoint.last.duration.seconds",
              Kind.GAUGE,
              job,
              m.checkpoints().lastDurationMillis() / 1000.0,
              "from trigger to commit, for the last committed checkpoint"));
      rows.add(
          new Row(
              "koala.job.checkpoint.last.bytes",
              Kind.GAUGE,
              job,
              m.checkpoints().lastBytes(),
              "size of the last committed checkpoint's snapshot files"));
    }
    for (TaskMetricsSnapshot t : m.tasks()) {
      Integer worker = m.placement().get(t.task());
      String node =
          worker == null
              ? "none" // a released holder, or a task not placed any more
              : worker < workerNodes.size() ? workerNodes.get(worker) : String.valueOf(worker);
      Map<String, String> task =
          tags(
              job,
              "operator",
              t.task().operator().name(),
              "task",
              t.task().toString(),
              "worker",
              node);
      rows.add(
          new Row("koala.task.records.in", Kind.COUNTER, task, t.recordsIn(), "records consumed"));
      rows.add(
          new Row("koala.task.records.out", Kind.COUNTER, task, t.recordsOut(), "records emitted"));
      rows.add(
          new Row(
              "koala.task.records.in.rate",
              Kind.GAUGE,
              task,
              t.recordsInPerSecond(),
              "records consumed per second, over the last second"));
      rows.add(new Row("koala.task.batches", Kind.COUNTER, task, t.batches(), "batches handled"));
      LatencyHistogram h = t.batchLatency();
      if (h.count() > 0) {
        for (double q : QUANTILES) {
          rows.add(
              new Row(
                  "koala.task.batch.latency.seconds",
                  Kind.GAUGE,
                  tags(task, "quantile", String.valueOf(q)),
                  h.percentile(q * 100) / 1e9,
                  "per-batch processing time"));
        }
        rows.add(
            new Row(
                "koala.task.batch.latency.seconds",
                Kind.GAUGE,
                tags(task, "quantile", "1.0"),
                h.max() / 1e9,
                "per-batch processing time"));
      }
      rows.add(
          new Row(
              "koala.task.backpressured",
              Kind.GAUGE,
              task,
              t.backpressured() ? 1 : 0,
              "1 while the task waits for credit from a downstream task"));
      if (t.watermark() > 0 && t.watermark() < Long.MAX_VALUE) {
        rows.add(
            new Row(
                "koala.task.watermark.lag.seconds",
                Kind.GAUGE,
                task,
                Math.max(0, m.atMillis() - t.watermark()) / 1000.0,
                "how far the task's event-time watermark trails the wall clock"));
      }
      rows.add(
          new Row(
              "koala.task.source.lag.records",
              Kind.GAUGE,
              task,
              t.lagRecords(),
              "records available at a source task but not yet read"));
      rows.add(
          new Row(
              "koala.task.source.lag.seconds",
              Kind.GAUGE,
              task,
              t.lagSeconds(),
              "age of the oldest record a source task has not read"));
      rows.add(
          new Row(
              "koala.task.state.bytes", Kind.GAUGE, task, t.stateBytes(), "bytes in the store"));
      rows.add(
          new Row(
              "koala.task.state.entries",
              Kind.GAUGE,
              task,
              t.stateEntries(),
              "state entries in the store"));
      rows.add(
          new Row(
              "koala.task.late.records",
              Kind.COUNTER,
              task,
              t.lateRecords(),
              "records dropped as later than the watermark allows"));
      statePlane(rows, task, t.statePlane());
      operators(rows, task, t.operators());
    }
    return rows;
  }

  /**
   * The counts of each operator of a task's chain, with the task's tags but that operator's name
   * (the head's repeat the task's own rows): a chained operator has no task of its own.
   */
  private static void operators(
      List<Row> rows, Map<String, String> task, List<OperatorCounts> operators) {
    for (OperatorCounts o : operators) {
      Map<String, String> op = tags(task, "operator", o.operator().name());
      rows.add(
          new Row(
              "koala.operator.records.in",
              Kind.COUNTER,
              op,
              o.recordsIn(),
              "records the operator was given (read, for a source)"));
      rows.add(
          new Row(
              "koala.operator.records.out",
              Kind.COUNTER,
              op,
              o.recordsOut(),
              "records the operator emitted on its main output"));
      rows.add(
          new Row(
              "koala.operator.records.in.rate",
              Kind.GAUGE,
              op,
              o.recordsInPerSecond(),
              "records the operator was given per second, over the last second"));
      rows.add(
          new Row(
              "koala.operator.late.records",
              Kind.COUNTER,
              op,
              o.lateRecords(),
              "records the operator dropped as later than the watermark allows"));
    }
  }

  /**
   * A task's stalls by reason, the time it held records for a peer marker, its fetch round trips
   * per holder, its releases.
   */
  private static void statePlane(List<Row> rows, Map<String, String> task, StatePlaneStats sp) {
    for (Stall reason : Stall.values()) {
      rows.add(
          new Row(
              "koala.task.stall.seconds",
              Kind.COUNTER,
              tags(task, "reason", reason.label()),
              sp.stallNanos(reason) / 1e9,
              "time the task's loop stopped with work queued, by reason"));
    }
    rows.add(
        new Row(
            "koala.task.hold.seconds",
            Kind.COUNTER,
            task,
            sp.holdNanos() / 1e9,
            "time the task held records until a sender's peer marker (overlaps the stalls)"));
    for (int holder : sp.fetchRoundTrips().keySet()) {
      LatencyHistogram h = sp.fetchRoundTrips(holder);
      for (double q : QUANTILES) {
        rows.add(
            new Row(
                "koala.task.fetch.round.trip.seconds",
                Kind.GAUGE,
                tags(task, "holder", String.valueOf(holder), "quantile", String.valueOf(q)),
                h.percentile(q * 100) / 1e9,
                "time from sending a fetch to a holder to running its reply"));
      }
    }
    rows.add(
        new Row(
            "koala.task.releases.sent",
            Kind.COUNTER,
            task,
            sp.releasesSent(),
            "keys whose copy at a former holder this task released"));
    rows.add(
        new Row(
            "koala.task.release.messages.sent",
            Kind.COUNTER,
            task,
            sp.releaseMessagesSent(),
            "release messages those keys went out in"));
    rows.add(
        new Row(
            "koala.task.releases.applied",
            Kind.COUNTER,
            task,
            sp.releasesApplied(),
            "keys this task deleted as a former holder, on release"));
    rows.add(
        new Row(
            "koala.task.release.apply.seconds",
            Kind.COUNTER,
            task,
            sp.releaseApplyNanos() / 1e9,
            "time this task spent applying releases"));
  }

  private static Map<String, String> tags(Map<String, String> base, String... more) {
    Map<String, String> t = new LinkedHashMap<>(base);
    for (int i = 0; i < more.length; i += 2) {
      t.put(more[i], more[i + 1]);
    }
    return t;
  }
}
