package io.koala.coordinator;

import io.koala.job.AutoscalerStatus;
import io.koala.job.CheckpointStats;
import io.koala.job.ErrorInfo;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.ReconfigurationReport;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.TaskSetup;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The job core's parts, built and linked (DESIGN §4.1): each part is given the few collaborators it
 * shares — the setup, the {@link Outbox} for its effects, the {@link JobState}, the {@link
 * Attempts}, the {@link TaskRoster}, the job's {@link CurrentStatus} — and, through one adapter
 * here, what it asks of and tells the others ({@code Parts} of each). Which part tells which is
 * written down in those adapters and nowhere else; no part holds another part or the core.
 */
final class JobParts {
  final TaskRoster roster = new TaskRoster();
  final Outbox out;
  final JobState state;
  final Attempts attempts = new Attempts();
  final JobLifecycle lifecycle;
  final RequestQueue requests;
  final Turns turns;
  final EpochRunner epochs;
  final JobCheckpoints checkpoints;
  final Holders holders;
  final Recovery recovery;
  final Departures departures;
  final ClientResults results;
  final IngestAttachments ingest;
  final MetricsBook metrics;
  final Autoscaling autoscaling;
  final CrashStrikes crashes;
  private long startMillis; // the origin of source rates, set when the job's tasks first start

  JobParts(JobSetup setup, long nowMillis, Logger log) {
    this.out = new Outbox(setup.jobId(), log, roster, nowMillis);
    this.state = JobState.initial(setup);
    this.lifecycle = new JobLifecycle(setup, out, roster, new LifecycleParts());
    this.requests = new RequestQueue(setup, out, state, lifecycle, new RequestParts());
    this.turns = new Turns(setup, out, attempts, lifecycle, new TurnParts());
    this.epochs =
        new EpochRunner(setup, out, state, attempts, roster, lifecycle, requests, new EpochParts());
    this.checkpoints =
        new JobCheckpoints(setup, out, state, attempts, roster, new CheckpointParts());
    this.holders = new Holders(setup, out, state, attempts, roster, lifecycle, new HolderParts());
    this.recovery = new Recovery(setup, out, state, attempts, roster, new RecoveryParts());
    this.departures =
        new Departures(setup, out, state, attempts, roster, lifecycle, new DepartureParts());
    this.results = new ClientResults(setup, out, new ResultParts());
    this.ingest = new IngestAttachments(setup.plan(), out, roster, lifecycle);
    this.metrics = new MetricsBook(out, state, attempts, roster, lifecycle, new MetricsParts());
    this.autoscaling =
        new Autoscaling(setup, out, state, attempts, lifecycle, new AutoscalerParts());
    this.crashes = new CrashStrikes(out, state, attempts, roster, lifecycle, new CrashParts());
    out.autoscalerOutcomes(autoscaling::onOutcome); // the autoscaler is not a host's client
  }

  /** What a crash planned for testing needs to know of the job. */
  private final class CrashParts implements CrashStrikes.Parts {
    @Override
    public EpochDriver.Phase epochPhase() {
      return epochs.phase();
    }

    @Override
    public long runningEpoch() {
      return epochs.runningEpoch();
    }

    @Override
    public boolean checkpointInProgress() {
      return checkpoints.inProgress();
    }

    @Override
    public long pendingCheckpoint() {
      return checkpoints.pendingId();
    }

    @Override
    public int snapshotsTaken() {
      return checkpoints.snapshotsTaken();
    }

    @Override
    public boolean finishing() {
      return turns.finishing();
    }

    @Override
    public long sinceStart() {
      return out.now() - startMillis;
    }
  }

  /** What the lifecycle tells the other parts. */
  private final class LifecycleParts implements JobLifecycle.Parts {
    @Override
    public void ended(JobStatus terminal, String reason) {
      checkpoints.jobEnded(terminal);
      metrics.jobEnded(terminal);
      epochs.jobEnded(reason);
      requests.rejectQueued(reason);
      departures.jobEnded();
      metrics.answerWaiting();
    }

