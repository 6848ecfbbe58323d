package io.koala.coordinator;

import io.koala.checkpoint.CheckpointException;
import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.plan.TaskId;
import io.koala.protocol.DurationText;
import io.koala.protocol.TaskSetup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
  private final JobCore job;
  private int attempt;
  private int restarts;
  private int rollbacks; // since this coordinator started (its takeover counts as one)
  private boolean recovering; // from a failure until the new attempt's tasks are started
  private Checkpoints.Completed<Path, CoordinatorState> restoring; // null: from the start

  Recovery(JobCore job) {
    this.job = job;
  }

  int attempt() {
    return attempt;
  }

  int rollbacks() {
    return rollbacks;
  }

  boolean recovering() {
    return recovering;
  }

  /** The first deployment: after reading the journal when there is one, else at once. */
  void start() {
    if (job.checkpoints.on()) {
      job.emit(new JobEffect.RecoverJournal(job.setup.sharded()));
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
      job.live = job.initialDeployment.copy();
      job.retirement = new Retirement(job.setup.drain());
      setups.addAll(job.live.setups().values());
    } else {
      job.live = from.state().deployment().copy();
      job.retirement = from.state().retirement().copy();
      for (Map.Entry<TaskId, Path> e : from.snapshots().entrySet()) {
        setups.add(job.live.setup(e.getKey()));
        restore.put(
            e.getKey(),
            new TaskRestore(
                from.id(), e.getValue().toString(), from.holders().contains(e.getKey())));
      }
    }
    Map<TaskId, Integer> placed = new LinkedHashMap<>();
    for (TaskSetup s : setups) {
      placed.put(s.task(), job.live.placement(s.task()));
    }
    // tasks leave leaving workers only for a placeable one; with none (every other worker lost or
    // leaving too, a departure that failed), they stay where they run, and only those of lost
    // workers move: to the leaving ones, which still run tasks
    WorkerPool pool = job.departures.pool();
    Map<TaskId, Integer> moves =
        (pool.placeable().isEmpty() ? new WorkerPool(pool.size(), pool.lost()) : pool)
            .replacements(placed);
    if (!moves.isEmpty()) {
      job.live.relocate(moves);
      job.log()
          .warn(
              "job {}: tasks of lost workers {} and leaving workers {} placed on {}",
              job.jobId,
              pool.lost(),
              pool.leaving(),
              moves);
    }
    Map<Integer, List<TaskSetup>> byWorker = new LinkedHashMap<>();
    for (TaskSetup s : setups) {
      job.results.addClientChannel(s);
      byWorker.computeIfAbsent(job.live.placement(s.task()), k -> new ArrayList<>()).add(s);
    }
    byWorker.forEach(
        (w, mine) -> {
          job.roster.deploying(w, mine.stream().map(TaskSetup::task).toList());
          Map<TaskId, TaskRestore> theirs = new HashMap<>();
          for (TaskSetup s : mine) {
            if (restore.containsKey(s.task())) {
              theirs.put(s.task(), restore.get(s.task()));
            }
          }
          job.emit(new JobEffect.Deploy(w, mine, attempt, theirs));
        });
    job.log()
        .info(
            "job {}: attempt {}: deploying {} tasks on {} workers{}",
            job.jobId,
            attempt,
            setups.size(),
            byWorker.size(),
            from == null ? "" : " from checkpoint " + from.id());
    if (recovering) {
      job.startTimer(
          JobCore.REDEPLOY_TIMER,
          new JobInput.RedeployTimedOut(attempt),
          job.setup.checkpointing().redeployTimeout());
    }
  }

  /** The journal answered: resume from its latest checkpoint, or start afresh. */
  void onRecovered(JobInput.Recovered m) {
    if (job.lifecycle.status() != JobStatus.DEPLOYING) {
      return;
    }
    JobInput.RecoveredJournal state = m.journal();
    if (state == null) {
      job.lifecycle.fail(
          JobCore.coordinatorError(
              "journal",
              "the checkpoint journal of job " + job.jobId + " did not recover: " + m.error()));
      return;
    }
    boolean takeover = job.setup.sharded() && state.incarnations() > 1;
    if (takeover) {
      // a coordinator of this job ran before, elsewhere: number attempts above any it used
      attempt = (state.incarnations() - 1) * JobCore.ATTEMPTS_PER_INCARNATION;
      job.emit(
          new JobEffect.OpenAttempt(
              attempt, "coordinator " + state.incarnations() + " of the job takes over"));
      job.log()
          .warn(
              "job {}: coordinator {} of the job starts, as attempt {}",
              job.jobId,
              state.incarnations(),
              attempt);
    }
    if (job.setup.sharded() && state.endedStatus() != null) {
      // the job ended under an earlier coordinator: nothing to run, only its end to tell
      job.lifecycle.endedBefore(JobStatus.valueOf(state.endedStatus()), state.endedError());
      return;
    }
    List<Checkpoints.Completed<Path, CoordinatorState>> completed = new ArrayList<>();
    for (JobInput.Decoded<Checkpoints.Completed<Path, CoordinatorState>> c : state.checkpoints()) {
      if (c.value() != null) {
        completed.add(c.value());
      } else {
        job.log()
            .warn(
                "job {}: journaled checkpoint {} cannot be decoded: {}",
                job.jobId,
                c.id(),
                c.error());
      }
    }
    long lastId = state.lastCheckpointId();
    Path restoreFrom = job.setup.restoreFrom();
    if (restoreFrom != null) {
      var given = state.restoreFrom();
      if (given.value() == null) {
        job.lifecycle.fail(
            JobCore.coordinatorError(
                "restore",
                "cannot restore job " + job.jobId + " from " + restoreFrom + ": " + given.error()));
        return;
      }
      completed = List.of(given.value()); // what the user asked for, not the journal's
      lastId = Math.max(lastId, given.value().id());
    }
    job.checkpoints.recovered(completed, lastId);
    if (!completed.isEmpty()) {
      job.log()
          .warn(
              "job {}: resuming from checkpoint {} ({})",
              job.jobId,
              completed.get(completed.size() - 1).id(),
              restoreFrom != null ? "restored from " + restoreFrom : "the journal's latest");
    }
    if (takeover) {
      // as after a failure: the previous coordinator's tasks still running on the workers stop
      // (their workers also stop them on seeing it gone), and after the backoff the latest
      // checkpoint's tasks are deployed
      job.emit(new JobEffect.StopAttemptsBefore(job.departures.pool().survivors(), attempt));
      recovering = true;
      rollbacks++;
      redeployAfterBackoff();
    } else {
      deploy(job.checkpoints.latest().orElse(null));
    }
    job.requests.recovered(state);
  }

  private void redeployAfterBackoff() {
    JobInput.Redeploy redeploy = new JobInput.Redeploy(attempt);
    job.startTimer(redeploy, redeploy, job.setup.checkpointing().restartBackoff());
  }

  /** What a task or worker said: handled if it belongs to the current attempt, else dropped. */
  void onFromAttempt(JobInput.FromAttempt f) {
    JobInput.OfAttempt m = f.input();
    if (f.attempt() != attempt) {
      job.log()
          .debug(
              "job {}: dropped from attempt {} (now {}): {}", job.jobId, f.attempt(), attempt, m);
      return;
    }
    if (m instanceof JobInput.TasksDeployed d) {
      onTasksDeployed(d);
    } else if (m instanceof JobInput.DeployFailed d) {
      failed(d.error());
    } else if (m instanceof JobInput.SnapshotUnusable u) {
      onSnapshotUnusable(u);
    } else if (m instanceof JobInput.TaskFinished t) {
      job.holders.onTaskFinished(t);
    } else if (m instanceof JobInput.TaskFailed t) {
      failed(t.error());
    } else if (m instanceof JobInput.ResultsDelivered r) {
      job.results.onResults(r);
    } else if (m instanceof JobInput.EpochReported e) {
      job.epochs.onReported(e);
    } else if (m instanceof JobInput.SnapshotTaken t) {
      job.checkpoints.onSnapshotTaken(t);
    } else if (m instanceof JobInput.HolderReleased h) {
      job.holders.onReleased(h);
    } else if (m instanceof JobInput.TaskTerminated t) {
      onTaskTerminated(t);
    } else {
      throw new IllegalStateException("unhandled " + m);
    }
  }

  private void onTasksDeployed(JobInput.TasksDeployed m) {
    for (TaskAddress r : m.tasks()) {
      job.roster.deployed(r);
    }
    job.emit(new JobEffect.WatchTasks(m.tasks()));
    if (job.lifecycle.status().isTerminal()) {
      // a late deployment of a job that already ended: stop those tasks too
      job.emit(new JobEffect.StopJob(List.of(m.worker())));
      return;
    }
    if (job.lifecycle.running() && !recovering) {
      job.epochs.onTasksDeployed(m);
      return;
    }
    job.roster.deployedOn(m.worker());
    if (!job.roster.deploying()) {
      job.cancelTimer(JobCore.REDEPLOY_TIMER);
      List<TaskAddress> book = job.roster.addresses();
      job.emit(new JobEffect.StartTasks(book, book, job.startMillis()));
      job.ingest.onStarted(book);
      boolean resuming = recovering || restoring != null;
      job.lifecycle.started();
      if (resuming) {
        resumed(); // after a rollback, or from a journaled or given checkpoint
      }
      job.epochs.startNext();
      job.departures.advance();
    }
  }

  void onDeployTimeout() {
    if (job.lifecycle.status() == JobStatus.DEPLOYING) {
      job.lifecycle.fail(
          JobCore.coordinatorError(
              "deployment",
              job.roster.describePending()
                  + " did not deploy their tasks in time"
                  + " (koala.deploy-timeout)"));
    }
  }

  /**
   * A task failed, stopped, or could not be deployed: with checkpoints on and restarts left, the
   * job rolls back; else it fails.
   */
  void failed(ErrorInfo error) {
    if (job.lifecycle.status().isTerminal()) {
      return;
    }
    if (!job.checkpoints.on() || !(job.lifecycle.running() || recovering)) {
      job.lifecycle.fail(error); // a first deployment that fails has nothing to roll back to
      return;
    }
    int maxRestarts = job.setup.checkpointing().maxRestarts();
    if (restarts >= maxRestarts) {
      job.log()
          .error(
              "job {}: no restart left after {} (koala.checkpoint.max-restarts = {})",
              job.jobId,
              restarts,
              maxRestarts);
      job.lifecycle.fail(error);
      return;
    }
    restarts++;
    rollback(error.describe());
  }

  /**
   * Rolls the job back (DESIGN §8, §6.8): every task of the current attempt is stopped and fenced
   * off, the checkpoint in progress and the unpublished results are abandoned, the requests taken
   * since the latest checkpoint are queued again, and after the backoff the latest checkpoint's
   * tasks are deployed from their snapshots as the next attempt.
   */
  void rollback(String cause) {
    Optional<Checkpoints.Completed<Path, CoordinatorState>> latest = job.checkpoints.latest();
    job.log()
        .warn(
            "job {}: rolling back to {} as attempt {} (restart {} of {}): {}",
            job.jobId,
            latest.map(c -> "checkpoint " + c.id()).orElse("its start"),
            attempt + 1,
            restarts,
            job.setup.checkpointing().maxRestarts(),
            cause);
    attempt++;
    rollbacks++;
    job.crashesRolledBack();
    job.emit(new JobEffect.OpenAttempt(attempt, cause)); // the old tasks are fenced off
    job.emit(new JobEffect.StopAttemptsBefore(job.departures.pool().survivors(), attempt));
    job.cancelTimer(JobCore.STEP_TIMER);
    job.cancelTimer(JobCore.REDEPLOY_TIMER);
    job.epochs.rolledBack(); // its request is among those taken: it runs again
    job.checkpoints.rolledBack(); // checkpoints asked for and not committed are asked for again
    job.requests.rolledBack();
    job.results.rolledBack();
    recovering = true;
    job.roster.clear();
    job.metrics.rolledBack();
    job.turns.rolledBack();
    redeployAfterBackoff();
  }

  void onRedeploy(JobInput.Redeploy m) {
    if (m.attempt() != attempt || job.lifecycle.status().isTerminal() || !recovering) {
      return;
    }
    var latest = job.checkpoints.latest();
    job.requests.requeueTakenAfter(latest.map(c -> c.state().taken()).orElse(0));
    job.epochs.truncateReports(latest.map(c -> c.state().reports()).orElse(0));
    deploy(latest.orElse(null));
  }

  /** Every task of the new attempt is started: finished tasks and holders as they were. */
  private void resumed() {
    recovering = false;
    if (restoring != null) {
      job.holders.resumedWith(restoring.holders());
    }
    for (Retirement.Publish p :
        job.retirement.republish(job.epochs.lastEpoch(), job.live::liveTaskIds)) {
      job.tell(p.task(), p.command());
    }
    job.log()
        .info(
            "job {}: attempt {} running{}",
            job.jobId,
            attempt,
            restoring == null ? " from the start" : " from checkpoint " + restoring.id());
    restoring = null;
  }

  /** A snapshot of the checkpoint being restored is missing or corrupt: try the one before. */
  private void onSnapshotUnusable(JobInput.SnapshotUnusable m) {
    JobStatus status = job.lifecycle.status();
    boolean restoringAtStart = status == JobStatus.DEPLOYING && restoring != null;
    if (!(recovering || restoringAtStart) || status.isTerminal()) {
      return;
    }
    job.log()
        .warn(
            "job {}: checkpoint {} is unusable: snapshot {} of {}: {}; trying the one before",
            job.jobId,
            m.checkpointId(),
            m.file(),
            m.task(),
            m.problem());
    job.checkpoints.unusable(m.checkpointId());
    Path restoreFrom = job.setup.restoreFrom();
    if (restoreFrom != null
        && job.checkpoints.latest().isEmpty()
        && status == JobStatus.DEPLOYING) {
      job.lifecycle.fail(
          ErrorInfo.of(
              m.task().operator().name(),
              m.task(),
              null,
              new CheckpointException(
                  "cannot restore job "
                      + job.jobId
                      + " from "
                      + restoreFrom
                      + ": snapshot "
                      + m.file()
                      + ": "
                      + m.problem())));
      return;
    }
    rollback("checkpoint " + m.checkpointId() + " is unusable: " + m.problem());
  }

  /** The redeployment after a rollback took too long: the attempt failed. */
  void onRedeployTimedOut(JobInput.RedeployTimedOut m) {
    if (m.attempt() != attempt
        || !recovering
        || job.lifecycle.status().isTerminal()
        || !job.roster.deploying()) {
      return;
    }
    failed(
        JobCore.coordinatorError(
            "deployment",
            "attempt "
                + attempt
                + " of job "
                + job.jobId
                + ": "
                + job.roster.describePending()
                + " did not deploy their tasks within "
                + DurationText.of(job.setup.checkpointing().redeployTimeout())
                + " (koala.checkpoint.redeploy-timeout)"));
  }

  /**
   * DeathWatch: a task stopped while the job runs, and not because it was released. Its worker is
   * asked whether it is still there first ({@link JobInput.TaskStopChecked} follows), so that a
   * task that stopped with its worker counts as the loss of that worker, whichever news came first.
   */
  private void onTaskTerminated(JobInput.TaskTerminated m) {
    if (job.lifecycle.status().isTerminal() || job.roster.isReleased(m.task())) {
      return;
    }
    int worker = job.live.placement(m.task());
    if (!job.departures.pool().available(worker)) {
      return; // stopped with its lost worker: recovered as that loss
    }
    job.emit(new JobEffect.CheckWorker(worker, m.task(), m.attempt()));
  }

  /**
   * A task stopped unexpectedly and its worker was heard from: the job fails or rolls back. A
   * worker that did not answer (in time, or at once because it has stopped) is lost, with its
   * tasks.
   */
  void onTaskStopChecked(JobInput.TaskStopChecked m) {
    if (m.attempt() != attempt
        || job.lifecycle.status().isTerminal()
        || job.roster.isReleased(m.task())
        || !job.departures.pool().available(job.live.placement(m.task()))) {
      return;
    }
    if (!m.workerAlive()) {
      // no answer: an ask to a worker that has stopped fails at once, before the DeathWatch of
      // the worker says so; either way the worker is gone for this job
      job.departures.onWorkerLost(new JobInput.WorkerLost(job.live.placement(m.task())));
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
                    + job.jobId
                    + " is "
                    + job.lifecycle.status()
                    + " (its worker "
                    + job.live.placement(m.task())
                    + " is still there)")));
  }
}
