package io.koala.coordinator;

import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import java.util.Set;

/**
 * Tasks that finish and retired holders (DESIGN §6.5, §6.7, C5): a finished task counts toward the
 * job's end; a retiring holder no owner references any more stops — at once without checkpoints,
 * else once no retained or pending checkpoint includes it — after its final metrics are kept, and
 * its worker deletes its state.
 */
final class Holders {
  private final JobCore job;

  Holders(JobCore job) {
    this.job = job;
  }

  void onTaskFinished(JobInput.TaskFinished m) {
    if (!job.lifecycle.running()) {
      return;
    }
    job.roster.finished(m.task());
    job.state.retirement().taskFinished(m.task()).forEach(this::unreferenced);
    job.checkpoints.taskFinished(m.task());
    if (job.roster.allFinished() && !job.epochs.deploying()) {
      job.epochs.allTasksFinished();
      job.requests.rejectQueued("job " + job.jobId + " finished");
      job.metrics.requestFinal();
    }
  }

  /** An owner reported which retiring holders it still references. */
  void onReferences(EpochMessage.References r) {
    if (job.lifecycle.running()) {
      job.state
          .retirement()
          .on(r, job.state.deployment().liveTaskIds(r.task().operator()))
          .forEach(this::unreferenced);
    }
  }

  /**
   * Retirement found a holder no owner references: it stops now, or with checkpoints once no
   * retained or pending checkpoint includes it (§6.7, C5).
   */
  void unreferenced(TaskId task) {
    if (!job.checkpoints.on()) {
      release(task);
    } else {
      job.checkpoints.holderUnreferenced(task);
    }
  }

  /** No owner and no restorable checkpoint needs holder {@code task}: keep its final metrics. */
  void release(TaskId task) {
    TaskAddress address = job.roster.address(task);
    if (address == null || !job.roster.release(task)) {
      return;
    }
    job.emit(new JobEffect.AskReleasedMetrics(address, job.attempts.current()));
  }

  /** Holder {@code task}'s final metrics are kept: its worker stops it and deletes its state. */
  void onReleased(JobInput.HolderReleased m) {
    if (m.metrics() != null) {
      job.metrics.released(m.metrics().released());
    }
    job.roster.stopped(m.task());
    job.log()
        .info("job {}: retired task {} holds no state any more; stopping it", job.jobId, m.task());
    job.emit(
        new JobEffect.StopTask(
            job.state.deployment().placement(m.task()), m.task(), job.attempts.current()));
    job.departures.advance();
  }

  /**
   * The tasks restored from a checkpoint started: its holders resume finished, and those no owner
   * references any more are there only for the cut of their output.
   */
  void resumedWith(Set<TaskId> holders) {
    for (TaskId h : holders) {
      job.roster.finished(h);
    }
    for (TaskId h : holders) {
      job.state.retirement().taskFinished(h);
      if (job.state.retirement().unreferenced(h)) {
        unreferenced(h); // the checkpoint has it for the cut of its output alone
      }
    }
  }
}
