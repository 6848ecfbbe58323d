package io.koala.coordinator;

import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import java.util.List;
import java.util.Set;

/**
 * Tasks that finish and retired holders (DESIGN §6.5, §6.7, C5): a finished task counts toward the
 * job's end; a retiring holder no owner references any more stops — at once without checkpoints,
 * else once no retained or pending checkpoint includes it — after its final metrics are kept, and
 * its worker deletes its state.
 */
final class Holders {
  /** What the holders ask of the job's other parts, and tell them. */
  interface Parts {
    /** {@code task} finished: a checkpoint in progress asks it for its snapshot directly. */
    void taskFinished(TaskId task);

    /** Holder {@code task} is unreferenced: it stops once no checkpoint needs it. */
    void holderUnreferenced(TaskId task);

    /** Whether an epoch is deploying tasks (they have not finished, though none is known yet). */
    boolean epochDeploying();

    /** Every task finished: the job ends once their final metrics are in. */
    void allTasksFinished();

    /**
     * Released holder {@code task}'s final metrics (null: it did not answer), counted in the job's
     * totals.
     */
    void releasedMetrics(TaskId task, TaskMetricsSnapshot metrics);

    /** A holder stopped: a departure waiting for its worker to empty may go on. */
    void holderStopped();
  }

  private final Outbox out;
  private final JobState state;
  private final Attempts attempts;
  private final TaskRoster roster;
  private final CurrentStatus job;
  private final boolean checkpointsOn;
  private final Parts parts;

  Holders(
      JobSetup setup,
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
    this.checkpointsOn = setup.checkpointing() != null;
    this.parts = parts;
  }

  /** An input about finished tasks and retired holders. */
  void on(JobInput.Holding input) {
    if (input instanceof JobInput.TaskFinished m) {
      onTaskFinished(m);
    } else if (input instanceof JobInput.HolderReleased m) {
      onReleased(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  void onTaskFinished(JobInput.TaskFinished m) {
    if (!job.running()) {
      return;
    }
    roster.finished(m.task());
    state.changeRetirement(r -> r.taskFinished(m.task())).forEach(this::unreferenced);
    parts.taskFinished(m.task());
    if (roster.allFinished() && !parts.epochDeploying()) {
      parts.allTasksFinished();
    }
  }

  /** An owner reported which retiring holders it still references. */
  void onReferences(EpochMessage.References r) {
    if (job.running()) {
      List<TaskId> live = state.deployment().liveTaskIds(r.task().operator());
      state.changeRetirement(retirement -> retirement.on(r, live)).forEach(this::unreferenced);
    }
  }

  /**
   * Retirement found a holder no owner references: it stops now, or with checkpoints once no
   * retained or pending checkpoint includes it (§6.7, C5).
   */
  void unreferenced(TaskId task) {
    if (!checkpointsOn) {
      release(task);
    } else {
      parts.holderUnreferenced(task);
    }
  }

  /** No owner and no restorable checkpoint needs holder {@code task}: keep its final metrics. */
  void release(TaskId task) {
    TaskAddress address = roster.address(task);
    if (address == null || !roster.release(task)) {
      return;
    }
    out.emit(new JobEffect.AskReleasedMetrics(address, attempts.current()));
  }

  /** Holder {@code task}'s final metrics are kept: its worker stops it and deletes its state. */
  void onReleased(JobInput.HolderReleased m) {
    parts.releasedMetrics(m.task(), m.metrics());
    roster.stopped(m.task());
    out.log()
        .info(
            "job {}: retired task {} holds no state any more; stopping it", out.jobId(), m.task());
    out.emit(
        new JobEffect.StopTask(
            state.deployment().placement(m.task()), m.task(), attempts.current()));
    parts.holderStopped();
  }

  /**
   * The tasks restored from a checkpoint started: its holders resume finished, and those no owner
   * references any more are there only for the cut of their output.
   */
  void resumedWith(Set<TaskId> holders) {
    for (TaskId h : holders) {
      roster.finished(h);
    }
    for (TaskId h : holders) {
      state.changeRetirement(r -> r.taskFinished(h)); // none to stop: unreferenced below
      if (state.retirement().unreferenced(h)) {
        unreferenced(h); // the checkpoint has it for the cut of its output alone
      }
    }
  }
}
