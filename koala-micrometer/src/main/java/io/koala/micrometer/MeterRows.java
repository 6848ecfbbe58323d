package io.koala.micrometer;

import io.koala.job.CheckpointStats;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.LatencyHistogram;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.ReconfigurationReport;
import io.koala.job.StatePlaneStats;
import io.koala.job.StatePlaneStats.Stall;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskMetricsSnapshot.OperatorCounts;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The one place that reads a {@link JobMetrics} snapshot: a pure translation into rows, one per
 * series, tested without a registry ({@code MeterRowsTest}). {@code docs/operations.md} lists every
 * name, its tags and its unit; Prometheus writes a counter {@code koala.task.records.in} as {@code
 * koala_task_records_in_total}, a gauge with underscores, and a timer {@code
 * koala.task.batch.latency} as {@code koala_task_batch_latency_seconds_bucket}, {@code _count},
 * {@code _sum} and {@code _max}.
 */
final class MeterRows {
  private MeterRows() {}

  /** How a value row's successive values relate. */
  enum Kind {
    /** A value now, that goes up and down. */
    GAUGE,
    /**
     * A running total kept by the job's coordinator. It may only go down when a rollback undoes
     * history (reconfigurations completed after the restored checkpoint): what was counted stays
     * counted, and counting resumes once the total passes its old value.
     */
    COUNTER,
    /**
     * A running total of the tasks' current run: a rollback restarts every task, which counts
     * afresh from zero (as does a task whose total goes down).
     */
    RUN_COUNTER
  }

  /** One series of a job, as of a snapshot. */
  sealed interface Row permits Value, Latencies, Durations {
    String name();

    Map<String, String> tags();

    String help();
  }

  /** A counter's or a gauge's value now. */
  record Value(String name, Kind kind, Map<String, String> tags, double value, String help)
      implements Row {
    Value {
      tags = frozen(tags);
    }
  }

  /**
   * Durations a task recorded since its current run started (a rollback restarts it), in
   * nanoseconds, resolved to two significant digits: a timer fed with the increments.
   */
  record Latencies(String name, Map<String, String> tags, Histogram nanos, String help)
      implements Row {
    Latencies {
      tags = frozen(tags);
    }
  }

  /**
   * A history of durations in nanoseconds, oldest first, that only grows but for a rollback, which
   * may cut its tail: a timer fed with each entry once.
   */
  /**
   * Durations of a history the job keeps only the newest of: {@code nanos[i]} is entry {@code
   * seqs[i]} of the job's whole history (numbered from 0, increasing), so that what was fed once is
   * told apart from what is new even after the oldest entries were dropped.
   */
  record Durations(
      String name, Map<String, String> tags, List<Long> nanos, List<Integer> seqs, String help)
      implements Row {
    Durations {
      tags = frozen(tags);
      nanos = List.copyOf(nanos);
      seqs = List.copyOf(seqs);
      if (seqs.size() != nanos.size()) {
        throw new IllegalArgumentException(seqs.size() + " numbers for " + nanos.size());
      }
    }
  }

  /**
   * The rows of one snapshot, with what tells its runs apart: {@code rollbacks} changes when the
   * tasks restart from a checkpoint.
   */
  record Snapshot(JobStatus status, int rollbacks, List<Row> rows) {
    Snapshot {
      rows = List.copyOf(rows);
    }
  }

  /**
   * The rows of {@code m}, a snapshot taken at {@code m.atMillis()}; {@code workerNames}: the name
   * of each worker index (a task's {@code worker} tag; the index itself when not named).
   */
  /** The autoscaler's decisions by kind and the parallelism it wants, when the job has one. */
  private static void autoscaler(
      List<Row> rows, Map<String, String> job, io.koala.job.AutoscalerStatus a) {
    if (!a.enabled()) {
      return;
    }
    long[] counts = {a.scaleOuts(), a.scaleIns(), a.rebalances()};
    io.koala.job.AutoscalerDecision.Kind[] kinds = io.koala.job.AutoscalerDecision.Kind.values();
    for (int k = 0; k < kinds.length; k++) {
      rows.add(
          new Value(
              "koala.job.autoscaler.decisions",
              Kind.COUNTER,
              tags(job, "kind", kinds[k].name()),
              counts[k],
              "decisions the autoscaler took since the job's coordinator started, by kind"));
    }
    for (io.koala.job.AutoscalerEvaluation e : a.evaluations()) {
      rows.add(
          gauge(
              "koala.job.autoscaler.wanted.parallelism",
              tags(job, "operator", e.operator()),
              e.wanted(),
              "the tasks the autoscaler last found an operator needs"));
    }
  }

