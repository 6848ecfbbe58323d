package io.koala.coordinator;

import io.koala.deploy.DeploymentPlan;
import io.koala.deploy.LiveDeployment;
import io.koala.job.AutoscalerStatus;
import io.koala.job.CheckpointStats;
import io.koala.job.ErrorInfo;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.ReconfigurationReport;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.TaskMessage;
import io.koala.protocol.TaskSetup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job's coordinator, pure (DESIGN §4.1): it deploys the tasks on the workers, starts them,
 * follows them to completion or failure, collects the results sent to the client, answers metrics
 * requests, runs reconfigurations one epoch at a time, takes checkpoints, rolls back after
 * failures, and moves tasks off workers that leave. It takes one {@link JobInput} at a time, with
 * the time, and returns the {@link JobEffect}s its host carries out: the actor {@code
 * JobCoordinator} in the runtime, the deterministic simulator in tests.
 *
 * <pre>
 *   DEPLOYING --all workers deployed--> RUNNING --all tasks finished--> FINISHED
 *       |                                  |
 *       +-- deploy failed / timeout ------>+--- a task failed ---------> FAILED
 *   (any non-terminal) --cancel--> CANCELLED
 *
 *   RUNNING --task failed / stopped / deploy failed--> stop every task; attempt + 1
 *       ^                                                  | restart-backoff
 *       +--- all tasks restored and started &lt;-- redeploy the latest checkpoint's tasks
 * </pre>
 *
 * <p>The decisions live in parts named after what they decide, which this class wires together and
 * routes inputs to: {@link JobLifecycle} (status, listeners, the end), {@link RequestQueue} (the
 * reconfiguration requests: coalescing, journaling, requeueing), {@link Turns} (epochs, checkpoints
 * and the ends of the sources take turns), {@link EpochRunner} (the running epoch), {@link
 * JobCheckpoints} (triggering, completing and committing checkpoints), {@link Holders} (finished
 * tasks and retired holders), {@link Recovery} (deployment attempts, rollback, redeployment),
 * {@link Departures} (workers lost, joining, leaving), {@link ClientResults} (the results sent to
 * the client), {@link IngestAttachments} (the handles feeding ingest sources), {@link MetricsBook}
 * (metrics snapshots) and {@link Autoscaling} (the autoscaler's driver).
 */
public final class JobCore {
  /** How often a client of a sharded coordinator subscribes again. */
  public static final Duration SUBSCRIBE_INTERVAL = Duration.ofSeconds(1);

  /**
   * A sharded coordinator's attempts start at this many times the number of coordinators started on
   * the job's journal before it, so that a previous coordinator's tasks, which its workers stop
   * once they see it gone, never share a name or a directory with the new one's.
   */
  public static final int ATTEMPTS_PER_INCARNATION = 100_000;

  /** The task that job-level errors (not of one task) are reported for. */
  static final TaskId COORDINATOR = new TaskId(new OperatorId("coordinator"), 0);

  static final Object STEP_TIMER = "reconfiguration-step";
  static final Object CHECKPOINT_TIMER = "checkpoint";
  static final Object REDEPLOY_TIMER = "redeploy";
  static final Object CRASH_TIMER = "planned-crash";

  final JobSetup setup;
  final String jobId;
  final ExecutionPlan plan;
  private long startMillis; // the origin of source rates, once per job
  private final CrashInjection crashes = new CrashInjection();

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

  /** A job core created at {@code nowMillis}; {@link #start} gives its first effects. */
  public JobCore(JobSetup setup, long nowMillis) {
    this(setup, nowMillis, LoggerFactory.getLogger(JobCore.class));
  }

  /** A job core that logs its decisions to {@code log} (its host's). */
  public JobCore(JobSetup setup, long nowMillis, Logger log) {
    this.setup = setup;
    this.jobId = setup.jobId();
    this.plan = setup.plan();
    this.out = new Outbox(jobId, log, roster, nowMillis);
    this.state = new JobState(initialDeployment(setup), setup.drain());
    this.lifecycle = new JobLifecycle(setup, out, roster, new LifecycleParts());
    this.requests = new RequestQueue(setup, out, state, lifecycle, new RequestParts());
    this.turns = new Turns(setup, out, attempts, lifecycle, new TurnParts());
    this.epochs = new EpochRunner(this);
    this.checkpoints =
        new JobCheckpoints(setup, out, state, attempts, roster, new CheckpointParts());
    this.holders = new Holders(setup, out, state, attempts, roster, lifecycle, new HolderParts());
    this.recovery = new Recovery(setup, out, state, attempts, roster, new RecoveryParts());
    this.departures =
        new Departures(setup, out, state, attempts, roster, lifecycle, new DepartureParts());
    this.results = new ClientResults(setup, out, new ResultParts());
    this.ingest = new IngestAttachments(plan, out, roster, lifecycle);
    this.metrics = new MetricsBook(out, state, attempts, roster, lifecycle, new MetricsParts());
    this.autoscaling =
        new Autoscaling(setup, out, state, attempts, lifecycle, new AutoscalerParts());
    out.autoscalerOutcomes(autoscaling::onOutcome); // the autoscaler is not a host's client
  }

  /** The deployment job {@code setup} starts with when it starts afresh. */
  public static LiveDeployment initialDeployment(JobSetup setup) {
    return LiveDeployment.of(
        setup.plan(),
        DeploymentPlan.of(setup.jobId(), setup.plan(), setup.workers(), setup.channels()));
  }

  /** The first effects: the attempt, the timers, and reading the journal or deploying. */
  public List<JobEffect> start() {
    emit(new JobEffect.OpenAttempt(0, "the job starts"));
    checkpoints.start();
    autoscaling.start();
    emit(
        new JobEffect.StartTimer(
            JobInput.DeployTimeout.INSTANCE,
            JobInput.DeployTimeout.INSTANCE,
            setup.deployTimeout(),
            false));
    recovery.start();
    return out.drain();
  }

  /** Takes {@code input} at {@code nowMillis}; returns what to do, in order. */
  public List<JobEffect> on(JobInput input, long nowMillis) {
    out.at(nowMillis);
    dispatch(input);
    return out.drain();
  }

  private void dispatch(JobInput input) {
    if (input instanceof JobInput.FromAttempt f) {
      onFromAttempt(f);
    } else if (input == JobInput.DeployTimeout.INSTANCE) {
      recovery.onDeployTimeout();
    } else if (input instanceof JobInput.GetMetrics m) {
      metrics.onGetMetrics(m);
    } else if (input instanceof JobInput.Subscribe m) {
      lifecycle.onSubscribe(m);
    } else if (input instanceof JobInput.EndJournaled m) {
      lifecycle.onEndJournaled(m);
    } else if (input instanceof JobInput.MetricsGathered m) {
      metrics.onGathered(m);
    } else if (input instanceof JobInput.GetCollected m) {
      results.onGetCollected(m);
    } else if (input instanceof JobInput.GetStateRoutes m) {
      onGetStateRoutes(m);
    } else if (input instanceof JobInput.AttachIngest m) {
      ingest.onAttach(m);
    } else if (input instanceof JobInput.Cancel m) {
      lifecycle.onCancel(m);
    } else if (input instanceof JobInput.Reconfigure m) {
      requests.onReconfigure(m);
    } else if (input instanceof JobInput.EpochStalled m) {
      epochs.onStalled(m);
    } else if (input == JobInput.CheckpointTick.INSTANCE) {
      checkpoints.maybeCheckpoint();
    } else if (input == JobInput.AutoscalerTick.INSTANCE) {
      autoscaling.onTick();
    } else if (input instanceof JobInput.TakeCheckpoint m) {
      checkpoints.onTake(m);
    } else if (input instanceof JobInput.TakeSavepoint m) {
      checkpoints.onTakeSavepoint(m);
    } else if (input instanceof JobInput.SavepointWritten m) {
      checkpoints.onSavepointWritten(m);
    } else if (input instanceof JobInput.Redeploy m) {
      recovery.onRedeploy(m);
    } else if (input instanceof JobInput.Recovered m) {
      recovery.onRecovered(m);
    } else if (input instanceof JobInput.Journaled m) {
      checkpoints.onJournaled(m);
    } else if (input instanceof JobInput.RequestJournaled m) {
      requests.onJournaled(m);
    } else if (input instanceof JobInput.TaskStopChecked m) {
      recovery.onTaskStopChecked(m);
    } else if (input instanceof JobInput.WorkerLost m) {
      departures.onWorkerLost(m);
    } else if (input instanceof JobInput.WorkerJoined m) {
      departures.onWorkerJoined(m);
    } else if (input instanceof JobInput.DrainWorker m) {
      departures.onDrainWorker(m);
    } else if (input instanceof JobInput.RelocationCheckpointed m) {
      departures.onRelocationCheckpointed(m);
    } else if (input instanceof JobInput.RedeployTimedOut m) {
      recovery.onRedeployTimedOut(m);
    } else if (input instanceof JobInput.PlanCrashes m) {
      onPlanCrashes(m);
    } else if (input == JobInput.CrashTick.INSTANCE) {
      onCrashTick();
    } else if (input instanceof JobInput.GetInjectedCrashes m) {
      reply(m.replyTo(), new JobReply.InjectedCrashes(crashes.injected()));
    } else if (input instanceof JobInput.OfAttempt m) {
      throw new IllegalStateException("not stamped with its attempt: " + m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  /** What a task or worker said: handled if it belongs to the current attempt, else dropped. */
  private void onFromAttempt(JobInput.FromAttempt f) {
    JobInput.OfAttempt m = f.input();
    if (!attempts.isCurrent(f.attempt())) {
      out.log()
          .debug(
              "job {}: dropped from attempt {} (now {}): {}",
              jobId,
              f.attempt(),
              attempts.current(),
              m);
      return;
    }
    if (m instanceof JobInput.TasksDeployed d) {
      recovery.onTasksDeployed(d);
    } else if (m instanceof JobInput.DeployFailed d) {
      recovery.failed(d.error());
    } else if (m instanceof JobInput.SnapshotUnusable u) {
      recovery.onSnapshotUnusable(u);
    } else if (m instanceof JobInput.TaskFinished t) {
      holders.onTaskFinished(t);
    } else if (m instanceof JobInput.TaskFailed t) {
      recovery.failed(t.error());
    } else if (m instanceof JobInput.ResultsDelivered r) {
      results.onResults(r);
    } else if (m instanceof JobInput.EpochReported e) {
      epochs.onReported(e);
    } else if (m instanceof JobInput.SnapshotTaken t) {
      checkpoints.onSnapshotTaken(t);
    } else if (m instanceof JobInput.HolderReleased h) {
      holders.onReleased(h);
    } else if (m instanceof JobInput.TaskTerminated t) {
      recovery.onTaskTerminated(t);
    } else {
      throw new IllegalStateException("unhandled " + m);
    }
  }

  // ------------------------------------------------------------ what hosts and tests may read

  public String jobId() {
    return jobId;
  }

  public JobStatus status() {
    return lifecycle.status();
  }

  /** The epoch of the running reconfiguration, or 0 when none runs (for logging contexts). */
  public long runningEpoch() {
    return epochs.runningEpoch();
  }

  /** The running epoch's phase, or null when none runs. */
  public EpochDriver.Phase epochPhase() {
    return epochs.phase();
  }

  /** The current deployment attempt. */
  public int attempt() {
    return attempts.current();
  }

  /** The deployment as it is now (live tasks and routing of every operator). */
  public LiveDeployment deployment() {
    return state.deployment();
  }

  /** The reconfigurations completed (and not undone by a rollback), in order. */
  public List<ReconfigurationReport> reports() {
    return epochs.reports();
  }

  /** Whether a reconfiguration runs or waits in the queue. */
  public boolean reconfiguring() {
    return epochs.running() || !requests.isEmpty();
  }

  /** Whether a checkpoint is in progress. */
  public boolean checkpointInProgress() {
    return checkpoints.inProgress();
  }

  /** Checkpoints committed since the start. */
  public long checkpointsCommitted() {
    return checkpoints.committedCount();
  }

  /** Rollbacks since this coordinator started. */
  public int rollbacks() {
    return attempts.rollbacks();
  }

  /** The crashes planned for testing that were injected so far, in order. */
  public List<PlannedCrash.Injected> injectedCrashes() {
    return crashes.injected();
  }

  /** What the collecting sink {@code sink} has published so far. */
  public List<Object> collected(String sink) {
    return results.collected(sink);
  }

  /** What is still awaited, for diagnostics of a run that did not finish. */
  public String waitingFor() {
    StringBuilder b = new StringBuilder();
    epochs.describeWaiting(b);
    int queued = requests.size();
    if (queued > 0) {
      b.append(queued).append(" requests not started; ");
    }
    if (checkpoints.inProgress()) {
      b.append(checkpoints.waitingFor()).append("; ");
    }
    return b.toString();
  }

  // ------------------------------------------------------------ for the parts

  long now() {
    return out.now();
  }

  /** Answers where keyed operator {@code m.operator()}'s state is queried. */
  private void onGetStateRoutes(JobInput.GetStateRoutes m) {
    List<String> queryable = new ArrayList<>();
    ExecutionPlan.Vertex vertex = null;
    for (ExecutionPlan.Vertex v : plan.vertices()) {
      if (v.isKeyed() && v.head().keyedState()) {
        queryable.add(v.head().id().name());
        if (v.head().id().name().equals(m.operator())) {
          vertex = v;
        }
      }
    }
    String error = null;
    if (vertex == null) {
      error =
          "job "
              + jobId
              + " has no keyed operator named '"
              + m.operator()
              + "' whose state can be queried"
              + (queryable.isEmpty() ? "" : " (it has: " + String.join(", ", queryable) + ")");
    } else if (lifecycle.status().isTerminal()) {
      error = "job " + jobId + " has ended (" + lifecycle.status() + ")";
    }
    if (error != null) {
      reply(m.replyTo(), new JobReply.StateRoutes(m.operator(), 0, new int[0], List.of(), error));
      return;
    }
    List<TaskId> ids = new ArrayList<>();
    for (TaskId t : roster.ids()) {
      if (t.operator().equals(vertex.id()) && !roster.isReleased(t)) {
        ids.add(t);
      }
    }
    int[] owners = deployment().routing(vertex.id()).toArray();
    reply(
        m.replyTo(),
        new JobReply.StateRoutes(m.operator(), owners.length, owners, roster.addresses(ids), null));
  }

  void emit(JobEffect effect) {
    out.emit(effect);
  }

  <T> void reply(ReplyTo<T> to, T message) {
    out.reply(to, message);
  }

  /** Sends {@code message} to {@code task} if it is deployed. */
  void tell(TaskId task, TaskMessage message) {
    out.tell(task, message);
  }

  void startTimer(Object key, JobInput input, Duration delay) {
    out.startTimer(key, input, delay);
  }

  void cancelTimer(Object key) {
    out.cancelTimer(key);
  }

  /** The job's start (source rates count from it), set once when its tasks first start. */
  long startMillis() {
    if (startMillis == 0) {
      startMillis = out.now();
    }
    return startMillis;
  }

  Logger log() {
    return out.log();
  }

  /** An error of the job as a whole, not of a task. */
  public static ErrorInfo coordinatorError(String message) {
    return coordinatorError("coordinator", message);
  }

  /** An error of the job as a whole, reported as {@code where}'s. */
  static ErrorInfo coordinatorError(String where, String message) {
    return ErrorInfo.of(where, COORDINATOR, null, new IllegalStateException(message));
  }

  // ------------------------------------------------------------ crash injection (testing)

  private void onPlanCrashes(JobInput.PlanCrashes m) {
    crashes.plan(m.seed(), m.crashes());
    if (crashes.timed()) {
      emit(
          new JobEffect.StartTimer(
              CRASH_TIMER, JobInput.CrashTick.INSTANCE, Duration.ofMillis(10), true));
    }
    maybeCrash();
  }

  private void onCrashTick() {
    maybeCrash();
    if (!crashes.timed() || lifecycle.status().isTerminal()) {
      cancelTimer(CRASH_TIMER);
    }
  }

  /**
   * Injects the planned crash due now, if any ({@link PlannedCrash}): only while the job runs, is
   * not recovering, and no source has read all its input. The victim — a task still running or a
   * retired holder — stops, and its DeathWatch rolls the job back like any task failure.
   */
  void maybeCrash() {
    if (!crashesMayStrike()) {
      return;
    }
    EpochDriver.Phase phase = epochs.phase();
    boolean checkpointing = checkpoints.inProgress();
    int snapshots = checkpointing ? checkpoints.snapshotsTaken() : -1;
    strike(crashes.due(out.now() - startMillis, phase, snapshots));
  }

  /** Injects a crash planned to strike right after a commit, if any. */
  void maybeCrashAfterCommit() {
    if (crashesMayStrike()) {
      strike(crashes.dueAtCommit());
    }
  }

  private boolean crashesMayStrike() {
    return lifecycle.status() == JobStatus.RUNNING && !attempts.recovering() && !turns.finishing();
  }

  private void strike(PlannedCrash due) {
    if (due == null) {
      return;
    }
    List<TaskId> candidates = new ArrayList<>();
    for (TaskId t : roster.ids()) {
      if (!roster.isReleased(t) && (!roster.hasFinished(t) || deployment().retired().contains(t))) {
        candidates.add(t);
      }
    }
    if (candidates.isEmpty()) {
      return;
    }
    EpochDriver.Phase phase = epochs.phase();
    boolean checkpointing = checkpoints.inProgress();
    String during =
        phase != null
            ? "epoch " + epochs.runningEpoch() + " " + phase
            : checkpointing
                ? "checkpoint "
                    + checkpoints.pendingId()
                    + " ("
                    + checkpoints.snapshotsTaken()
                    + " snapshots)"
                : "processing";
    TaskId victim = crashes.strike(due, candidates, out.now() - startMillis, during);
    out.log()
        .warn(
            "job {}: crashing task {} during {} (planned for testing: {})",
            jobId,
            victim,
            during,
            due);
    emit(new JobEffect.CrashTask(roster.address(victim)));
  }

  // ------------------------------------------------------------ the parts' links to each other

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
      return JobCore.this.reconfiguring();
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
      requests.rejectQueued("job " + jobId + " finished");
      metrics.requestFinal();
    }

    @Override
    public void releasedMetrics(TaskMetricsSnapshot released) {
      metrics.released(released);
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
    public boolean checkpointsOn() {
      return checkpoints.on();
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
    public void tasksStarted(List<TaskAddress> book) {
      emit(new JobEffect.StartTasks(book, book, startMillis()));
      ingest.onStarted(book);
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
      maybeCrash();
    }

    @Override
    public void crashPointAfterCommit() {
      maybeCrashAfterCommit();
    }
  }
}
