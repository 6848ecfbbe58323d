package io.koala.coordinator;

import io.koala.checkpoint.CheckpointException;
import io.koala.deploy.LiveDeployment;
import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.plan.TaskId;
import io.koala.protocol.TaskSetup;
import io.koala.time.DurationText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The job's deployment attempts (DESIGN §8, C4, C8): the first deployment, from the journal's
 * latest checkpoint or a given one; a failure — a task failed or stopped, a deployment failed —
 * rolls the whole job back (with checkpoints and restarts left; otherwise the job fails): every
 * task of the attempt is stopped and fenced off, and after the backoff the latest checkpoint's
 * tasks are deployed as the next attempt, on the workers that remain. A checkpoint whose snapshot
 * is missing or corrupt is dropped and the one before it is tried; a redeployment that takes too
 * long fails its attempt.
 */
final class Recovery {
  /** What recovery asks of the job's other parts, and tells them. */
  interface Parts {
    /** The job's status ({@link JobLifecycle}). */
    JobStatus status();

    /** The job fails with {@code error}. */
    void fail(ErrorInfo error);

    /** The tasks of the first attempt all started: the job runs. */
    void started();

    /** The job ended under an earlier coordinator (sharded): only its end is left to tell. */
    void endedBefore(JobStatus ended, String error);

    /** The newest completed checkpoint, if any. */
    Optional<Checkpoints.Completed<Path, CoordinatorState>> latestCheckpoint();

    /** The journal's checkpoints at start-up ({@code lastId}: the highest id ever recorded). */
    void checkpointsRecovered(
        List<Checkpoints.Completed<Path, CoordinatorState>> completed, long lastId);

    /** Checkpoint {@code id} cannot be restored: it is dropped. */
    void checkpointUnusable(long id);

    /** The job's requests the journal kept ({@link RequestQueue}). */
    void requestsRecovered(JobInput.RecoveredJournal journal);

    /** The workers: lost, leaving, placeable ({@link Departures}). */
    WorkerPool pool();

    /** A worker did not answer for a task that stopped: it is lost, with its tasks. */
    void workerLost(int worker);

    /** Task {@code setup} is deployed as part of an attempt: its results reach the client. */
    void deploying(TaskSetup setup);

    /** Tasks a running epoch asked for are deployed. */
    void epochTasksDeployed(JobInput.TasksDeployed m);

    /** Tasks {@code started} are told to start, each learning {@code book}. */
    void tasksStarted(List<TaskAddress> started, List<TaskAddress> book);

    /** The attempt resumed from a checkpoint in which {@code holders} were holders. */
    void resumedWith(Set<TaskId> holders);

    /** The last epoch run or begun (its publications are sent again after a rollback). */
    long lastEpoch();

    /** The attempt runs: epochs and departures waiting for it go on. */
    void running();

    /**
     * The job rolls back: the running epoch, the checkpoint in progress, the requests taken, the
     * unpublished results, the released holders' metrics and the input ends are abandoned, and
     * crashes planned for testing may strike again.
     */
    void rolledBack();

    /** The next attempt deploys from {@code from} (the start when empty): what it had redone. */
    void redeploying(Optional<Checkpoints.Completed<Path, CoordinatorState>> from);
  }

  private final JobSetup setup;
  private final Outbox out;
  private final JobState state;
  private final Attempts attempts;
  private final TaskRoster roster;
  private final Parts parts;
  private final boolean checkpointsOn;
  private Checkpoints.Completed<Path, CoordinatorState> restoring; // null: from the start
  private final List<String> corrupt = new ArrayList<>(); // checkpoints found corrupt, and why

  Recovery(
      JobSetup setup,
      Outbox out,
      JobState state,
      Attempts attempts,
      TaskRoster roster,
      Parts parts) {
    this.setup = setup;
    this.out = out;
    this.state = state;
    this.attempts = attempts;
    this.roster = roster;
    this.parts = parts;
    this.checkpointsOn = setup.checkpointing() != null;
  }