  static Snapshot of(JobMetrics m, List<String> workerNames) {
    List<Row> rows = new ArrayList<>();
    Map<String, String> job = Map.of("job", m.jobId());
    for (JobStatus s : JobStatus.values()) {
      rows.add(
          gauge(
              "koala.job.status",
              tags(job, "status", s.name()),
              m.status() == s ? 1 : 0,
              "1 for the job's current status, 0 for the others"));
    }
    rows.add(
        new Value(
            "koala.job.rollbacks",
            Kind.COUNTER,
            job,
            m.rollbacks(),
            "rollbacks to a checkpoint since the job's coordinator started"));
    reconfigurations(
        rows, job, m.reconfigurations(), m.reconfigurationsCompleted(), m.reconfiguring());
    autoscaler(rows, job, m.autoscaler());
    rows.add(
        new Value(
            "koala.job.state.transferred.bytes",
            Kind.RUN_COUNTER,
            job,
            m.stateBytesTransferred(),
            "bytes of state installed from other tasks (fetched or drained)"));
    rows.add(
        new Value(
            "koala.job.keys.transferred",
            Kind.RUN_COUNTER,
            job,
            m.keysTransferred(),
            "keys whose state was installed from other tasks"));
    rows.add(
        new Value(
            "koala.job.checkpoints",
            Kind.COUNTER,
            job,
            m.checkpoints().completed(),
            "checkpoints committed since the job's coordinator started"));
    rows.add(
        new Value(
            "koala.job.checkpoints.quarantined",
            Kind.COUNTER,
            job,
            m.checkpoints().quarantined(),
            "checkpoints found corrupt since the job's coordinator started, their files moved"
                + " aside (never deleted)"));
    rows.add(
        new Value(
            "koala.job.checkpoints.timed.out",
            Kind.COUNTER,
            job,
            m.checkpoints().timedOut(),
            "checkpoints abandoned since the job's coordinator started because they were not"
                + " committed within koala.checkpoint.timeout (each rolled the job back)"));
    CheckpointStats.Pending pending = m.checkpoints().pending();
    rows.add(
        gauge(
            "koala.job.checkpoint.pending.seconds",
            job,
            pending == null ? 0 : pending.millis() / 1000.0,
            "how long the checkpoint in progress has waited since its trigger, 0 when none is"
                + " (koala.checkpoint.timeout abandons it)"));
    if (m.checkpoints().completed() > 0) {
      rows.add(
          gauge(
              "koala.job.checkpoint.last.duration.seconds",
              job,
              m.checkpoints().lastDurationMillis() / 1000.0,
              "from trigger to commit, for the last committed checkpoint"));
      rows.add(
          gauge(
              "koala.job.checkpoint.last.bytes",
              job,
              m.checkpoints().lastBytes(),
              "size of the last committed checkpoint's snapshot files"));
    }
    for (TaskMetricsSnapshot t : m.tasks()) {
      Integer worker = m.placement().get(t.task());
      String name =
          worker == null
              ? "none" // a released holder, or a task not placed any more
              : worker < workerNames.size() ? workerNames.get(worker) : String.valueOf(worker);
      Map<String, String> task =
          tags(
              job,
              "operator",
              t.task().operator().name(),
              "task",
              t.task().toString(),
              "worker",
              name);
      task(rows, task, t, m.atMillis());
      statePlane(rows, task, t.statePlane());
      operators(rows, task, t.operators());
    }
    return new Snapshot(m.status(), m.rollbacks(), rows);
  }

