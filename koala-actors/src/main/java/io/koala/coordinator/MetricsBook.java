package io.koala.coordinator;

import io.koala.job.AutoscalerStatus;
import io.koala.job.CheckpointStats;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.ReconfigurationReport;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The job's metrics snapshots: each request gathers every task's metrics, adds those of the holders
 * already stopped (their counts stay in the totals), the reconfiguration reports, the placement and
 * the checkpoint statistics. The snapshot gathered once every task has finished ends the job, and
 * is the one it keeps.
 */
final class MetricsBook {
  private static final int FINAL = -1;
  private boolean stopping; // the final metrics end the job STOPPED, not FINISHED

  /** What the metrics ask of the job's other parts, and tell them. */
  interface Parts {
    /** The job's end once its final metrics are in: stopped with a savepoint. */
    void stopNow();

    /** The job's end once its final metrics are in: every task finished. */
    void finished();

    /** The newest reports of the reconfigurations completed ({@link EpochRunner}). */
    List<ReconfigurationReport> reports();

    /** How many reconfigurations completed, those whose reports are no longer kept included. */
    int reportsMade();

    /** The running reconfiguration's progress given the tasks' metrics, or null. */
    ReconfigurationProgress progress(List<TaskMetricsSnapshot> tasks);

    /** The checkpoints' statistics ({@link JobCheckpoints}). */
    CheckpointStats checkpointStats();

    /** The autoscaler's status ({@link Autoscaling}). */
    AutoscalerStatus autoscalerStatus();

    /** The metrics the autoscaler asked for. */
    void autoscalerMetrics(JobMetrics metrics);
  }

  private final Outbox out;
  private final JobState state;
  private final Attempts attempts;
  private final TaskRoster roster;
  private final CurrentStatus job;
  private final Parts parts;
  private final Map<Integer, ReplyTo<JobMetrics>> requests = new HashMap<>();
  private final Set<Integer> forAutoscaler = new HashSet<>();
  private int nextRequest;
  private JobMetrics last;

  /** Released holders whose final metrics a job keeps, the newest. */
  static final int KEPT_RELEASED = 64;

  private final List<TaskMetricsSnapshot> released = new ArrayList<>(); // oldest first

  MetricsBook(
      Outbox out,
      JobState state,
      Attempts attempts,
      TaskRoster roster,
      CurrentStatus job,
      Parts parts) {
    this.out = out;
    this.state = state;
    this.attempts = attempts;
    this.roster = roster;
    this.job = job;
    this.parts = parts;
    this.last =
        new JobMetrics(
            out.jobId(),
            JobStatus.DEPLOYING,
            out.now(),
            List.of(),
            List.of(),
            Map.of(),
            0,
            CheckpointStats.NONE,
            null);
  }