    @Override
    public List<Integer> survivors() {
      return departures.pool().survivors();
    }

    @Override
    public void stopRequested() {
      metrics.requestFinalStop();
    }
  }

  /** Tasks {@code started} are told to start, each learning {@code book}; ingest handles too. */
  private void tasksStarted(List<TaskAddress> started, List<TaskAddress> book) {
    if (startMillis == 0) {
      startMillis = out.now(); // the origin of source rates, once per job
    }
    out.emit(new JobEffect.StartTasks(started, book, startMillis));
    ingest.onStarted(started);
  }

  /** What the epochs ask of and tell the other parts. */
  private final class EpochParts implements EpochRunner.Parts {
    @Override
    public boolean epochsHeld() {
      return turns.epochsHeld();
    }

    @Override
    public void epochStarted() {
      turns.epochStarted();
    }

    @Override
    public boolean finishing() {
      return turns.finishing();
    }

    @Override
    public TaskId firstEnded() {
      return turns.firstEnded();
    }

    @Override
    public void inputEnded(EpochMessage.InputEnded report) {
      turns.onInputEnded(report);
    }

    @Override
    public void releaseInputs() {
      turns.releaseInputs();
    }

    @Override
    public void references(EpochMessage.References report) {
      holders.onReferences(report);
    }

    @Override
    public WorkerPool pool() {
      return departures.pool();
    }

    @Override
    public void replan() {
      departures.replan();
    }

    @Override
    public void epochEnded() {
      departures.advance();
    }

    @Override
    public void deploying(TaskSetup setup) {
      results.addClientChannel(setup);
    }

    @Override
    public void tasksStarted(List<TaskAddress> started, List<TaskAddress> book) {
      JobParts.this.tasksStarted(started, book);
    }

    @Override
    public void failed(ErrorInfo error) {
      recovery.failed(error);
    }

    @Override
    public void crashPoint() {
      crashes.maybeCrash();
    }
  }

  /** What the departures ask of and tell the other parts. */
  private final class DepartureParts implements Departures.Parts {
    @Override
    public void fail(ErrorInfo error) {
      lifecycle.fail(error);
    }

    @Override
    public void failed(ErrorInfo error) {
      recovery.failed(error);
    }

    @Override
    public void rollback(String cause) {
      recovery.rollback(cause);
    }

    @Override
    public void refuseUnplaceable() {
      requests.refuseUnplaceable();
    }

    @Override
    public void reconfigure(JobInput.Reconfigure request) {
      requests.onReconfigure(request);
    }

    @Override
    public void migrate(Change.Migrate migration, int from) {
      requests.addMigration(migration, from);
    }

    @Override
    public void startNextEpoch() {
      epochs.startNext();
    }

    @Override
    public boolean epochDeployingOn(int w) {
      return epochs.deployingOn(w);
    }

    @Override
    public boolean finishing() {
      return turns.finishing();
    }

    @Override
    public TaskId firstEnded() {
      return turns.firstEnded();
    }

    @Override
    public void askRelocationCheckpoint() {
      checkpoints.ask(JobCheckpoints.RELOCATION);
    }
  }

  /** What the request queue asks of and tells the epochs and departures. */
  private final class RequestParts implements RequestQueue.Parts {
    @Override
    public void startNextEpoch() {
      epochs.startNext();
    }

    @Override
    public WorkerPool pool() {
      return departures.pool();
    }

    @Override
    public void replan() {
      departures.replan();
    }

    @Override
    public void migrated(Change.Migrate migration) {
      departures.migrated(migration);
    }

    @Override
    public void migrationRejected(
        Change.Migrate migration, int worker, ReconfigurationException.Reason kind, String reason) {
      departures.migrationRejected(migration, worker, kind, reason);
    }
  }