  /** Completed reconfigurations (their durations by operator and kind), and the running one. */
  private static void reconfigurations(
      List<Row> rows,
      Map<String, String> job,
      List<ReconfigurationReport> done,
      int completed,
      ReconfigurationProgress p) {
    rows.add(
        new Value(
            "koala.job.reconfigurations",
            Kind.COUNTER,
            job,
            completed,
            "reconfigurations completed"));
    Map<List<String>, List<Long>> durations = new LinkedHashMap<>();
    Map<List<String>, List<Integer>> seqs = new LinkedHashMap<>();
    int seq = completed - done.size(); // the number of the oldest report kept
    for (ReconfigurationReport r : done) {
      List<String> series = List.of(r.operator(), r.kind());
      durations.computeIfAbsent(series, k -> new ArrayList<>()).add(r.durationMillis() * 1_000_000);
      seqs.computeIfAbsent(series, k -> new ArrayList<>()).add(seq++);
    }
    durations.forEach(
        (k, nanos) ->
            rows.add(
                new Durations(
                    "koala.job.reconfiguration.duration",
                    tags(job, "operator", k.get(0), "kind", k.get(1)),
                    nanos,
                    seqs.get(k),
                    "from the start of a reconfiguration until every task had drained it")));
    if (!done.isEmpty()) {
      rows.add(
          gauge(
              "koala.job.reconfiguration.last.duration.seconds",
              job,
              done.get(done.size() - 1).durationMillis() / 1000.0,
              "duration of the last completed reconfiguration"));
    }
    rows.add(
        gauge(
            "koala.job.reconfiguration.active",
            job,
            p == null ? 0 : 1,
            "1 while a reconfiguration runs"));
    if (p != null) {
      Map<String, String> running = tags(job, "operator", p.operator(), "phase", p.phase());
      rows.add(
          gauge(
              "koala.job.reconfiguration.holder.bytes",
              running,
              p.holderBytes(),
              "state the running reconfiguration has still to move from retiring holders"));
      rows.add(
          gauge(
              "koala.job.reconfiguration.eta.seconds",
              running,
              p.etaSeconds(),
              "time left for the running reconfiguration (NaN: unknown yet)"));
      rows.add(
          gauge(
              "koala.job.reconfiguration.queued",
              job,
              p.queued(),
              "reconfigurations waiting behind the running one"));
    }
  }