  /** An input about metrics snapshots. */
  void on(JobInput.Metrics input) {
    if (input instanceof JobInput.GetMetrics m) {
      onGetMetrics(m);
    } else if (input instanceof JobInput.MetricsGathered m) {
      onGathered(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  void onGetMetrics(JobInput.GetMetrics m) {
    JobStatus status = job.status();
    if (status.isTerminal()) {
      out.reply(m.replyTo(), last);
    } else if (roster.isEmpty()) {
      // between two attempts no task runs: the tasks as last gathered, the job as it is now
      // (its rollbacks and checkpoints go on changing while it recovers)
      out.reply(m.replyTo(), lastTasksWithTheJobNow(status, out.now()));
    } else {
      int id = nextRequest++;
      requests.put(id, m.replyTo());
      gather(id);
    }
  }

  /** Gathers a snapshot for the autoscaler, which gets it with {@link Autoscaling#onMetrics}. */
  void gatherForAutoscaler() {
    int id = nextRequest++;
    forAutoscaler.add(id);
    gather(id);
  }

  /** Every task has finished: the final metrics, once gathered, end the job. */
  void requestFinal() {
    gather(FINAL);
  }

  /**
   * The job stops with a savepoint: the final metrics, once gathered, end it {@link
   * JobStatus#STOPPED}.
   */
  void requestFinalStop() {
    stopping = true;
    gather(FINAL);
  }

  private void gather(int request) {
    out.emit(new JobEffect.GatherMetrics(request, roster.addresses()));
  }

  void onGathered(JobInput.MetricsGathered m) {
    JobStatus status = job.status();
    if (m.request() == FINAL) {
      if (status == JobStatus.RUNNING) {
        JobStatus end = stopping ? JobStatus.STOPPED : JobStatus.FINISHED;
        last = metrics(end, withReleased(m.tasks()));
        if (stopping) {
          parts.stopNow();
        } else {
          parts.finished();
        }
      }
      return;
    }
    ReplyTo<JobMetrics> replyTo = requests.remove(m.request());
    JobMetrics metrics = metrics(status, withReleased(m.tasks()));
    if (!status.isTerminal()) {
      last = metrics;
    }
    if (forAutoscaler.remove(m.request())) {
      parts.autoscalerMetrics(metrics);
    }
    if (replyTo != null) {
      out.reply(replyTo, status.isTerminal() ? last : metrics);
    }
  }

  /**
   * A snapshot of the job now, with {@code tasks}' metrics; a task the deployment no longer has (a
   * retired holder) is {@link TaskMetricsSnapshot#RETIRED} until released.
   */
  private JobMetrics metrics(JobStatus status, List<TaskMetricsSnapshot> tasks) {
    List<TaskMetricsSnapshot> marked = new ArrayList<>(tasks.size());
    for (TaskMetricsSnapshot t : tasks) {
      boolean retired =
          t.current() && !state.deployment().liveTaskIds(t.task().operator()).contains(t.task());
      marked.add(retired ? t.retired() : t);
    }
    return new JobMetrics(
        out.jobId(),
        status,
        out.now(),
        marked,
        parts.reports(),
        placement(),
        attempts.rollbacks(),
        parts.checkpointStats(),
        status.isTerminal() ? null : parts.progress(tasks),
        parts.autoscalerStatus(),
        parts.reportsMade());
  }

  /** The worker each task of the current attempt runs on, retired holders included. */
  private Map<TaskId, Integer> placement() {
    Map<TaskId, Integer> out = new LinkedHashMap<>();
    for (TaskId t : roster.ids()) {
      out.put(t, state.deployment().placement(t));
    }
    return out;
  }

  /**
   * Task metrics with those of the holders already stopped; a holder asked for metrics while it was
   * being released appears once.
   */
  private List<TaskMetricsSnapshot> withReleased(List<TaskMetricsSnapshot> live) {
    if (released.isEmpty()) {
      return live;
    }
    Set<TaskId> stopped = new HashSet<>();
    released.forEach(t -> stopped.add(t.task()));
    List<TaskMetricsSnapshot> all = new ArrayList<>();
    for (TaskMetricsSnapshot t : live) {
      if (!stopped.contains(t.task())) {
        all.add(t);
      }
    }
    all.addAll(released);
    return all;
  }

  /**
   * Holder {@code task} was released with {@code metrics}, its final ones, or null when it did not
   * answer for them (it stopped once it had handed everything over, a crash that needs no
   * rollback): then its snapshot of the last metrics gathered stands for them, if there is one, so
   * that the operators' totals do not lose what it counted. Kept, as {@link
   * TaskMetricsSnapshot#RELEASED}, among the newest {@link #KEPT_RELEASED}: a job that rescales
   * every few minutes for months would otherwise carry every holder it ever released in its memory
   * and in every metrics reply, which must fit a message frame across nodes.
   */
  void released(TaskId task, TaskMetricsSnapshot metrics) {
    TaskMetricsSnapshot known = metrics != null ? metrics : lastGathered(task);
    if (known == null) {
      return;
    }
    released.add(known.released());
    if (released.size() > KEPT_RELEASED) {
      released.remove(0);
    }
  }

  /** {@code task}'s snapshot in the last metrics gathered, or null. */
  private TaskMetricsSnapshot lastGathered(TaskId task) {
    if (last == null) {
      return null;
    }
    for (TaskMetricsSnapshot t : last.tasks()) {
      if (t.task().equals(task)) {
        return t;
      }
    }
    return null;
  }

  /** A rollback: like every task's counters, the restored run counts afresh. */
  void rolledBack() {
    released.clear();
  }

  /** The job ended as {@code terminal}: the snapshot it keeps says so. */
  void jobEnded(JobStatus terminal) {
    if (terminal != JobStatus.FINISHED && last.status() != terminal) {
      last = lastTasksWithTheJobNow(terminal, last.atMillis());
    }
  }

  /**
   * The tasks as last gathered, with the job's own numbers (status, reports, rollbacks,
   * checkpoints) as they are now: what is known while no task can be asked.
   */
  private JobMetrics lastTasksWithTheJobNow(JobStatus status, long atMillis) {
    return new JobMetrics(
        out.jobId(),
        status,
        atMillis,
        last.tasks(),
        parts.reports(),
        last.placement(),
        attempts.rollbacks(),
        parts.checkpointStats(),
        null,
        parts.autoscalerStatus(),
        parts.reportsMade());
  }

  /** The job ended: requests still gathering get the snapshot it keeps. */
  void answerWaiting() {
    for (ReplyTo<JobMetrics> r : requests.values()) {
      out.reply(r, last);
    }
    requests.clear();
  }
}
