package io.koala.coordinator;

import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The job's status and who hears of it: listeners subscribe, and the job ends — finished,
 * cancelled, stopped with a savepoint or failed — exactly once, answering everything that still
 * waits on it.
 */
final class JobLifecycle implements CurrentStatus {
  /** What the lifecycle tells the job's other parts. */
  interface Parts {
    /**
     * The job ends as {@code terminal} ({@code reason}): the checkpoints, metrics, epochs, queued
     * requests and departures answer whoever waits on them.
     */
    void ended(JobStatus terminal, String reason);

    /** The workers not lost, which stop the job's tasks. */
    List<Integer> survivors();

    /** A stop with a savepoint: the tasks' final metrics are gathered before the job ends. */
    void stopRequested();
  }

  private final JobSetup setup;
  private final Outbox out;
  private final TaskRoster roster;
  private final Parts parts;
  private JobStatus status = JobStatus.DEPLOYING;
  private ErrorInfo endError; // why the job failed
  private final Set<ReplyTo<JobReply.StatusChanged>> listeners = new LinkedHashSet<>();
  // submissions heard before the journal said the job had ended: told it does not run again
  private final Set<ReplyTo<JobReply.StatusChanged>> submitters = new LinkedHashSet<>();

  JobLifecycle(JobSetup setup, Outbox out, TaskRoster roster, Parts parts) {
    this.setup = setup;
    this.out = out;
    this.roster = roster;
    this.parts = parts;
    if (setup.listener() != null) {
      listeners.add(setup.listener());
    }
  }

  /** An input about the job's status. */
  void on(JobInput.Status input) {
    if (input instanceof JobInput.Subscribe m) {
      onSubscribe(m);
    } else if (input instanceof JobInput.Cancel m) {
      onCancel(m);
    } else if (input instanceof JobInput.EndJournaled m) {
      onEndJournaled(m);
    } else if (input instanceof JobInput.Start) {
      // read by the sharded entity it started; a later one's submission is judged by onSubscribe
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  @Override
  public JobStatus status() {
    return status;
  }

  /** The tasks of the first attempt all started: the job runs. */
  void started() {
    if (status == JobStatus.DEPLOYING) {
      status = JobStatus.RUNNING;
      submitters.clear();
      tellListeners(new JobReply.StatusChanged(status, null));
      out.log().info("job {}: running", out.jobId());
    }
  }

  /** The job ended under an earlier coordinator (sharded): only its end is left to tell. */
  void endedBefore(JobStatus ended, String error) {
    out.cancelTimer(JobInput.DeployTimeout.INSTANCE);
    out.cancelTimer(JobCore.CHECKPOINT_TIMER);
    status = ended;
    endError = error == null ? null : JobCore.coordinatorError(error);
    out.log().info("job {} ended before: {}", out.jobId(), status);
    for (ReplyTo<JobReply.StatusChanged> l : listeners) {
      out.reply(
          l, submitters.contains(l) ? ranBefore() : new JobReply.StatusChanged(status, endError));
    }
    submitters.clear();
  }

  /** What a submission of a sharded job that has ended is told: a job id names one run. */
  private JobReply.StatusChanged ranBefore() {
    return new JobReply.StatusChanged(
        JobStatus.FAILED,
        JobCore.coordinatorError(
            "job "
                + out.jobId()
                + " ran on this cluster before and ended "
                + status
                + "; its journal keeps that end, so the job does not run again: submit the"
                + " dataflow under another name (SubmitOptions.restoreFrom resumes it from one of"
                + " its checkpoints)"));
  }

  void onSubscribe(JobInput.Subscribe m) {
    if (m.submission()
        && m.restoreFrom() != null
        && !java.nio.file.Path.of(m.restoreFrom()).equals(setup.restoreFrom())) {
      // a submission that restores names a new run: this coordinator was not started by it
      out.reply(
          m.listener(),
          new JobReply.StatusChanged(
              JobStatus.FAILED,
              JobCore.coordinatorError(
                  "job "
                      + out.jobId()
                      + " ran on this cluster already (now "
                      + status
                      + "), so it cannot start from "
                      + m.restoreFrom()
                      + ": submit the dataflow under another name to start from there")));
      return;
    }
    listeners.add(m.listener());
    if (m.submission() && setup.sharded() && status.isTerminal()) {
      out.reply(m.listener(), ranBefore());
      return;
    }
    if (m.submission() && setup.sharded() && status == JobStatus.DEPLOYING) {
      submitters.add(m.listener()); // the journal may yet say the job ended before
    }
    out.reply(m.listener(), new JobReply.StatusChanged(status, endError));
  }

  void onCancel(JobInput.Cancel m) {
    if (!status.isTerminal()) {
      out.emit(new JobEffect.CancelTasks(roster.addresses()));
      end(JobStatus.CANCELLED, null);
    }
    out.reply(m.replyTo(), status);
  }

  /**
   * The job stops with the savepoint just written: once the tasks' final metrics are in, every task
   * is cancelled (its sinks have committed the savepoint's checkpoint, which they were told first)
   * and the job ends.
   */
  void stopped() {
    if (!status.isTerminal()) {
      parts.stopRequested();
    }
  }

  /** The final metrics of a stop are in: every task is cancelled, and the job ends. */
  void stopNow() {
    if (!status.isTerminal()) {
      out.emit(new JobEffect.CancelTasks(roster.addresses()));
      end(JobStatus.STOPPED, null);
    }
  }

  /** The job fails with {@code error}: every task is cancelled. */
  void fail(ErrorInfo error) {
    if (status.isTerminal()) {
      return;
    }
    out.log().error("job {} failed: {}", out.jobId(), error.describe());
    out.emit(new JobEffect.CancelTasks(roster.addresses()));
    end(JobStatus.FAILED, error);
  }

  /** The job ends as {@code terminal}: everything still waiting on it is answered. */
  void end(JobStatus terminal, ErrorInfo error) {
    status = terminal;
    endError = error;
    out.cancelTimer(JobCore.CHECKPOINT_TIMER);
    if (setup.sharded()) {
      // before anything forgets the job's checkpoints: a coordinator that starts again on this
      // journal must not run the job afresh
      out.emit(new JobEffect.JournalEnd(terminal, error == null ? null : error.describe()));
    }
    out.cancelTimer(JobCore.STEP_TIMER);
    out.cancelTimer(JobCore.REDEPLOY_TIMER);
    String reason = "job " + out.jobId() + " is " + terminal;
    if (error != null) {
      reason += ": " + error.describe();
    }
    parts.ended(terminal, reason);
    out.emit(new JobEffect.StopJob(parts.survivors()));
    out.log().info("job {}: {}", out.jobId(), terminal);
    tellListeners(new JobReply.StatusChanged(terminal, error));
  }

  void onEndJournaled(JobInput.EndJournaled m) {
    if (m.error() != null) {
      out.log()
          .error(
              "job {}: its end ({}) was not journaled; a coordinator started again for it would"
                  + " resume it from its latest checkpoint: {}",
              out.jobId(),
              status,
              m.error());
    }
  }

  private void tellListeners(JobReply.StatusChanged event) {
    for (ReplyTo<JobReply.StatusChanged> l : listeners) {
      out.reply(l, event);
    }
  }
}