  /** A task's own counts, latencies, lags, state and reconfiguration costs. */
  private static void task(
      List<Row> rows, Map<String, String> task, TaskMetricsSnapshot t, long atMillis) {
    rows.add(run("koala.task.records.in", task, t.recordsIn(), "records consumed"));
    rows.add(run("koala.task.records.out", task, t.recordsOut(), "records emitted"));
    rows.add(
        gauge(
            "koala.task.records.in.rate",
            task,
            t.recordsInPerSecond(),
            "records consumed per second, over the last second"));
    rows.add(
        gauge(
            "koala.task.records.out.rate",
            task,
            t.recordsOutPerSecond(),
            "records emitted per second, over the last second"));
    rows.add(
        gauge(
            "koala.task.busy.fraction",
            task,
            t.busyFraction(),
            "share of each second the task spent processing (decayed; with an emulated capacity,"
                + " at least its records' cost at it)"));
    rows.add(
        run(
            "koala.task.busy.seconds",
            task,
            t.busyNanos() / 1e9,
            "time the task spent processing records, forwarded and released records and timers"));
    rows.add(run("koala.task.batches", task, t.batches(), "batches handled"));
    rows.add(
        new Latencies(
            "koala.task.batch.latency",
            task,
            hdr(t.batchLatency()),
            "per-batch processing time (a batch of timer callbacks counts as one)"));
    rows.add(
        gauge(
            "koala.task.backpressured",
            task,
            t.backpressured() ? 1 : 0,
            "1 while the task waits for credit from a downstream task"));
    if (t.watermark() > 0 && t.watermark() < Long.MAX_VALUE) {
      rows.add(
          gauge(
              "koala.task.watermark.lag.seconds",
              task,
              Math.max(0, atMillis - t.watermark()) / 1000.0,
              "how far the task's event-time watermark trails the wall clock"));
    }
    rows.add(
        gauge(
            "koala.task.source.lag.records",
            task,
            t.lagRecords(),
            "records available at a source task but not yet read"));
    rows.add(
        gauge(
            "koala.task.source.lag.seconds",
            task,
            t.lagSeconds(),
            "age of the oldest record a source task has not read"));
    rows.add(gauge("koala.task.state.bytes", task, t.stateBytes(), "bytes in the store"));
    rows.add(gauge("koala.task.state.entries", task, t.stateEntries(), "entries in the store"));
    rows.add(
        run(
            "koala.task.late.records",
            task,
            t.lateRecords(),
            "records dropped as later than the watermark allows"));
    TaskMetricsSnapshot.Reconfiguration r = t.reconfiguration();
    rows.add(
        gauge(
            "koala.task.parked.records",
            task,
            r.parkedRecords(),
            "records waiting now for their key's state, being fetched"));
    rows.add(
        gauge(
            "koala.task.waiting.bytes",
            task,
            r.waitingBytes(),
            "what the records the task keeps waiting (parked, held) count against its budget"));
    rows.add(
        run(
            "koala.task.held.records",
            task,
            r.recordsHeld(),
            "records held until a sender's peer marker during a reconfiguration"));
    rows.add(
        run(
            "koala.task.forwarded.records",
            task,
            r.recordsForwarded(),
            "records of handed-over buckets sent on to their new owner"));
    rows.add(
        run(
            "koala.task.fetch.requests",
            task,
            r.fetchRequests(),
            "state fetch requests sent to holders"));
    rows.add(
        run(
            "koala.task.state.fetched.keys",
            task,
            r.keysFetched(),
            "keys whose state was installed from another task"));
    rows.add(
        run(
            "koala.task.state.fetched.bytes",
            task,
            r.stateBytesFetched(),
            "bytes of state installed from other tasks"));
    rows.add(
        run(
            "koala.task.state.drained.keys",
            task,
            r.keysDrained(),
            "keys installed from retiring holders by a forced full transfer"));
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
          run(
              "koala.operator.records.in",
              op,
              o.recordsIn(),
              "records the operator was given (read, for a source)"));
      rows.add(
          run(
              "koala.operator.records.out",
              op,
              o.recordsOut(),
              "records the operator emitted on its main output"));
      rows.add(
          gauge(
              "koala.operator.records.in.rate",
              op,
              o.recordsInPerSecond(),
              "records the operator was given per second, over the last second"));
      rows.add(
          run(
              "koala.operator.late.records",
              op,
              o.lateRecords(),
              "records the operator dropped as later than the watermark allows"));
      rows.add(
          run(
              "koala.operator.records.skipped",
              op,
              o.recordsSkipped(),
              "records the operator could not process, skipped by the job's record error policy"));
    }
  }

  /** A task's stalls by reason, its §6.6 hold, its fetch round trips, its releases. */
  private static void statePlane(List<Row> rows, Map<String, String> task, StatePlaneStats sp) {
    for (Stall reason : Stall.values()) {
      rows.add(
          run(
              "koala.task.stall.seconds",
              tags(task, "reason", reason.label()),
              sp.stallNanos(reason) / 1e9,
              "time the task's loop stopped with work queued, by reason"));
    }
    rows.add(
        run(
            "koala.task.hold.seconds",
            task,
            sp.holdNanos() / 1e9,
            "time the task held records until a sender's peer marker (overlaps the stalls)"));
    Histogram trips =
        new Histogram(LatencyHistogram.MAX_NANOS, LatencyHistogram.SIGNIFICANT_DIGITS);
    for (int holder : sp.fetchRoundTrips().keySet()) {
      trips.add(hdr(sp.fetchRoundTrips(holder)));
    }
    rows.add(
        new Latencies(
            "koala.task.fetch.round.trip",
            task,
            trips,
            "time from sending a state fetch to a holder to running its reply"));
    rows.add(
        run(
            "koala.task.releases.sent",
            task,
            sp.releasesSent(),
            "keys whose copy at a former holder this task released"));
    rows.add(
        run(
            "koala.task.release.messages.sent",
            task,
            sp.releaseMessagesSent(),
            "release messages those keys went out in"));
    rows.add(
        run(
            "koala.task.releases.applied",
            task,
            sp.releasesApplied(),
            "keys this task deleted as a former holder, on release"));
    rows.add(
        run(
            "koala.task.release.apply.seconds",
            task,
            sp.releaseApplyNanos() / 1e9,
            "time this task spent applying releases"));
  }

  private static Value gauge(String name, Map<String, String> tags, double value, String help) {
    return new Value(name, Kind.GAUGE, tags, value, help);
  }

  private static Value run(String name, Map<String, String> tags, double value, String help) {
    return new Value(name, Kind.RUN_COUNTER, tags, value, help);
  }

  private static Map<String, String> tags(Map<String, String> base, String... more) {
    Map<String, String> t = new LinkedHashMap<>(base);
    for (int i = 0; i < more.length; i += 2) {
      t.put(more[i], more[i + 1]);
    }
    return t;
  }

  private static Map<String, String> frozen(Map<String, String> tags) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(tags));
  }

  /** {@code h} as an HdrHistogram, whose recorded values the timers are fed. */
  static Histogram hdr(LatencyHistogram h) {
    return Increments.decompress(h.toCompressed());
  }
}