  /** What the metrics ask of and tell the other parts. */
  private final class MetricsParts implements MetricsBook.Parts {
    @Override
    public void stopNow() {
      lifecycle.stopNow();
    }

    @Override
    public void finished() {
      lifecycle.end(JobStatus.FINISHED, null);
    }

    @Override
    public List<ReconfigurationReport> reports() {
      return epochs.reports();
    }

    @Override
    public int reportsMade() {
      return epochs.reportCount();
    }

    @Override
    public ReconfigurationProgress progress(List<TaskMetricsSnapshot> tasks) {
      return epochs.progress(tasks);
    }

    @Override
    public CheckpointStats checkpointStats() {
      return checkpoints.stats();
    }

    @Override
    public AutoscalerStatus autoscalerStatus() {
      return autoscaling.status();
    }

    @Override
    public void autoscalerMetrics(JobMetrics m) {
      autoscaling.onMetrics(m);
    }
  }

  /** What the autoscaler asks of the other parts. */
  private final class AutoscalerParts implements Autoscaling.Parts {
    @Override
    public void gatherMetrics() {
      metrics.gatherForAutoscaler();
    }

    @Override
    public boolean reconfiguring() {
      return epochs.running() || !requests.isEmpty();
    }

    @Override
    public void reconfigure(JobInput.Reconfigure request) {
      requests.onReconfigure(request);
    }
  }

  /** What the turns ask of and tell the checkpoints and epochs. */
  private final class TurnParts implements Turns.Parts {
    @Override
    public boolean checkpointInProgress() {
      return checkpoints.inProgress();
    }

    @Override
    public boolean checkpointWanted() {
      return checkpoints.wanted();
    }

    @Override
    public boolean stoppingWithSavepoint() {
      return checkpoints.stopping();
    }

    @Override
    public boolean retiredSinkOutputUnpublished() {
      return checkpoints.retiredSinkOutputUnpublished();
    }

    @Override
    public void maybeCheckpoint() {
      checkpoints.maybeCheckpoint();
    }

    @Override
    public boolean epochRunning() {
      return epochs.running();
    }

    @Override
    public long lastEpoch() {
      return epochs.lastEpoch();
    }

    @Override
    public void startNextEpoch() {
      epochs.startNext();
    }
  }

  /** What the holders ask of and tell the other parts. */
  private final class HolderParts implements Holders.Parts {
    @Override
    public void taskFinished(TaskId task) {
      checkpoints.taskFinished(task);
    }

    @Override
    public void holderUnreferenced(TaskId task) {
      checkpoints.holderUnreferenced(task);
    }

    @Override
    public boolean epochDeploying() {
      return epochs.deploying();
    }

    @Override
    public void allTasksFinished() {
      epochs.allTasksFinished();
      requests.rejectQueued("job " + out.jobId() + " finished");
      metrics.requestFinal();
    }

    @Override
    public void releasedMetrics(TaskId task, TaskMetricsSnapshot released) {
      metrics.released(task, released);
    }

    @Override
    public void holderStopped() {
      departures.advance();
    }
  }

  /** What the client's results ask of the other parts. */
  private final class ResultParts implements ClientResults.Parts {
    @Override
    public void fail(ErrorInfo error) {
      lifecycle.fail(error);
    }

    @Override
    public void clientBarrier(TaskId task, long id) {
      checkpoints.clientBarrier(task, id);
    }
  }

  /** What recovery asks of and tells the other parts. */
  private final class RecoveryParts implements Recovery.Parts {
    @Override
    public JobStatus status() {
      return lifecycle.status();
    }

    @Override
    public void fail(ErrorInfo error) {
      lifecycle.fail(error);
    }

    @Override
    public void started() {
      lifecycle.started();
    }

    @Override
    public void endedBefore(JobStatus ended, String error) {
      lifecycle.endedBefore(ended, error);
    }

    @Override
    public Optional<Checkpoints.Completed<Path, CoordinatorState>> latestCheckpoint() {
      return checkpoints.latest();
    }