  /** An input about the deployment attempts. */
  void on(JobInput.Deployment input) {
    if (input instanceof JobInput.TasksDeployed m) {
      onTasksDeployed(m);
    } else if (input instanceof JobInput.DeployFailed m) {
      failed(m.error());
    } else if (input instanceof JobInput.TaskFailed m) {
      failed(m.error());
    } else if (input instanceof JobInput.SnapshotUnusable m) {
      onSnapshotUnusable(m);
    } else if (input instanceof JobInput.SnapshotUnreadable m) {
      onSnapshotUnreadable(m);
    } else if (input instanceof JobInput.TaskTerminated m) {
      onTaskTerminated(m);
    } else if (input instanceof JobInput.TaskStopChecked m) {
      onTaskStopChecked(m);
    } else if (input == JobInput.DeployTimeout.INSTANCE) {
      onDeployTimeout();
    } else if (input instanceof JobInput.Recovered m) {
      onRecovered(m);
    } else if (input instanceof JobInput.Redeploy m) {
      onRedeploy(m);
    } else if (input instanceof JobInput.RedeployTimedOut m) {
      onRedeployTimedOut(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  /** The first deployment: after reading the journal when there is one, else at once. */
  void start() {
    if (checkpointsOn) {
      out.emit(new JobEffect.RecoverJournal(setup.sharded()));
    } else {
      deploy(null);
    }
  }

  /**
   * Deploys every task of the job as the current attempt: from checkpoint {@code from}'s snapshots,
   * or as the initial deployment when {@code from} is null.
   */
  private void deploy(Checkpoints.Completed<Path, CoordinatorState> from) {
    restoring = from;
    Map<TaskId, TaskRestore> restore = new HashMap<>();
    List<TaskSetup> setups = new ArrayList<>();
    if (from == null) {
      state.restart();
      setups.addAll(state.deployment().setups().values());
    } else {
      state.restore(from.state());
      for (Map.Entry<TaskId, Path> e : from.snapshots().entrySet()) {
        setups.add(state.deployment().setup(e.getKey()));
        restore.put(
            e.getKey(),
            new TaskRestore(
                from.id(), e.getValue().toString(), from.holders().contains(e.getKey())));
      }
    }
    Map<TaskId, Integer> placed = new LinkedHashMap<>();
    for (TaskSetup s : setups) {
      placed.put(s.task(), state.deployment().placement(s.task()));
    }
    // tasks leave leaving workers only for a placeable one; with none (every other worker lost or
    // leaving too, a departure that failed), they stay where they run, and only those of lost
    // workers move: to the leaving ones, which still run tasks
    WorkerPool pool = parts.pool();
    Map<TaskId, Integer> moves =
        (pool.placeable().isEmpty() ? new WorkerPool(pool.size(), pool.lost()) : pool)
            .replacements(placed);
    if (!moves.isEmpty()) {
      state.updateDeployment(d -> d.relocated(moves));
      out.log()
          .warn(
              "job {}: tasks of lost workers {} and leaving workers {} placed on {}",
              out.jobId(),
              pool.lost(),
              pool.leaving(),
              moves);
    }
    Map<Integer, List<TaskSetup>> byWorker = new LinkedHashMap<>();
    for (TaskSetup s : setups) {
      parts.deploying(s);
      byWorker
          .computeIfAbsent(state.deployment().placement(s.task()), k -> new ArrayList<>())
          .add(s);
    }
    int attempt = attempts.current();
    byWorker.forEach(
        (w, mine) -> {
          roster.deploying(w, mine.stream().map(TaskSetup::task).toList());
          Map<TaskId, TaskRestore> theirs = new HashMap<>();
          for (TaskSetup s : mine) {
            if (restore.containsKey(s.task())) {
              theirs.put(s.task(), restore.get(s.task()));
            }
          }
          out.emit(new JobEffect.Deploy(w, mine, attempt, theirs));
        });
    out.log()
        .info(
            "job {}: attempt {}: deploying {} tasks on {} workers{}",
            out.jobId(),
            attempt,
            setups.size(),
            byWorker.size(),
            from == null ? "" : " from checkpoint " + from.id());
    if (attempts.recovering()) {
      out.startTimer(
          JobCore.REDEPLOY_TIMER,
          new JobInput.RedeployTimedOut(attempt),
          setup.checkpointing().redeployTimeout());
    }
  }

  /** The journal answered: resume from its latest checkpoint, or start afresh. */
  void onRecovered(JobInput.Recovered m) {
    if (parts.status() != JobStatus.DEPLOYING) {
      return;
    }
    JobInput.RecoveredJournal journal = m.journal();
    if (journal == null) {
      parts.fail(
          JobCore.coordinatorError(
              "journal",
              "the checkpoint journal of job " + out.jobId() + " did not recover: " + m.error()));
      return;
    }
    boolean takeover = setup.sharded() && journal.incarnations() > 1;
    if (takeover) {
      // a coordinator of this job ran before, elsewhere: number attempts above any it used
      attempts.startAt((journal.incarnations() - 1) * JobCore.ATTEMPTS_PER_INCARNATION);
      out.emit(
          new JobEffect.OpenAttempt(
              attempts.current(),
              "coordinator " + journal.incarnations() + " of the job takes over"));
      out.log()
          .warn(
              "job {}: coordinator {} of the job starts, as attempt {}",
              out.jobId(),
              journal.incarnations(),
              attempts.current());
    }
    if (setup.sharded() && journal.endedStatus() != null) {
      // the job ended under an earlier coordinator: nothing to run, only its end to tell
      parts.endedBefore(JobStatus.valueOf(journal.endedStatus()), journal.endedError());
      return;
    }
    List<Checkpoints.Completed<Path, CoordinatorState>> completed = new ArrayList<>();
    for (JobInput.Decoded<Checkpoints.Completed<Path, CoordinatorState>> c :
        journal.checkpoints()) {
      if (c.value() != null) {
        completed.add(c.value());
      } else {
        out.log()
            .warn(
                "job {}: journaled checkpoint {} cannot be decoded: {}",
                out.jobId(),
                c.id(),
                c.error());
      }
    }
    long lastId = journal.lastCheckpointId();
    Path restoreFrom = setup.restoreFrom();
    if (restoreFrom != null) {
      var given = journal.restoreFrom();
      if (given.value() == null) {
        parts.fail(
            JobCore.coordinatorError(
                "restore",
                "cannot restore job "
                    + out.jobId()
                    + " from "
                    + restoreFrom
                    + ": "
                    + given.error()));
        return;
      }
      completed = List.of(given.value()); // what the user asked for, not the journal's
      lastId = Math.max(lastId, given.value().id());
    }
    parts.checkpointsRecovered(completed, lastId);
    if (!completed.isEmpty()) {
      out.log()
          .warn(
              "job {}: resuming from checkpoint {} ({})",
              out.jobId(),
              completed.get(completed.size() - 1).id(),
              restoreFrom != null ? "restored from " + restoreFrom : "the journal's latest");
    }
    if (takeover) {
      // as after a failure: the previous coordinator's tasks still running on the workers stop
      // (their workers also stop them on seeing it gone), and after the backoff the latest
      // checkpoint's tasks are deployed
      out.emit(new JobEffect.StopAttemptsBefore(parts.pool().survivors(), attempts.current()));
      attempts.recoveringFromPredecessor();
      redeployAfterBackoff();
    } else {
      deploy(parts.latestCheckpoint().orElse(null));
    }
    parts.requestsRecovered(journal);
  }

  private void redeployAfterBackoff() {
    JobInput.Redeploy redeploy = new JobInput.Redeploy(attempts.current());
    out.startTimer(
        redeploy,
        redeploy,
        setup
            .checkpointing()
            .restarts()
            .delay(out.jobId(), attempts.current(), Math.max(1, attempts.restarts())));
  }

  /** Workers deployed tasks of the current attempt. */
  void onTasksDeployed(JobInput.TasksDeployed m) {
    for (TaskAddress r : m.tasks()) {
      roster.deployed(r);
    }
    out.emit(new JobEffect.WatchTasks(m.tasks()));
    JobStatus status = parts.status();
    if (status.isTerminal()) {
      // a late deployment of a job that already ended: stop those tasks too
      out.emit(new JobEffect.StopJob(List.of(m.worker())));
      return;
    }
    if (status == JobStatus.RUNNING && !attempts.recovering()) {
      parts.epochTasksDeployed(m);
      return;
    }
    roster.deployedOn(m.worker());
    if (!roster.deploying()) {
      out.cancelTimer(JobCore.REDEPLOY_TIMER);
      List<TaskAddress> book = roster.addresses();
      parts.tasksStarted(book, book);
      boolean resuming = attempts.recovering() || restoring != null;
      parts.started();
      if (resuming) {
        resumed(); // after a rollback, or from a journaled or given checkpoint
      }
      parts.running();
    }
  }

  void onDeployTimeout() {
    if (parts.status() == JobStatus.DEPLOYING) {
      parts.fail(
          JobCore.coordinatorError(
              "deployment",
              roster.describePending()
                  + " did not deploy their tasks in time"
                  + " (koala.deploy-timeout)"));
    }
  }

  /**
   * A task failed, stopped, or could not be deployed: with checkpoints on and restarts left, the
   * job rolls back; else it fails.
   */
  void failed(ErrorInfo error) {
    JobStatus status = parts.status();
    if (status.isTerminal()) {
      return;
    }
    if (!checkpointsOn || !(status == JobStatus.RUNNING || attempts.recovering())) {
      parts.fail(error); // a first deployment that fails has nothing to roll back to
      return;
    }
    RestartPolicy policy = setup.checkpointing().restarts();
    long sinceLast = out.now() - attempts.lastRestartMillis();
    if (!policy.failureRate()
        && attempts.restarts() > 0
        && sinceLast >= policy.resetAfter().toMillis()) {
      out.log()
          .info(
              "job {}: no rollback for {} s: its restarts count from 0 again ({} spent before)",
              out.jobId(),
              sinceLast / 1000,
              attempts.restarts());
      attempts.newPeriod();
    }
    int spent = restartsCounted();
    if (spent >= policy.maxRestarts()) {
      out.log()
          .error(
              "job {}: no restart left after {} (koala.checkpoint.max-restarts = {}{})",
              out.jobId(),
              spent,
              policy.maxRestarts(),
              policy.failureRate()
                  ? " within koala.checkpoint.failure-rate-interval = "
                      + DurationText.of(policy.failureRateInterval())
                  : "");
      parts.fail(error);
      return;
    }
    attempts.restart(out.now());
    rollback(error.describe());
  }

  /**
   * Rolls the job back (DESIGN §8, §6.8): every task of the current attempt is stopped and fenced
   * off, the checkpoint in progress and the unpublished results are abandoned, the requests taken
   * since the latest checkpoint are queued again, and after the backoff the latest checkpoint's
   * tasks are deployed from their snapshots as the next attempt.
   */
  void rollback(String cause) {
    Optional<Checkpoints.Completed<Path, CoordinatorState>> latest = parts.latestCheckpoint();
    out.log()
        .warn(
            "job {}: rolling back to {} as attempt {} ({}): {}",
            out.jobId(),
            latest.map(c -> "checkpoint " + c.id()).orElse("its start"),
            attempts.current() + 1,
            restartsSpent(),
            cause);
    attempts.rollingBack();
    out.emit(new JobEffect.OpenAttempt(attempts.current(), cause)); // the old tasks are fenced off
    out.emit(new JobEffect.StopAttemptsBefore(parts.pool().survivors(), attempts.current()));
    out.cancelTimer(JobCore.STEP_TIMER);
    out.cancelTimer(JobCore.REDEPLOY_TIMER);
    parts.rolledBack(); // the running epoch's request is among those taken: it runs again
    roster.clear();
    redeployAfterBackoff();
  }

  /**
   * The restarts max-restarts counts now: those of the period (exponential delay), or those within
   * the last failure-rate interval.
   */
  private int restartsCounted() {
    RestartPolicy policy = setup.checkpointing().restarts();
    return policy.failureRate()
        ? attempts.restartsSince(out.now() - policy.failureRateInterval().toMillis())
        : attempts.restarts();
  }

  /** "restart 2 of 5" (of the period), or "restart 2 of 5 within 10 minutes" (failure rate). */
  private String restartsSpent() {
    RestartPolicy policy = setup.checkpointing().restarts();
    return "restart "
        + restartsCounted()
        + " of "
        + policy.maxRestarts()
        + (policy.failureRate() ? " within " + DurationText.of(policy.failureRateInterval()) : "");
  }

  void onRedeploy(JobInput.Redeploy m) {
    if (!attempts.isCurrent(m.attempt()) || parts.status().isTerminal() || !attempts.recovering()) {
      return;
    }
    var latest = parts.latestCheckpoint();
    parts.redeploying(latest);
    deploy(latest.orElse(null));
  }

  /** Every task of the new attempt is started: finished tasks and holders as they were. */
  private void resumed() {
    attempts.resumed();
    if (restoring != null) {
      parts.resumedWith(restoring.holders());
    }
    LiveDeployment live = state.deployment();
    for (Retirement.Publish p :
        state.changeRetirement(r -> r.republish(parts.lastEpoch(), live::liveTaskIds))) {
      out.tell(p.task(), p.command());
    }
    out.log()
        .info(
            "job {}: attempt {} running{}",
            out.jobId(),
            attempts.current(),
            restoring == null ? " from the start" : " from checkpoint " + restoring.id());
    restoring = null;
  }

  /** Whether a report about restoring a snapshot still concerns the attempt restoring it. */
  private boolean restoringNow() {
    JobStatus status = parts.status();
    boolean restoringAtStart = status == JobStatus.DEPLOYING && restoring != null;
    return (attempts.recovering() || restoringAtStart) && !status.isTerminal();
  }

  /**
   * A snapshot of the checkpoint being restored is corrupt: the checkpoint is quarantined (its
   * files moved aside, never deleted) and the one before is tried. With none left the job fails,
   * naming every checkpoint it could not restore and why: it never starts over from nothing, which
   * would read its sources again and publish committed output twice.
   */
  void onSnapshotUnusable(JobInput.SnapshotUnusable m) {
    if (!restoringNow()) {
      return;
    }
    String why =
        "checkpoint "
            + m.checkpointId()
            + " (snapshot "
            + m.file()
            + " of "
            + m.task()
            + ": "
            + m.problem()
            + ")";
    out.log().error("job {}: {} is corrupt: quarantined; trying the one before", out.jobId(), why);
    corrupt.add(why);
    parts.checkpointUnusable(m.checkpointId());
    if (parts.latestCheckpoint().isEmpty()) {
      Path restoreFrom = setup.restoreFrom();
      parts.fail(
          ErrorInfo.of(
              m.task().operator().name(),
              m.task(),
              null,
              new CheckpointException(
                  "cannot restore job "
                      + out.jobId()
                      + (restoreFrom == null ? "" : " from " + restoreFrom)
                      + ": no checkpoint is left that is not corrupt: "
                      + String.join("; ", corrupt)
                      + ". Their files are kept in the job's quarantine directory; the job does"
                      + " not start over from nothing")));
      return;
    }
    rollback(why + " is corrupt");
  }

  /**
   * A snapshot of the checkpoint being restored cannot be read now (missing, an I/O error): the
   * attempt failed, and the checkpoint is kept. The job rolls back to it again after the backoff,
   * spending a restart; once none is left it fails, the checkpoint still there to restore.
   */
  void onSnapshotUnreadable(JobInput.SnapshotUnreadable m) {
    if (!restoringNow()) {
      return;
    }
    out.log()
        .warn(
            "job {}: snapshot {} of {} of checkpoint {} cannot be read: {}; the checkpoint is kept",
            out.jobId(),
            m.file(),
            m.task(),
            m.checkpointId(),
            m.problem());
    failed(
        ErrorInfo.of(
            m.task().operator().name(),
            m.task(),
            null,
            new CheckpointException(
                "cannot read snapshot "
                    + m.file()
                    + " of checkpoint "
                    + m.checkpointId()
                    + " of job "
                    + out.jobId()
                    + ": "
                    + m.problem()
                    + " (the checkpoint is kept)")));
  }

  /** The redeployment after a rollback took too long: the attempt failed. */
  void onRedeployTimedOut(JobInput.RedeployTimedOut m) {
    if (!attempts.isCurrent(m.attempt())
        || !attempts.recovering()
        || parts.status().isTerminal()
        || !roster.deploying()) {
      return;
    }
    failed(
        JobCore.coordinatorError(
            "deployment",
            "attempt "
                + attempts.current()
                + " of job "
                + out.jobId()
                + ": "
                + roster.describePending()
                + " did not deploy their tasks within "
                + DurationText.of(setup.checkpointing().redeployTimeout())
                + " (koala.checkpoint.redeploy-timeout)"));
  }

  /**
   * DeathWatch: a task stopped while the job runs, and not because it was released. Its worker is
   * asked whether it is still there first ({@link JobInput.TaskStopChecked} follows), so that a
   * task that stopped with its worker counts as the loss of that worker, whichever news came first.
   */
  void onTaskTerminated(JobInput.TaskTerminated m) {
    if (parts.status().isTerminal() || roster.isReleased(m.task())) {
      return;
    }
    int worker = state.deployment().placement(m.task());
    if (!parts.pool().available(worker)) {
      return; // stopped with its lost worker: recovered as that loss
    }
    out.emit(new JobEffect.CheckWorker(worker, m.task(), m.attempt()));
  }

  /**
   * A task stopped unexpectedly and its worker was heard from: the job fails or rolls back. A
   * worker that did not answer (in time, or at once because it has stopped) is lost, with its
   * tasks.
   */
  void onTaskStopChecked(JobInput.TaskStopChecked m) {
    if (!attempts.isCurrent(m.attempt())
        || parts.status().isTerminal()
        || roster.isReleased(m.task())) {
      return;
    }
    int worker = state.deployment().placement(m.task());
    if (!parts.pool().available(worker)) {
      return;
    }
    if (!m.workerAlive()) {
      // no answer: an ask to a worker that has stopped fails at once, before the DeathWatch of
      // the worker says so; either way the worker is gone for this job
      parts.workerLost(worker);
      return;
    }
    failed(
        ErrorInfo.of(
            m.task().operator().name(),
            m.task(),
            null,
            new IllegalStateException(
                "the actor of task "
                    + m.task()
                    + " stopped while job "
                    + out.jobId()
                    + " is "
                    + parts.status()
                    + " (its worker "
                    + worker
                    + " is still there)")));
  }
}
