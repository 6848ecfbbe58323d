package io.koala.coordinator;

import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The job's status and who hears of it: listeners subscribe, and the job ends — finished,
 * cancelled, stopped with a savepoint or failed — exactly once, answering everything that still
 * waits on it.
 */
final class JobLifecycle {
  private final JobCore job;
  private JobStatus status = JobStatus.DEPLOYING;
  private ErrorInfo endError; // why the job failed
  private final Set<ReplyTo<JobReply.StatusChanged>> listeners = new LinkedHashSet<>();

  JobLifecycle(JobCore job) {
    this.job = job;
    if (job.setup.listener() != null) {
      listeners.add(job.setup.listener());
    }
  }

  JobStatus status() {
    return status;
  }

  boolean running() {
    return status == JobStatus.RUNNING;
  }

  /** The tasks of the first attempt all started: the job runs. */
  void started() {
    if (status == JobStatus.DEPLOYING) {
      status = JobStatus.RUNNING;
      tellListeners(new JobReply.StatusChanged(status, null));
      job.log().info("job {}: running", job.jobId);
    }
  }

  /** The job ended under an earlier coordinator (sharded): only its end is left to tell. */
  void endedBefore(JobStatus ended, String error) {
    job.cancelTimer(JobInput.DeployTimeout.INSTANCE);
    job.cancelTimer(JobCore.CHECKPOINT_TIMER);
    status = ended;
    endError = error == null ? null : JobCore.coordinatorError(error);
    job.log().info("job {} ended before: {}", job.jobId, status);
    tellListeners(new JobReply.StatusChanged(status, endError));
  }

  void onSubscribe(JobInput.Subscribe m) {
    listeners.add(m.listener());
    if (m.submission() && job.setup.sharded() && status.isTerminal()) {
      job.reply(
          m.listener(),
          new JobReply.StatusChanged(
              JobStatus.FAILED,
              JobCore.coordinatorError(
                  "job "
                      + job.jobId
                      + " ran on this cluster before and ended "
                      + status
                      + "; its journal keeps that end, so the job does not run again: submit"
                      + " the dataflow under another name")));
      return;
    }
    job.reply(m.listener(), new JobReply.StatusChanged(status, endError));
  }

  void onCancel(JobInput.Cancel m) {
    if (!status.isTerminal()) {
      job.emit(new JobEffect.CancelTasks(job.roster.addresses()));
      end(JobStatus.CANCELLED, null);
    }
    job.reply(m.replyTo(), status);
  }

  /**
   * The job stops with the savepoint just written: once the tasks' final metrics are in, every task
   * is cancelled (its sinks have committed the savepoint's checkpoint, which they were told first)
   * and the job ends.
   */
  void stopped() {
    if (!status.isTerminal()) {
      job.metrics.requestFinalStop();
    }
  }

  /** The final metrics of a stop are in: every task is cancelled, and the job ends. */
  void stopNow() {
    if (!status.isTerminal()) {
      job.emit(new JobEffect.CancelTasks(job.roster.addresses()));
      end(JobStatus.STOPPED, null);
    }
  }

  /** The job fails with {@code error}: every task is cancelled. */
  void fail(ErrorInfo error) {
    if (status.isTerminal()) {
      return;
    }
    job.log().error("job {} failed: {}", job.jobId, error.describe());
    job.emit(new JobEffect.CancelTasks(job.roster.addresses()));
    end(JobStatus.FAILED, error);
  }

  /** The job ends as {@code terminal}: everything still waiting on it is answered. */
  void end(JobStatus terminal, ErrorInfo error) {
    status = terminal;
    endError = error;
    job.cancelTimer(JobCore.CHECKPOINT_TIMER);
    if (job.setup.sharded()) {
      // before anything forgets the job's checkpoints: a coordinator that starts again on this
      // journal must not run the job afresh
      job.emit(new JobEffect.JournalEnd(terminal, error == null ? null : error.describe()));
    }
    job.checkpoints.jobEnded(terminal);
    job.metrics.jobEnded(terminal);
    job.cancelTimer(JobCore.STEP_TIMER);
    String reason = "job " + job.jobId + " is " + terminal;
    if (error != null) {
      reason += ": " + error.describe();
    }
    job.epochs.jobEnded(reason);
    job.requests.rejectQueued(reason);
    job.departures.jobEnded();
    job.cancelTimer(JobCore.REDEPLOY_TIMER);
    job.emit(new JobEffect.StopJob(job.departures.pool().survivors()));
    job.metrics.answerWaiting();
    job.log().info("job {}: {}", job.jobId, terminal);
    tellListeners(new JobReply.StatusChanged(terminal, error));
  }

  void onEndJournaled(JobInput.EndJournaled m) {
    if (m.error() != null) {
      job.log()
          .error(
              "job {}: its end ({}) was not journaled; a coordinator started again for it would"
                  + " resume it from its latest checkpoint: {}",
              job.jobId,
              status,
              m.error());
    }
  }

  private void tellListeners(JobReply.StatusChanged event) {
    for (ReplyTo<JobReply.StatusChanged> l : listeners) {
      job.reply(l, event);
    }
  }
}