    @Override
    public void checkpointsRecovered(
        List<Checkpoints.Completed<Path, CoordinatorState>> completed, long lastId) {
      checkpoints.recovered(completed, lastId);
    }

    @Override
    public void checkpointUnusable(long id) {
      checkpoints.unusable(id);
    }

    @Override
    public void requestsRecovered(JobInput.RecoveredJournal journal) {
      requests.recovered(journal);
    }

    @Override
    public WorkerPool pool() {
      return departures.pool();
    }

    @Override
    public void workerLost(int worker) {
      departures.onWorkerLost(new JobInput.WorkerLost(worker));
    }

    @Override
    public void deploying(TaskSetup setup) {
      results.addClientChannel(setup);
    }

    @Override
    public void epochTasksDeployed(JobInput.TasksDeployed m) {
      epochs.onTasksDeployed(m);
    }

    @Override
    public void tasksStarted(List<TaskAddress> started, List<TaskAddress> book) {
      JobParts.this.tasksStarted(started, book);
    }

    @Override
    public void resumedWith(Set<TaskId> holderTasks) {
      holders.resumedWith(holderTasks);
    }

    @Override
    public long lastEpoch() {
      return epochs.lastEpoch();
    }

    @Override
    public void running() {
      epochs.startNext();
      departures.advance();
    }

    @Override
    public void rolledBack() {
      crashes.rolledBack(); // the next planned crash may strike once the job runs again
      epochs.rolledBack();
      checkpoints.rolledBack(); // checkpoints asked for and not committed are asked for again
      requests.rolledBack();
      results.rolledBack();
      metrics.rolledBack();
      turns.rolledBack();
    }

    @Override
    public void redeploying(Optional<Checkpoints.Completed<Path, CoordinatorState>> from) {
      requests.requeueTakenAfter(from.map(c -> c.state().taken()).orElse(0));
      epochs.truncateReports(from.map(c -> c.state().reports()).orElse(0));
    }
  }

  /** What the checkpoints ask of and tell the other parts. */
  private final class CheckpointParts implements JobCheckpoints.Parts {
    @Override
    public JobStatus status() {
      return lifecycle.status();
    }

    @Override
    public void failed(ErrorInfo error) {
      recovery.failed(error);
    }

    @Override
    public void fail(ErrorInfo error) {
      lifecycle.fail(error);
    }

    @Override
    public void stopped() {
      lifecycle.stopped();
    }

    @Override
    public boolean epochRunning() {
      return epochs.running();
    }

    @Override
    public long lastEpoch() {
      return epochs.lastEpoch();
    }

    @Override
    public int reports() {
      return epochs.reportCount();
    }

    @Override
    public int takenRequests() {
      return requests.takenCount();
    }

    @Override
    public void triggered(long id) {
      requests.checkpointTriggered(id);
    }

    @Override
    public void committed(long id) {
      requests.checkpointCommitted(id);
      requests.forgetTakenBefore(checkpoints.oldestRetainedTaken());
    }

    @Override
    public boolean finishing() {
      return turns.finishing();
    }

    @Override
    public TaskId firstEnded() {
      return turns.firstEnded();
    }

    @Override
    public void checkpointDone() {
      turns.checkpointCommitted();
      epochs.startNext();
    }

    @Override
    public void inputsResumed() {
      epochs.startNext();
    }

    @Override
    public void cut(TaskId task, long id) {
      results.cut(task, id);
    }

    @Override
    public boolean uncut(TaskId task) {
      return results.uncut(task);
    }

    @Override
    public void publish(long id) {
      results.committed(id);
    }

    @Override
    public void finished() {
      requests.jobFinished();
      results.ended();
    }

    @Override
    public void releaseHolder(TaskId task) {
      holders.release(task);
    }

    @Override
    public void crashPoint() {
      crashes.maybeCrash();
    }

    @Override
    public void crashPointAfterCommit() {
      crashes.maybeCrashAfterCommit();
    }
  }
}
