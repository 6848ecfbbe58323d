package io.koala.runtime.internal;

import static io.koala.runtime.ReconfigurationException.Reason.INVALID_REQUEST;
import static io.koala.runtime.ReconfigurationException.Reason.JOB_ENDING;

import io.koala.checkpoint.CheckpointStorage;
import io.koala.core.ChannelSettings;
import io.koala.core.CheckpointBarrier;
import io.koala.core.Credit;
import io.koala.core.Deliver;
import io.koala.core.DeploymentPlan;
import io.koala.core.EndOfChannel;
import io.koala.core.ErrorInfo;
import io.koala.core.InputChannel;
import io.koala.core.KoalaMessage;
import io.koala.core.ProtocolViolationException;
import io.koala.core.RecordBatch;
import io.koala.core.TaskMessage;
import io.koala.core.TaskMetricsSnapshot;
import io.koala.core.TaskSetup;
import io.koala.core.checkpoint.Checkpoints;
import io.koala.core.checkpoint.OutputCommit;
import io.koala.core.reconfig.Change;
import io.koala.core.reconfig.Departure;
import io.koala.core.reconfig.Draining;
import io.koala.core.reconfig.EpochDriver;
import io.koala.core.reconfig.EpochMessage;
import io.koala.core.reconfig.InputEnds;
import io.koala.core.reconfig.LiveDeployment;
import io.koala.core.reconfig.Protocol;
import io.koala.core.reconfig.ReconfigurationDriver;
import io.koala.core.reconfig.ReconfigurationPlan;
import io.koala.core.reconfig.Retirement;
import io.koala.core.reconfig.WorkerPool;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.TaskId;
import io.koala.runtime.CheckpointStats;
import io.koala.runtime.JobMetrics;
import io.koala.runtime.JobStatus;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.ReconfigurationException;
import io.koala.runtime.ReconfigurationProgress;
import io.koala.runtime.ReconfigurationReport;
import io.koala.runtime.internal.journal.JobJournal;
import io.koala.runtime.internal.journal.JournalSettings;
import io.koala.runtime.internal.journal.JournalState;
import io.koala.runtime.testing.TaskCrashes;
import io.koala.serialization.KryoSerde;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One job's coordinator: deploys the tasks on the workers, starts them, follows them to completion
 * or failure, receives the results sent to the client, answers metrics requests, and runs
 * reconfigurations one epoch at a time (FIFO; a queued rescale or rebalance of an operator is
 * replaced by a newer one for the same operator) through an {@link EpochDriver}.
 *
 * <pre>
 *   DEPLOYING --all workers deployed--> RUNNING --all tasks finished--> FINISHED
 *       |                                  |
 *       +-- deploy failed / timeout ------>+--- a task failed ---------> FAILED
 *   (any non-terminal) --cancel--> CANCELLED
 * </pre>
 *
 * <p><b>Checkpoints</b> ({@code koala.checkpoint.interval}, DESIGN §8): a timer triggers the pure
 * {@link Checkpoints} core when one is due, no epoch runs and no source has read all its input; no
 * epoch starts and no source is let end while one is in progress. Results sent to the client are
 * published through {@link OutputCommit}: only once a checkpoint that covers them is committed, or
 * when the job ends. A task failure while RUNNING then rolls the whole job back instead of failing
 * it:
 *
 * <pre>
 *   RUNNING --task failed / stopped / deploy failed--> stop every task; attempt + 1
 *       ^                                                  | restart-backoff
 *       +--- all tasks restored and started <-- redeploy the latest checkpoint's tasks
 *                                                   (or the initial deployment when none)
 * </pre>
 *
 * <p>Each deployment is an <b>attempt</b>. Its tasks report through a forwarder child of that
 * attempt, which stamps every message with the attempt number; a rollback stops the forwarder, and
 * whatever an older incarnation still says is dropped, so it cannot affect the new one (C4, C8).
 * Actor names and store directories carry the attempt too. The reconfigurations taken since the
 * checkpoint are queued again, in order, ahead of the queued ones, so a rollback never silently
 * undoes a user's rescale. After {@code koala.checkpoint.max-restarts} rollbacks the next failure
 * fails the job. A redeployment that is not complete after {@code
 * koala.checkpoint.redeploy-timeout} fails its attempt, naming the workers and tasks it waited for.
 *
 * <p><b>Workers</b> are DeathWatched. A worker that stops, or whose ActorSystem goes away, is lost
 * for good ({@link WorkerPool}): no task is placed on it again, and a {@code migrate} to it is
 * refused. If it hosted tasks of the job, the job rolls back as for a task failure, and the lost
 * worker's tasks are restored from their snapshots on the least-loaded remaining workers; without
 * checkpoints, or with no worker left, the job fails naming it. On a cluster, workers also
 * <b>join</b> ({@link WorkerJoined}: placeable from then on, and the {@code
 * koala.cluster.scale-on-join} operators grow onto them) and <b>leave</b> ({@link DrainWorker}: no
 * task is placed there any more, and the job's tasks move off as {@link Departure} decides — keyed
 * owners by migration, holders once drained, the other tasks by a checkpoint taken for it and a
 * rollback that restores them elsewhere). A task that stops unexpectedly is judged once its worker
 * has answered, so that the tasks of a lost worker count as its loss. A checkpoint whose snapshot
 * file is missing or corrupt is dropped and the one before it is tried. A complete checkpoint is
 * recorded in the job's {@link JobJournal} before it is committed (C4); at start the coordinator
 * recovers from that journal, so a job submitted again with the same id on the same data dir
 * resumes from its latest checkpoint.
 */
final class JobCoordinator extends AbstractBehavior<JobCoordinator.Command> {

  interface Command extends KoalaMessage {}

  /** Worker → coordinator: the worker's tasks exist. */
  record TasksDeployed(int worker, List<TaskActor.TaskRef> tasks) implements Command {}

  /** Worker → coordinator: the worker could not create its tasks. */
  record DeployFailed(int worker, ErrorInfo error) implements Command {}

  /** Task → coordinator: the task has delivered end-of-channel on every output. */
  record TaskFinished(TaskId task) implements Command {}

  /** Task → coordinator: the task failed and stopped processing. */
  record TaskFailed(TaskId task, ErrorInfo error) implements Command {}

  /** Task → coordinator: an item of the task's channel to the client (flow-controlled). */
  record ResultsDelivered(TaskId from, Deliver deliver) implements Command {}

  /** Client → coordinator: reply with a metrics snapshot. */
  record GetMetrics(ActorRef<JobMetrics> replyTo) implements Command {}

  /**
   * Client → coordinator: send {@code listener} the job's status now and at every change. A sharded
   * coordinator (DESIGN §9) may start again on another node, knowing no listener, so clients send
   * this again every {@link #SUBSCRIBE_INTERVAL} until the job has ended; {@code submission}: sent
   * by a submission, which a sharded coordinator refuses once its job has ended (the journal keeps
   * the end: a job id names one run).
   */
  record Subscribe(ActorRef<JobListener.Event> listener, boolean submission) implements Command {}

  /** How often a client of a sharded coordinator subscribes again. */
  static final Duration SUBSCRIBE_INTERVAL = Duration.ofSeconds(1);

  /**
   * A sharded coordinator's attempts start at this many times the number of coordinators started on
   * the job's journal before it, so that a previous coordinator's tasks, which its workers stop
   * once they see it gone, never share a name or a directory with the new one's.
   */
  static final int ATTEMPTS_PER_INCARNATION = 100_000;

  /** Client → coordinator: reply with the values a collecting sink received so far. */
  record GetCollected(String sink, ActorRef<Collected> replyTo) implements Command {}

  /** Reply to {@link GetCollected}. */
  record Collected(List<Object> values) implements KoalaMessage {}

  /** Client → coordinator: cancel the job; reply with the final status. */
  record Cancel(ActorRef<JobStatus> replyTo) implements Command {}

  /** Aggregator → coordinator: the answers to metrics request {@code request}. */
  record MetricsGathered(int request, List<TaskMetricsSnapshot> tasks) implements Command {}

  /** Client → coordinator: change how an operator is partitioned; reply when done or refused. */
  record Reconfigure(Change change, ActorRef<Reconfiguration.Outcome> replyTo) implements Command {}

  /** Task → coordinator: a step of the current reconfiguration reached at that task. */
  record EpochReported(EpochMessage.Report report) implements Command {}

  /** Self: no task reported progress on epoch {@code epoch} for the step timeout. */
  record EpochStalled(long epoch) implements Command {}

  /**
   * Self: the final metrics of a retiring holder no owner references any more ({@code null} if it
   * did not answer), before its worker stops it and deletes its state.
   */
  record HolderReleased(TaskId task, TaskMetricsSnapshot metrics) implements Command {}

  /** Self (DeathWatch): a task's actor of attempt {@code attempt} stopped. */
  record TaskTerminated(TaskId task, int attempt) implements Command {}

  /**
   * Task → coordinator: {@code task} wrote its snapshot of checkpoint {@code checkpointId} to
   * {@code file}. Sent by the task actor after its barrier went out on its client channel.
   */
  record SnapshotTaken(TaskId task, long checkpointId, String file, long bytes)
      implements Command {}

  /**
   * Worker → coordinator: {@code task}'s snapshot {@code file} of checkpoint {@code checkpointId}
   * cannot be restored (missing or corrupt): the checkpoint is unusable.
   */
  record SnapshotUnusable(int worker, TaskId task, long checkpointId, String file, String problem)
      implements Command {}

  /**
   * The attempt's forwarder → coordinator: {@code command}, sent by a task or worker of deployment
   * attempt {@code attempt}; dropped unless that is the current attempt.
   */
  record FromAttempt(int attempt, Command command) implements Command {}

  /** Coordinator → its attempt's forwarder: watch {@code ref}, reporting {@link TaskTerminated}. */
  record WatchTask(TaskId task, ActorRef<TaskMessage> ref) implements Command {}

  /**
   * Worker {@code worker} is gone for good: its actor stopped, or its node went away. From the
   * coordinator's own DeathWatch of the worker, or from the runtime, which knows sooner when a
   * worker's ActorSystem has terminated (the failure detector of a remote DeathWatch takes about
   * ten seconds); idempotent.
   */
  record WorkerLost(int worker) implements Command {}

  /**
   * Worker {@code worker} ({@code ref}) joined: its node came Up. It may get tasks from now on;
   * with {@code scale-on-join} operators, each is rescaled onto it. Indices are handed out in order
   * and never reused; a join already known is ignored.
   */
  record WorkerJoined(int worker, ActorRef<Worker.Command> ref) implements Command {}

  /**
   * Worker {@code worker}'s node is leaving gracefully (DESIGN §9, C6): it gets no new task, the
   * job's tasks there are moved off ({@link io.koala.core.reconfig.Departure}), and {@link
   * WorkerDrained} answers once none is left there (or why they cannot move).
   */
  record DrainWorker(int worker, ActorRef<WorkerDrained> replyTo) implements Command {}

  /**
   * Reply to {@link DrainWorker}: job {@code jobId} has no task left on worker {@code worker}
   * ({@code error} null), or cannot move them off ({@code error} says why).
   */
  record WorkerDrained(String jobId, int worker, String error) implements KoalaMessage {}

  /**
   * Self: the checkpoint asked for to relocate the tasks of leaving workers committed ({@code
   * checkpointId}), or did not ({@code error}).
   */
  record RelocationCheckpointed(long checkpointId, String error) implements Command {}

  /**
   * Self: {@code task} of attempt {@code attempt} stopped unexpectedly, and its worker answered
   * ({@code workerAlive}) or did not within the metrics timeout; a task whose worker is lost is
   * left to the worker's loss.
   */
  record TaskStopChecked(TaskId task, int attempt, boolean workerAlive) implements Command {}

  /** Self: the redeployment of attempt {@code attempt} did not complete in time. */
  record RedeployTimedOut(int attempt) implements Command {}

  /** Self: the restart backoff of attempt {@code attempt} is over; deploy its tasks. */
  record Redeploy(int attempt) implements Command {}

  /**
   * Self: the journal's state at start-up ({@code null} and {@code error} if it did not answer).
   */
  record Recovered(JournalState state, String error) implements Command {}

  /**
   * Self: the journal recorded checkpoint {@code checkpointId} (for attempt {@code attempt}), or
   * could not ({@code error}).
   */
  record Journaled(int attempt, long checkpointId, String error) implements Command {}

  /** Self: the journal recorded request {@code seq} as open, or {@code error}. */
  record RequestJournaled(long seq, String error) implements Command {}

  /** Self: time to see whether a checkpoint is due. */
  enum CheckpointTick implements Command {
    INSTANCE
  }

  /**
   * Client → coordinator: take a checkpoint now (or join the one in progress if it was triggered
   * after this request); reply {@link CheckpointOutcome} once it is committed, or why not.
   */
  record TakeCheckpoint(ActorRef<CheckpointOutcome> replyTo) implements Command {}

  /** Reply to {@link TakeCheckpoint}: the committed checkpoint's id, or {@code error}. */
  record CheckpointOutcome(long checkpointId, String error) implements KoalaMessage {}

  /**
   * Client → coordinator, for testing Koala ({@link TaskCrashes#plan}): plan {@code crashes}, their
   * victims chosen with {@code seed}.
   */
  record PlanCrashes(long seed, List<TaskCrashes.Crash> crashes) implements Command {}

  /** Client → coordinator, for testing Koala: reply {@link InjectedCrashes}. */
  record GetInjectedCrashes(ActorRef<InjectedCrashes> replyTo) implements Command {}

  /** Reply to {@link GetInjectedCrashes}: the crashes injected so far, in order. */
  record InjectedCrashes(List<TaskCrashes.Injected> crashes) implements KoalaMessage {}

  /** Self: time to see whether a crash planned at a time is due. */
  enum CrashTick implements Command {
    INSTANCE
  }

  /**
   * What the coordinator keeps of itself with a checkpoint, restored on a rollback to it: the
   * deployment and retiring holders at the trigger, how many requests had been taken and reports
   * made (those taken since are run again).
   */
  record CoordinatorState(
      LiveDeployment deployment, Retirement retirement, int taken, int reports) {}

  /** Self: the journal answered {@link JobJournal.RecordEnd} ({@code error} null: durable). */
  record EndJournaled(String error) implements Command {}

  /** Self: deployment took too long. */
  enum DeployTimeout implements Command {
    INSTANCE
  }

  private static final int FINAL_METRICS = -1;
  private static final String STEP_TIMER = "reconfiguration-step";
  private static final String CRASH_TIMER = "planned-crash";

  /** A reconfiguration waiting for its epoch, and who waits for its outcome. */
  private static final class Queued {
    Change change;
    final OperatorId vertex;
    int departingFrom = -1; // a migration off this leaving worker the coordinator asked for
    final List<ActorRef<Reconfiguration.Outcome>> replyTo = new ArrayList<>();
    long seq; // its journal sequence number (0: not journaled, or checkpoints off)
    boolean durable; // journaled (or checkpoints off): it may start
    final List<Long> superseded = new ArrayList<>(); // journaled requests it replaced

    Queued(Change change, OperatorId vertex) {
      this.change = change;
      this.vertex = vertex;
    }
  }

  /** The reconfiguration being carried out. */
  private static final class Active {
    final Queued request;
    final ReconfigurationDriver driver;
    final long startedMillis;
    final Set<Integer> deploying = new HashSet<>();
    final List<TaskActor.TaskRef> added = new ArrayList<>();
    long handoverStartMillis = -1;
    long handoverMillis;

    Active(Queued request, ReconfigurationDriver driver, long startedMillis) {
      this.request = request;
      this.driver = driver;
      this.startedMillis = startedMillis;
    }
  }

  private final String jobId;
  private final ExecutionPlan plan;
  private final List<ActorRef<Worker.Command>> workers; // by index; grows as workers join
  private final Set<ActorRef<JobListener.Event>> listeners = new LinkedHashSet<>();
  private final boolean sharded; // a Cluster Sharding entity, on the cluster's shared journal
  private ErrorInfo endError; // why the job failed
  private int rollbacks; // since this coordinator started (its takeover counts as one)
  private CheckpointStats checkpointStats = CheckpointStats.NONE;
  private final Map<Long, Long> snapshotBytes = new HashMap<>(); // pending checkpoint → bytes
  private final ProgressEstimator progressEstimator = new ProgressEstimator();
  private final Duration metricsTimeout;
  private final Duration stepTimeout;
  private final ChannelSettings settings;
  private final TimerScheduler<Command> timers;
  private final DeploymentPlan deployment;
  private LiveDeployment live;
  private final ArrayDeque<Queued> queue = new ArrayDeque<>();
  private final List<ReconfigurationReport> reports = new ArrayList<>();
  private Active active;
  private long nextEpoch = 1;
  private long startMillis;
  private final Map<TaskId, ActorRef<TaskMessage>> tasks = new LinkedHashMap<>();
  private Retirement retirement;
  private final Protocol protocol;
  private final int bucketsPerStep;
  private final Set<TaskId> released = new HashSet<>();
  private InputEnds inputEnds = new InputEnds();
  private final List<TaskMetricsSnapshot> releasedMetrics = new ArrayList<>();
  private final Map<TaskId, TaskActor.TaskRef> addresses = new LinkedHashMap<>();
  private final Map<Integer, List<TaskId>> pendingWorkers = new LinkedHashMap<>(); // their tasks
  private WorkerPool pool; // the workers not lost, and those leaving
  private final Map<Integer, List<ActorRef<WorkerDrained>>> departures = new TreeMap<>();
  private final Set<TaskId> departing = new HashSet<>(); // their migrations, queued or running
  private boolean relocationAsked; // a checkpoint to relocate the tasks of leaving workers
  private boolean replanDepartures; // a migration they asked for was overtaken: plan them again
  private final ActorRef<CheckpointOutcome> relocation;
  private final List<String> scaleOnJoin;
  private final Set<TaskId> finished = new HashSet<>();
  private final Map<Integer, InputChannel> clientChannels = new HashMap<>();
  private final Map<TaskId, OperatorId> sinkOf = new HashMap<>();
  private final Map<String, List<Object>> collected = new HashMap<>();
  private final Map<Integer, ActorRef<JobMetrics>> metricsRequests = new HashMap<>();
  private int nextRequest;
  private JobStatus status = JobStatus.DEPLOYING;
  private JobMetrics lastMetrics;

  // checkpoints and recovery (null / unused when koala.checkpoint.interval = off)
  private final Checkpoints<Path, CoordinatorState> checkpoints;
  private final OutputCommit<Object> output = new OutputCommit<>();
  private final CheckpointStorage storage;
  private final Draining.Settings drainSettings;
  private final LiveDeployment initialDeployment;
  private final int maxRestarts;
  private final Duration restartBackoff;
  private final Duration redeployTimeout;
  private static final String REDEPLOY_TIMER = "redeploy";
  private final List<Queued> taken = new ArrayList<>(); // requests whose epoch started, in order
  private final List<ActorRef<CheckpointOutcome>> checkpointAsked = new ArrayList<>();
  private final Map<Long, List<ActorRef<CheckpointOutcome>>> checkpointWaiters = new HashMap<>();
  private int attempt;
  private ActorRef<Command> inbox; // the current attempt's forwarder
  private int restarts;
  private boolean recovering; // from a failure until the new attempt's tasks are started
  private Checkpoints.Completed<Path, CoordinatorState> restoring; // null: from the start
  private static final String CHECKPOINT_TIMER = "checkpoint";
  private final ActorRef<JobJournal.Command> journal; // null: checkpoints off
  private final RequestLedger ledger; // the journaled requests; null: checkpoints off
  private boolean requestsRecovered; // the journal told the open requests (sequence numbers)
  private final KryoSerde metadataSerde;
  private final Path restoreFrom; // null: resume from the journal, if it has checkpoints
  private final CrashInjection crashes = new CrashInjection(); // for testing Koala only
  private boolean epochsTurn; // a checkpoint committed since the last epoch started
  static final String METADATA_FILE = "_metadata";

  static Behavior<Command> create(
      String jobId,
      ExecutionPlan plan,
      List<ActorRef<Worker.Command>> workers,
      WorkerPool pool,
      KoalaConfig config,
      Path checkpointRoot,
      JournalSettings journalSettings,
      Path restoreFrom,
      ActorRef<JobListener.Event> listener,
      boolean sharded) {
    JobCoordinator[] self = new JobCoordinator[1]; // its logging context reads the running epoch
    return LogContext.coordinator(
        jobId,
        () -> self[0] == null || self[0].active == null ? 0 : self[0].active.driver.epoch(),
        Behaviors.<Command>setup(
            ctx -> {
              // named after this class, not the actor cell, so that its log can be configured
              ctx.setLoggerName(JobCoordinator.class);
              return Behaviors.withTimers(
                  timers ->
                      self[0] =
                          new JobCoordinator(
                              ctx,
                              timers,
                              jobId,
                              plan,
                              workers,
                              pool,
                              config,
                              checkpointRoot,
                              journalSettings,
                              restoreFrom,
                              listener,
                              sharded));
            }));
  }

  private JobCoordinator(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      String jobId,
      ExecutionPlan plan,
      List<ActorRef<Worker.Command>> workers,
      WorkerPool pool,
      KoalaConfig config,
      Path checkpointRoot,
      JournalSettings journalSettings,
      Path restoreFrom,
      ActorRef<JobListener.Event> listener,
      boolean sharded) {
    super(ctx);
    this.restoreFrom = restoreFrom;
    this.jobId = jobId;
    this.plan = plan;
    this.workers = new ArrayList<>(workers);
    this.scaleOnJoin = config.scaleOnJoin();
    this.relocation =
        ctx.messageAdapter(
            CheckpointOutcome.class, o -> new RelocationCheckpointed(o.checkpointId(), o.error()));
    if (listener != null) {
      listeners.add(listener);
    }
    this.sharded = sharded;
    if (sharded && journalSettings == null) {
      throw new IllegalArgumentException("a sharded coordinator needs the job's journal");
    }
    this.timers = timers;
    this.settings = config.channels();
    this.metricsTimeout = config.metricsTimeout();
    this.stepTimeout = config.reconfigurationStepTimeout();
    Duration deployTimeout = config.deployTimeout();
    this.deployment = DeploymentPlan.of(jobId, plan, workers.size(), settings);
    this.live = LiveDeployment.of(plan, deployment);
    this.retirement = new Retirement(config.drain());
    this.protocol = config.protocol();
    this.bucketsPerStep = config.bucketsPerStep();
    this.drainSettings = config.drain();
    this.initialDeployment = live.copy();
    this.maxRestarts = config.maxRestarts();
    this.restartBackoff = config.restartBackoff();
    this.redeployTimeout = config.redeployTimeout();
    this.pool = pool; // some worker is placeable: the runtime checked
    for (int w : pool.survivors()) {
      ctx.watchWith(workers.get(w), new WorkerLost(w));
    }
    if (checkpointRoot != null) {
      Duration interval = config.checkpointInterval();
      this.checkpoints =
          new Checkpoints<>(
              new Checkpoints.Settings(interval.toMillis(), config.checkpointsRetained()),
              System.currentTimeMillis());
      this.storage = new CheckpointStorage(checkpointRoot);
      Duration tick = interval.dividedBy(5);
      tick = tick.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : tick;
      tick = tick.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : tick;
      timers.startTimerWithFixedDelay(CHECKPOINT_TIMER, CheckpointTick.INSTANCE, tick);
    } else {
      this.checkpoints = null;
      this.storage = null;
    }
    this.inbox = forwarder(0);
    this.lastMetrics =
        new JobMetrics(
            jobId,
            status,
            System.currentTimeMillis(),
            List.of(),
            List.of(),
            Map.of(),
            0,
            CheckpointStats.NONE,
            null);
    this.metadataSerde = new KryoSerde(KoalaSerialization.registry(ctx.getSystem()));
    timers.startSingleTimer(DeployTimeout.INSTANCE, DeployTimeout.INSTANCE, deployTimeout);
    if (journalSettings != null) {
      // resume from what the job's journal holds (a job submitted again after a restart)
      this.journal = ctx.spawn(JobJournal.create(jobId, journalSettings), "journal");
      this.ledger = new RequestLedger(0);
      // a sharded coordinator records its start, and learns how many started before it
      ctx.ask(
          JournalState.class,
          journal,
          deployTimeout,
          sharded ? JobJournal.StartIncarnation::new : JobJournal.Recover::new,
          (state, error) ->
              new Recovered(state, error == null ? null : String.valueOf(error.getMessage())));
    } else {
      this.journal = null;
      this.ledger = null;
      deploy(null);
    }
  }

  /**
   * Deploys every task of the job as the current attempt: from checkpoint {@code from}'s snapshots,
   * or as the initial deployment when {@code from} is null.
   */
  private void deploy(Checkpoints.Completed<Path, CoordinatorState> from) {
    restoring = from;
    Map<TaskId, Worker.Restore> restore = new HashMap<>();
    List<TaskSetup> setups = new ArrayList<>();
    if (from == null) {
      live = initialDeployment.copy();
      retirement = new Retirement(drainSettings);
      setups.addAll(live.setups().values());
    } else {
      live = from.state().deployment().copy();
      retirement = from.state().retirement().copy();
      for (Map.Entry<TaskId, Path> e : from.snapshots().entrySet()) {
        setups.add(live.setup(e.getKey()));
        restore.put(
            e.getKey(),
            new Worker.Restore(
                from.id(), e.getValue().toString(), from.holders().contains(e.getKey())));
      }
    }
    Map<TaskId, Integer> placed = new LinkedHashMap<>();
    for (TaskSetup s : setups) {
      placed.put(s.task(), live.placement(s.task()));
    }
    // tasks leave leaving workers only for a placeable one; with none (every other worker lost or
    // leaving too, a departure that failed), they stay where they run, and only those of lost
    // workers move: to the leaving ones, which still run tasks
    Map<TaskId, Integer> moves =
        (pool.placeable().isEmpty() ? new WorkerPool(pool.size(), pool.lost()) : pool)
            .replacements(placed);
    if (!moves.isEmpty()) {
      live.relocate(moves);
      getContext()
          .getLog()
          .warn(
              "job {}: tasks of lost workers {} and leaving workers {} placed on {}",
              jobId,
              pool.lost(),
              pool.leaving(),
              moves);
    }
    Map<Integer, List<TaskSetup>> byWorker = new LinkedHashMap<>();
    for (TaskSetup s : setups) {
      addClientChannel(s);
      byWorker.computeIfAbsent(live.placement(s.task()), k -> new ArrayList<>()).add(s);
    }
    byWorker.forEach(
        (w, mine) -> {
          pendingWorkers.put(w, mine.stream().map(TaskSetup::task).toList());
          Map<TaskId, Worker.Restore> theirs = new HashMap<>();
          for (TaskSetup s : mine) {
            if (restore.containsKey(s.task())) {
              theirs.put(s.task(), restore.get(s.task()));
            }
          }
          workers.get(w).tell(new Worker.DeployTasks(jobId, w, mine, inbox, attempt, theirs));
        });
    getContext()
        .getLog()
        .info(
            "job {}: attempt {}: deploying {} tasks on {} workers{}",
            jobId,
            attempt,
            setups.size(),
            pendingWorkers.size(),
            from == null ? "" : " from checkpoint " + from.id());
    if (recovering) {
      timers.startSingleTimer(REDEPLOY_TIMER, new RedeployTimedOut(attempt), redeployTimeout);
    }
  }

  /**
   * The checkpoint {@code dir} holds ({@link #METADATA_FILE}); a snapshot file the metadata names
   * that is not where it says is looked for in {@code dir}.
   */
  private Checkpoints.Completed<Path, CoordinatorState> readMetadata(Path dir) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(dir.resolve(METADATA_FILE));
    } catch (IOException e) {
      throw new io.koala.checkpoint.CheckpointException(
          "cannot read " + dir.resolve(METADATA_FILE) + ": " + e, e);
    }
    Checkpoints.Completed<Path, CoordinatorState> c =
        CheckpointMetadata.decode(metadataSerde, bytes).completed(plan, drainSettings);
    Map<TaskId, Path> files = new LinkedHashMap<>();
    c.snapshots()
        .forEach(
            (t, p) -> files.put(t, Files.exists(p) ? p : dir.resolve(p.getFileName().toString())));
    return new Checkpoints.Completed<>(c.id(), c.triggeredMillis(), files, c.holders(), c.state());
  }

  /**
   * Writes checkpoint {@code c}'s metadata next to its snapshot files (atomically), so that its
   * directory alone can restore the job ({@link io.koala.runtime.SubmitOptions#restoreFrom}).
   */
  private void writeMetadata(Checkpoints.Completed<Path, CoordinatorState> c) {
    Path dir = storage.checkpointDirectory(jobId, c.id());
    Path tmp = dir.resolve(METADATA_FILE + ".tmp");
    try {
      Files.createDirectories(dir);
      Files.write(tmp, CheckpointMetadata.of(c).encode(metadataSerde));
      Files.move(
          tmp,
          dir.resolve(METADATA_FILE),
          java.nio.file.StandardCopyOption.ATOMIC_MOVE,
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      getContext()
          .getLog()
          .warn(
              "job {}: cannot write the metadata of checkpoint {}: {}",
              jobId,
              c.id(),
              e.toString());
    }
  }

  /** The journal answered: resume from its latest checkpoint, or start afresh. */
  private Behavior<Command> onRecovered(Recovered m) {
    if (status != JobStatus.DEPLOYING) {
      return this;
    }
    if (m.state() == null) {
      return fail(
          ErrorInfo.of(
              "journal",
              new TaskId(new OperatorId("coordinator"), 0),
              null,
              new IllegalStateException(
                  "the checkpoint journal of job " + jobId + " did not recover: " + m.error())));
    }
    boolean takeover = sharded && m.state().incarnations() > 1;
    if (takeover) {
      // a coordinator of this job ran before, elsewhere: number attempts above any it used
      getContext().stop(inbox);
      attempt = (m.state().incarnations() - 1) * ATTEMPTS_PER_INCARNATION;
      inbox = forwarder(attempt);
      getContext()
          .getLog()
          .warn(
              "job {}: coordinator {} of the job starts on {}, as attempt {}",
              jobId,
              m.state().incarnations(),
              getContext().getSystem().address(),
              attempt);
    }
    if (sharded && m.state().endedStatus() != null) {
      // the job ended under an earlier coordinator: nothing to run, only its end to tell
      timers.cancel(DeployTimeout.INSTANCE);
      timers.cancel(CHECKPOINT_TIMER);
      status = JobStatus.valueOf(m.state().endedStatus());
      endError = m.state().endedError() == null ? null : coordinatorError(m.state().endedError());
      getContext().getLog().info("job {} ended before: {}", jobId, status);
      tellListeners(new JobListener.StatusChanged(status, endError));
      return this;
    }
    List<Checkpoints.Completed<Path, CoordinatorState>> completed = new ArrayList<>();
    for (JournalState.Checkpoint c : m.state().checkpoints()) {
      try {
        completed.add(
            CheckpointMetadata.decode(metadataSerde, c.metadata().bytes())
                .completed(plan, drainSettings));
      } catch (RuntimeException e) {
        getContext()
            .getLog()
            .warn(
                "job {}: journaled checkpoint {} cannot be decoded: {}",
                jobId,
                c.id(),
                e.toString());
      }
    }
    long lastId = m.state().lastCheckpointId();
    if (restoreFrom != null) {
      Checkpoints.Completed<Path, CoordinatorState> from;
      try {
        from = readMetadata(restoreFrom);
      } catch (RuntimeException e) {
        return fail(
            ErrorInfo.of(
                "restore",
                new TaskId(new OperatorId("coordinator"), 0),
                null,
                new IllegalStateException(
                    "cannot restore job " + jobId + " from " + restoreFrom + ": " + e.getMessage(),
                    e)));
      }
      completed = List.of(from); // what the user asked for, not the journal's
      lastId = Math.max(lastId, from.id());
    }
    checkpoints.recovered(completed, lastId);
    if (!completed.isEmpty()) {
      getContext()
          .getLog()
          .warn(
              "job {}: resuming from checkpoint {} ({})",
              jobId,
              completed.get(completed.size() - 1).id(),
              restoreFrom != null ? "restored from " + restoreFrom : "the journal's latest");
    }
    if (takeover) {
      // as after a failure: the previous coordinator's tasks still running on the workers stop
      // (their workers also stop them on seeing it gone), and after the backoff the latest
      // checkpoint's tasks are deployed
      tellWorkers(new Worker.StopAttemptsBefore(jobId, attempt));
      recovering = true;
      rollbacks++;
      timers.startSingleTimer(new Redeploy(attempt), restartBackoff);
    } else {
      deploy(checkpoints.latest().orElse(null));
    }
    requeueOpenRequests(m.state());
    return this;
  }

  /**
   * The requests the journal still has open (accepted after the restored checkpoint, or not yet
   * covered by one) run again, in order, before any taken since; their callers are gone, so their
   * outcomes are only logged and reported. Requests that arrived while the journal recovered are
   * journaled now.
   */
  private void requeueOpenRequests(JournalState state) {
    List<Long> open = state.requests().stream().map(JournalState.Request::seq).toList();
    ledger.recovered(state.lastRequestSeq(), open);
    requestsRecovered = true;
    List<Queued> again = new ArrayList<>();
    for (JournalState.Request r : state.requests()) {
      if (restoreFrom != null) {
        getContext()
            .getLog()
            .warn(
                "job {}: journaled request {} is not run again: restoring from {}",
                jobId,
                r.seq(),
                restoreFrom);
        markDone(ledger.ended(r.seq()));
        continue;
      }
      try {
        Change change = (Change) metadataSerde.fromBytes(r.request().bytes());
        Queued q = new Queued(change, check(change));
        q.seq = r.seq();
        q.durable = true;
        again.add(q);
        getContext()
            .getLog()
            .warn("job {}: journaled request {} runs again: {}", jobId, r.seq(), change);
      } catch (RuntimeException e) {
        getContext()
            .getLog()
            .warn(
                "job {}: journaled request {} cannot run again: {}", jobId, r.seq(), e.toString());
        markDone(ledger.ended(r.seq()));
      }
    }
    for (Queued q : queue) {
      journalRequest(q); // arrived while the journal recovered
    }
    for (int i = again.size() - 1; i >= 0; i--) {
      queue.addFirst(again.get(i));
    }
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(FromAttempt.class, this::onFromAttempt)
        .onMessage(DeployTimeout.class, m -> onDeployTimeout())
        .onMessage(GetMetrics.class, this::onGetMetrics)
        .onMessage(Subscribe.class, this::onSubscribe)
        .onMessage(EndJournaled.class, this::onEndJournaled)
        .onMessage(MetricsGathered.class, this::onMetricsGathered)
        .onMessage(GetCollected.class, this::onGetCollected)
        .onMessage(Cancel.class, this::onCancel)
        .onMessage(Reconfigure.class, this::onReconfigure)
        .onMessage(EpochStalled.class, this::onEpochStalled)
        .onMessage(CheckpointTick.class, t -> onCheckpointTick())
        .onMessage(TakeCheckpoint.class, this::onTakeCheckpoint)
        .onMessage(Redeploy.class, this::onRedeploy)
        .onMessage(Recovered.class, this::onRecovered)
        .onMessage(Journaled.class, this::onJournaled)
        .onMessage(RequestJournaled.class, this::onRequestJournaled)
        .onMessage(HolderReleased.class, this::onHolderReleased)
        .onMessage(TaskTerminated.class, this::onTaskTerminated)
        .onMessage(TaskStopChecked.class, this::onTaskStopChecked)
        .onMessage(WorkerLost.class, this::onWorkerLost)
        .onMessage(WorkerJoined.class, this::onWorkerJoined)
        .onMessage(DrainWorker.class, this::onDrainWorker)
        .onMessage(RelocationCheckpointed.class, this::onRelocationCheckpointed)
        .onMessage(RedeployTimedOut.class, this::onRedeployTimedOut)
        .onMessage(PlanCrashes.class, this::onPlanCrashes)
        .onMessage(CrashTick.class, t -> onCrashTick())
        .onMessage(GetInjectedCrashes.class, this::onGetInjectedCrashes)
        .build();
  }

  /** A child that stamps what the tasks and workers of {@code n} say with {@code n}. */
  private ActorRef<Command> forwarder(int n) {
    ActorRef<Command> self = getContext().getSelf();
    return getContext()
        .spawn(
            Behaviors.<Command>setup(
                ctx ->
                    Behaviors.receive(Command.class)
                        .onMessage(
                            WatchTask.class,
                            w -> {
                              // watched here, so that a task's last words (TaskFailed) reach the
                              // coordinator before the news of its stop, as they were sent
                              ctx.watchWith(w.ref(), new TaskTerminated(w.task(), n));
                              return Behaviors.same();
                            })
                        .onAnyMessage(
                            m -> {
                              self.tell(new FromAttempt(n, m));
                              return Behaviors.same();
                            })
                        .build()),
            "attempt-" + n);
  }

  /** What a task or worker said: handled if it belongs to the current attempt, else dropped. */
  private Behavior<Command> onFromAttempt(FromAttempt f) {
    Command m = f.command();
    if (f.attempt() != attempt) {
      getContext()
          .getLog()
          .debug("job {}: dropped from attempt {} (now {}): {}", jobId, f.attempt(), attempt, m);
      return this;
    }
    if (m instanceof TasksDeployed d) {
      return onTasksDeployed(d);
    } else if (m instanceof DeployFailed d) {
      return failed(d.error());
    } else if (m instanceof SnapshotUnusable u) {
      return onSnapshotUnusable(u);
    } else if (m instanceof TaskFinished t) {
      return onTaskFinished(t);
    } else if (m instanceof TaskFailed t) {
      return failed(t.error());
    } else if (m instanceof ResultsDelivered r) {
      return onResults(r);
    } else if (m instanceof EpochReported e) {
      return onEpochReported(e);
    } else if (m instanceof SnapshotTaken t) {
      return onSnapshotTaken(t);
    } else if (m instanceof HolderReleased h) {
      return onHolderReleased(h);
    } else if (m instanceof TaskTerminated t) {
      return onTaskTerminated(t);
    }
    throw new IllegalStateException("unhandled " + m);
  }

  private void addClientChannel(TaskSetup s) {
    clientChannels.put(
        s.clientChannel(), new InputChannel(s.clientChannel(), s.task(), 0, settings.credits()));
    sinkOf.put(s.task(), plan.vertex(s.task().operator()).tail().id());
  }

  private Behavior<Command> onTasksDeployed(TasksDeployed m) {
    for (TaskActor.TaskRef r : m.tasks()) {
      tasks.put(r.task(), r.ref());
      addresses.put(r.task(), r);
      inbox.tell(new WatchTask(r.task(), r.ref()));
    }
    if (status.isTerminal()) {
      // a late deployment of a job that already ended: stop those tasks too
      workers.get(m.worker()).tell(new Worker.StopJob(jobId));
      return this;
    }
    if (status == JobStatus.RUNNING && !recovering) {
      return onEpochTasksDeployed(m);
    }
    pendingWorkers.remove(m.worker());
    if (pendingWorkers.isEmpty()) {
      timers.cancel(REDEPLOY_TIMER);
      List<TaskActor.TaskRef> book = new ArrayList<>(addresses.values());
      if (startMillis == 0) {
        startMillis = System.currentTimeMillis(); // the origin of source rates, once per job
      }
      for (ActorRef<TaskMessage> ref : tasks.values()) {
        ref.tell(new TaskActor.Start(book, startMillis));
      }
      boolean resuming = recovering || restoring != null;
      if (status == JobStatus.DEPLOYING) {
        status = JobStatus.RUNNING;
        tellListeners(new JobListener.StatusChanged(status, null));
        getContext().getLog().info("job {}: running", jobId);
      }
      if (resuming) {
        resumed(); // after a rollback, or from a journaled or given checkpoint
      }
      startNextEpoch();
      advanceDepartures();
    }
    return this;
  }

  private Behavior<Command> onDeployTimeout() {
    if (status == JobStatus.DEPLOYING) {
      return fail(
          ErrorInfo.of(
              "deployment",
              new TaskId(new OperatorId("coordinator"), 0),
              null,
              new IllegalStateException(
                  describePending()
                      + " did not deploy their tasks in time"
                      + " (koala.deploy-timeout)")));
    }
    return this;
  }

  private Behavior<Command> onTaskFinished(TaskFinished m) {
    if (status != JobStatus.RUNNING) {
      return this;
    }
    finished.add(m.task());
    retirement.taskFinished(m.task()).forEach(this::holderUnreferenced);
    if (checkpoints != null) {
      carryOut(checkpoints.taskFinished(m.task()));
    }
    if (finished.containsAll(tasks.keySet()) && (active == null || active.deploying.isEmpty())) {
      if (active != null) {
        timers.cancel(STEP_TIMER);
        reject(
            active.request,
            "job " + jobId + " finished before epoch " + active.driver.epoch() + " completed");
        active = null;
      }
      rejectQueued("job " + jobId + " finished");
      requestMetrics(FINAL_METRICS);
    }
    return this;
  }

  private Behavior<Command> onResults(ResultsDelivered m) {
    Deliver d = m.deliver();
    InputChannel ch = clientChannels.get(d.channel());
    if (ch == null || !ch.source().equals(m.from())) {
      return fail(
          ErrorInfo.of(
              "coordinator",
              m.from(),
              null,
              new ProtocolViolationException("unknown client channel " + d.channel())));
    }
    try {
      ch.accept(d.seq(), d.item() == EndOfChannel.INSTANCE);
    } catch (ProtocolViolationException e) {
      return fail(ErrorInfo.of(sinkOf.get(m.from()).name(), m.from(), null, e));
    }
    if (d.item() instanceof RecordBatch b) {
      List<Object> values = new ArrayList<>(b.size());
      for (int i = 0; i < b.size(); i++) {
        values.add(b.value(i));
      }
      String sink = sinkOf.get(m.from()).name();
      if (checkpoints == null) {
        collected.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(values);
      } else {
        output.received(m.from(), sink, values); // published once a checkpoint covers them
      }
    } else if (d.item() instanceof CheckpointBarrier cb && checkpoints != null) {
      output.cut(m.from(), cb.checkpointId());
      carryOut(checkpoints.clientBarrier(m.from(), cb.checkpointId()));
    }
    long grant = ch.consumed(d.item() == EndOfChannel.INSTANCE);
    ActorRef<TaskMessage> ref = tasks.get(m.from());
    if (grant >= 0 && ref != null) {
      ref.tell(new Credit(ch.id(), grant));
    }
    return this;
  }

  private Behavior<Command> onGetMetrics(GetMetrics m) {
    if (status.isTerminal() || tasks.isEmpty()) {
      m.replyTo().tell(lastMetrics);
    } else {
      int id = nextRequest++;
      metricsRequests.put(id, m.replyTo());
      requestMetrics(id);
    }
    return this;
  }

  /** A snapshot of the job now, with {@code tasks}' metrics. */
  private JobMetrics metrics(JobStatus status, List<TaskMetricsSnapshot> tasks) {
    long now = System.currentTimeMillis();
    return new JobMetrics(
        jobId,
        status,
        now,
        tasks,
        reports,
        placement(),
        rollbacks,
        checkpointStats,
        status.isTerminal() ? null : progress(tasks, now));
  }

  /** The active reconfiguration's progress, or null when none runs. */
  private ReconfigurationProgress progress(List<TaskMetricsSnapshot> tasks, long now) {
    if (active == null) {
      return null;
    }
    OperatorId op = active.driver.operator();
    return progressEstimator.estimate(
        active.request.change.toString(),
        op,
        active.driver.epoch(),
        active.driver.phase(),
        active.startedMillis,
        queue.size(),
        retirement.retiring(op),
        tasks,
        now);
  }

  private void requestMetrics(int request) {
    getContext()
        .spawnAnonymous(
            MetricsAggregator.create(
                new ArrayList<>(tasks.values()), request, getContext().getSelf(), metricsTimeout));
  }

  private Behavior<Command> onMetricsGathered(MetricsGathered m) {
    if (m.request() == FINAL_METRICS) {
      if (status == JobStatus.RUNNING) {
        lastMetrics = metrics(JobStatus.FINISHED, withReleased(m.tasks()));
        end(JobStatus.FINISHED, null);
      }
      return this;
    }
    ActorRef<JobMetrics> replyTo = metricsRequests.remove(m.request());
    JobMetrics metrics = metrics(status, withReleased(m.tasks()));
    if (!status.isTerminal()) {
      lastMetrics = metrics;
    }
    if (replyTo != null) {
      replyTo.tell(status.isTerminal() ? lastMetrics : metrics);
    }
    return this;
  }

  /** The worker each task of the current attempt runs on. */
  private Map<TaskId, Integer> placement() {
    Map<TaskId, Integer> out = new LinkedHashMap<>();
    for (TaskId t : tasks.keySet()) {
      out.put(t, live.placement(t));
    }
    return out;
  }

  /**
   * Task metrics with those of the holders already stopped (their counts stay in the totals); a
   * holder asked for metrics while it was being released appears once.
   */
  private List<TaskMetricsSnapshot> withReleased(List<TaskMetricsSnapshot> live) {
    if (releasedMetrics.isEmpty()) {
      return live;
    }
    Set<TaskId> stopped = new HashSet<>();
    releasedMetrics.forEach(t -> stopped.add(t.task()));
    List<TaskMetricsSnapshot> all = new ArrayList<>();
    for (TaskMetricsSnapshot t : live) {
      if (!stopped.contains(t.task())) {
        all.add(t);
      }
    }
    all.addAll(releasedMetrics);
    return all;
  }

  private Behavior<Command> onGetCollected(GetCollected m) {
    m.replyTo().tell(new Collected(List.copyOf(collected.getOrDefault(m.sink(), List.of()))));
    return this;
  }

  private Behavior<Command> onCancel(Cancel m) {
    if (!status.isTerminal()) {
      for (ActorRef<TaskMessage> ref : tasks.values()) {
        ref.tell(TaskActor.Cancel.INSTANCE);
      }
      end(JobStatus.CANCELLED, null);
    }
    m.replyTo().tell(status);
    return this;
  }

  /**
   * A task failed, stopped, or could not be deployed: with checkpoints on and restarts left, the
   * job rolls back; else it fails.
   */
  private Behavior<Command> failed(ErrorInfo error) {
    if (status.isTerminal()) {
      return this;
    }
    if (checkpoints == null || status != JobStatus.RUNNING) {
      return fail(error);
    }
    if (restarts >= maxRestarts) {
      getContext()
          .getLog()
          .error(
              "job {}: no restart left after {} (koala.checkpoint.max-restarts = {})",
              jobId,
              restarts,
              maxRestarts);
      return fail(error);
    }
    restarts++;
    rollback(error.describe());
    return this;
  }

  private Behavior<Command> fail(ErrorInfo error) {
    if (status.isTerminal()) {
      return this;
    }
    getContext().getLog().error("job {} failed: {}", jobId, error.describe());
    for (ActorRef<TaskMessage> ref : tasks.values()) {
      ref.tell(TaskActor.Cancel.INSTANCE);
    }
    end(JobStatus.FAILED, error);
    return this;
  }

  private void end(JobStatus terminal, ErrorInfo error) {
    status = terminal;
    endError = error;
    timers.cancel(CHECKPOINT_TIMER);
    if (sharded) {
      // before anything forgets the job's checkpoints: a coordinator that starts again on this
      // journal must not run the job afresh
      getContext()
          .askWithStatus(
              JobJournal.EndAck.class,
              journal,
              metricsTimeout,
              r ->
                  new JobJournal.RecordEnd(
                      terminal.name(), error == null ? null : error.describe(), r),
              (ack, e) -> new EndJournaled(e == null ? null : String.valueOf(e.getMessage())));
    }
    if (checkpoints != null && terminal == JobStatus.FINISHED) {
      // nothing is left to resume: the journal and the files forget the job's checkpoints
      for (var c : checkpoints.retained()) {
        discardInJournal(c.id());
      }
      try {
        Worker.deleteRecursively(storage.jobDirectory(jobId));
      } catch (RuntimeException e) {
        getContext()
            .getLog()
            .warn("job {}: cannot delete its checkpoints: {}", jobId, e.toString());
      }
      if (ledger != null) {
        markDone(ledger.finished()); // a later job with this id does not run them
      }
      output // the job ended: every result is final
          .ended()
          .forEach(
              (sink, values) ->
                  collected.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(values));
    }
    String why = "job " + jobId + " is " + terminal;
    checkpointAsked.forEach(r -> r.tell(new CheckpointOutcome(-1, why)));
    checkpointAsked.clear();
    checkpointWaiters.values().forEach(l -> l.forEach(r -> r.tell(new CheckpointOutcome(-1, why))));
    checkpointWaiters.clear();
    if (terminal != JobStatus.FINISHED) {
      lastMetrics =
          new JobMetrics(
              jobId,
              terminal,
              lastMetrics.atMillis(),
              lastMetrics.tasks(),
              reports,
              lastMetrics.placement(),
              rollbacks,
              checkpointStats,
              null);
    }
    timers.cancel(STEP_TIMER);
    String reason = "job " + jobId + " is " + terminal;
    if (error != null) {
      reason += ": " + error.describe();
    }
    if (active != null) {
      reject(active.request, reason);
      active = null;
    }
    rejectQueued(reason);
    for (int w : List.copyOf(departures.keySet())) {
      departed(w, null); // its tasks stop with the job
    }
    timers.cancel(REDEPLOY_TIMER);
    tellWorkers(new Worker.StopJob(jobId));
    for (ActorRef<JobMetrics> r : metricsRequests.values()) {
      r.tell(lastMetrics);
    }
    metricsRequests.clear();
    getContext().getLog().info("job {}: {}", jobId, terminal);
    tellListeners(new JobListener.StatusChanged(terminal, error));
  }

  private Behavior<Command> onEndJournaled(EndJournaled m) {
    if (m.error() != null) {
      getContext()
          .getLog()
          .error(
              "job {}: its end ({}) was not journaled; a coordinator started again for it would"
                  + " resume it from its latest checkpoint: {}",
              jobId,
              status,
              m.error());
    }
    return this;
  }

  private Behavior<Command> onSubscribe(Subscribe m) {
    listeners.add(m.listener());
    if (m.submission() && sharded && status.isTerminal()) {
      m.listener()
          .tell(
              new JobListener.StatusChanged(
                  JobStatus.FAILED,
                  coordinatorError(
                      "job "
                          + jobId
                          + " ran on this cluster before and ended "
                          + status
                          + "; its journal keeps that end, so the job does not run again: submit"
                          + " the dataflow under another name")));
      return this;
    }
    m.listener().tell(new JobListener.StatusChanged(status, endError));
    return this;
  }

  private void tellListeners(JobListener.Event event) {
    listeners.forEach(l -> l.tell(event));
  }

  /** An error of the job as a whole, not of a task. */
  static ErrorInfo coordinatorError(String message) {
    return ErrorInfo.of(
        "coordinator",
        new TaskId(new OperatorId("coordinator"), 0),
        null,
        new IllegalStateException(message));
  }

  // ---------------------------------------------------------------- reconfiguration

  private Behavior<Command> onReconfigure(Reconfigure m) {
    if (status.isTerminal()) {
      m.replyTo().tell(new Reconfiguration.Rejected(JOB_ENDING, "job " + jobId + " is " + status));
      return this;
    }
    OperatorId vertex;
    try {
      vertex = check(m.change());
    } catch (IllegalArgumentException e) {
      m.replyTo().tell(new Reconfiguration.Rejected(INVALID_REQUEST, e.getMessage()));
      return this;
    }
    if (m.change().coalesces()) {
      for (Queued q : queue) {
        if (q.vertex.equals(vertex) && q.change.coalesces()) {
          getContext()
              .getLog()
              .info("job {}: queued {} replaced by {}", jobId, q.change, m.change());
          q.change = m.change(); // coalesced: the latest target wins, both callers get its report
          q.replyTo.add(m.replyTo());
          journalRequest(q); // under a new number: the one it replaces is done once it is durable
          return this;
        }
      }
    }
    Queued q = new Queued(m.change(), vertex);
    q.replyTo.add(m.replyTo());
    queue.add(q);
    journalRequest(q);
    startNextEpoch();
    return this;
  }

  /**
   * Journals queued request {@code q} before it may start (DESIGN §6.1), so that a restart runs it
   * again; {@link RequestJournaled} follows. Without checkpoints it may start at once.
   */
  private void journalRequest(Queued q) {
    if (ledger == null) {
      q.durable = true;
      return;
    }
    if (!requestsRecovered) {
      return; // numbered and journaled once the journal has recovered
    }
    if (q.seq > 0) {
      q.superseded.add(q.seq);
    }
    long seq = ledger.accept();
    q.seq = seq;
    q.durable = false;
    byte[] bytes = metadataSerde.toBytes(q.change);
    getContext()
        .askWithStatus(
            JobJournal.RequestAck.class,
            journal,
            Duration.ofSeconds(30),
            r -> new JobJournal.RecordRequest(seq, bytes, r),
            (ack, error) ->
                new RequestJournaled(
                    seq, error == null ? null : String.valueOf(error.getMessage())));
  }

  private Behavior<Command> onRequestJournaled(RequestJournaled m) {
    Queued q = null;
    for (Queued c : queue) {
      if (c.seq == m.seq()) {
        q = c;
      }
    }
    if (q == null) {
      return this; // replaced by a later request, or rejected as the job ended
    }
    if (m.error() != null) {
      queue.remove(q);
      getContext()
          .getLog()
          .error("job {}: the journal cannot record request {}: {}", jobId, m.seq(), m.error());
      reject(
          q,
          JOB_ENDING,
          "the journal of job " + jobId + " cannot record the request: " + m.error());
      endedNow(q); // in case the write reached the store after all
      return this;
    }
    q.durable = true;
    for (long old : q.superseded) {
      markDone(ledger.ended(old));
    }
    q.superseded.clear();
    refuseUnplaceable();
    startNextEpoch();
    return this;
  }

  /** Marks the journaled requests {@code seqs} done: a restart does not run them again. */
  private void markDone(List<Long> seqs) {
    for (long seq : seqs) {
      writeToJournal(
          JobJournal.RequestDoneAck.class,
          r -> new JobJournal.RequestDone(seq, r),
          "mark request " + seq + " done");
    }
  }

  /**
   * A journal write whose failure costs only a repeat after a restart (a request run again, a
   * checkpoint's record kept): sent, and a failure logged.
   */
  private <T> void writeToJournal(
      Class<T> ack,
      java.util.function.Function<
              ActorRef<org.apache.pekko.pattern.StatusReply<T>>, JobJournal.Command>
          command,
      String what) {
    getContext()
        .askWithStatus(
            ack,
            journal,
            Duration.ofSeconds(30),
            command::apply,
            (reply, error) -> {
              if (error != null) {
                getContext()
                    .getLog()
                    .warn("job {}: the journal did not {}: {}", jobId, what, error.toString());
              }
              return CheckpointTick.INSTANCE;
            });
  }

  /**
   * Refuses at once the durable queued requests that no longer pass {@link #check} (a {@code
   * migrate} to a worker lost since it was accepted), rather than when their turn comes: epochs may
   * be held for long (recovery, checkpoints).
   */
  private void refuseUnplaceable() {
    for (Iterator<Queued> it = queue.iterator(); it.hasNext(); ) {
      Queued q = it.next();
      if (!q.durable) {
        continue; // checked once journaled
      }
      try {
        check(q.change);
      } catch (IllegalArgumentException e) {
        it.remove();
        reject(q, INVALID_REQUEST, e.getMessage());
        endedNow(q);
      }
    }
    replanDepartures();
  }

  /** Checks what does not depend on the deployment at the time the epoch starts. */
  private OperatorId check(Change c) {
    return Change.check(c, plan, live, pool);
  }

  /**
   * No epoch starts while a checkpoint is in progress or due (it takes priority, §8), nor while
   * recovering — except that right after a checkpoint commits, the next queued epoch goes first
   * even if another checkpoint is already due: they take turns, so checkpoints that take longer
   * than their interval do not hold reconfigurations back for good.
   */
  private boolean epochsHeld() {
    if (recovering) {
      return true;
    }
    return checkpoints != null
        && !inputEnds.finishing()
        && (checkpoints.inProgress()
            || (!epochsTurn && checkpointWanted(System.currentTimeMillis())));
  }

  private void startNextEpoch() {
    while (active == null
        && status == JobStatus.RUNNING
        && !queue.isEmpty()
        && queue.peek().durable
        && !epochsHeld()) {
      Queued q = queue.poll();
      if (inputEnds.finishing()) {
        reject(
            q,
            "job "
                + jobId
                + " is finishing: source task "
                + inputEnds.first()
                + " has read all its input");
        endedNow(q);
        continue;
      }
      ReconfigurationPlan rp;
      ReconfigurationDriver driver;
      try {
        check(q.change); // again: a worker it names may have been lost while it waited
        rp = q.change.plan(live, q.vertex);
        if (rp.isNoop()) {
          complete(
              q,
              report(
                  q,
                  0,
                  rp.tasksBefore(),
                  rp.tasksAfter(),
                  new int[0],
                  0,
                  EpochMessage.Transfer.NONE,
                  0));
          endedNow(q);
          continue;
        }
        driver =
            new ReconfigurationDriver(
                nextEpoch, q.vertex, rp, live, placer(q), protocol, bucketsPerStep);
      } catch (IllegalArgumentException e) {
        reject(q, INVALID_REQUEST, e.getMessage());
        endedNow(q);
        continue;
      }
      nextEpoch += driver.epochs();
      taken.add(q);
      active = new Active(q, driver, System.currentTimeMillis());
      epochsTurn = false;
      retirement.epochStarted(q.vertex);
      getContext()
          .getLog()
          .info(
              "job {}: epoch {}: {} ({} buckets move)",
              jobId,
              driver.epoch(),
              q.change,
              rp.moves().size());
      apply(driver.start());
    }
    replanDepartures();
    if (active == null
        && status == JobStatus.RUNNING
        && !recovering
        && (checkpoints == null || !checkpoints.inProgress())) {
      // no reconfiguration or checkpoint runs, and none will start: the sources may end
      for (TaskId t : inputEnds.release()) {
        tasks.get(t).tell(new EpochMessage.EndInput(nextEpoch - 1));
      }
    }
  }

  /** A source read all its input: it ends now, or once the running reconfiguration is done. */
  private void onInputEnded(EpochMessage.InputEnded m) {
    if (status != JobStatus.RUNNING) {
      return;
    }
    inputEnds.ended(m.task());
    startNextEpoch(); // rejects what is queued, and lets the source end unless an epoch runs
  }

  /**
   * Places new tasks where the request says, else on the workers not lost with fewest of its tasks.
   */
  private java.util.function.IntUnaryOperator placer(Queued q) {
    int[] load = new int[workers.size()];
    for (TaskId t : live.liveTaskIds(q.vertex)) {
      load[live.placement(t)]++;
    }
    return index -> {
      int w = q.change.workerOf(index);
      if (w < 0) {
        if (pool.placeable().isEmpty()) {
          // called while the epoch is planned, in startNextEpoch: refused like an invalid request
          throw new IllegalArgumentException(
              "no worker can take the new tasks of '"
                  + q.vertex
                  + "' (lost "
                  + pool.lost()
                  + ", leaving "
                  + pool.leaving()
                  + ")");
        }
        w = pool.leastLoaded(load);
      }
      load[w]++;
      return w;
    };
  }

  /** Carries out what the driver decided, after noting the phase it reached. */
  private void apply(List<EpochDriver.Effect> effects) {
    Active a = active;
    long now = System.currentTimeMillis();
    EpochDriver.Phase phase = a.driver.phase();
    // the hand-over time of every epoch the request takes (a staged protocol takes several)
    if (phase == EpochDriver.Phase.HANDING_OVER && a.handoverStartMillis < 0) {
      a.handoverStartMillis = now;
    } else if (phase != EpochDriver.Phase.HANDING_OVER && a.handoverStartMillis >= 0) {
      a.handoverMillis += now - a.handoverStartMillis;
      a.handoverStartMillis = -1;
    }
    timers.startSingleTimer(STEP_TIMER, new EpochStalled(a.driver.epoch()), stepTimeout);
    for (EpochDriver.Effect e : effects) {
      if (e instanceof EpochDriver.Deploy d) {
        Map<Integer, List<TaskSetup>> byWorker = new LinkedHashMap<>();
        for (TaskSetup s : d.setups()) {
          addClientChannel(s);
          byWorker.computeIfAbsent(d.placement().get(s.task()), k -> new ArrayList<>()).add(s);
        }
        byWorker.forEach(
            (w, setups) -> {
              a.deploying.add(w);
              workers
                  .get(w)
                  .tell(new Worker.DeployTasks(jobId, w, setups, inbox, attempt, Map.of()));
            });
      } else if (e instanceof EpochDriver.Send send) {
        ActorRef<TaskMessage> ref = tasks.get(send.to());
        if (ref == null) {
          throw new IllegalStateException(
              "epoch " + a.driver.epoch() + " addresses unknown task " + send.to());
        }
        ref.tell(send.command());
      } else if (e instanceof EpochDriver.Done done) {
        finishEpoch(done.report());
      }
    }
    maybeCrash(); // with the phase's commands in flight
  }

  private Behavior<Command> onEpochTasksDeployed(TasksDeployed m) {
    if (active == null || !active.deploying.remove(m.worker())) {
      return this;
    }
    active.added.addAll(m.tasks());
    if (!active.deploying.isEmpty()) {
      return this;
    }
    // everyone learns the new addresses before any command of the epoch can name them
    Set<TaskId> added = new HashSet<>();
    for (TaskActor.TaskRef r : active.added) {
      added.add(r.task());
    }
    List<TaskActor.TaskRef> book = new ArrayList<>(addresses.values());
    tasks.forEach(
        (t, ref) -> {
          if (added.contains(t)) {
            ref.tell(new TaskActor.Start(book, startMillis));
          } else {
            ref.tell(new TaskActor.Addresses(List.copyOf(active.added)));
          }
        });
    apply(active.driver.deployed());
    return this;
  }

  private Behavior<Command> onEpochReported(EpochReported m) {
    if (m.report() instanceof EpochMessage.InputEnded e) {
      onInputEnded(e);
      return this;
    }
    if (m.report() instanceof EpochMessage.References r) {
      if (status == JobStatus.RUNNING) {
        retirement.on(r, live.liveTaskIds(r.task().operator())).forEach(this::holderUnreferenced);
      }
      return this;
    }
    if (active == null || status != JobStatus.RUNNING) {
      return this;
    }
    apply(active.driver.on(m.report()));
    return this;
  }

  /**
   * No owner references retiring holder {@code task} any more (§6.5, C5): keeps its final metrics,
   * then its worker stops it and deletes its state.
   */
  private void release(TaskId task) {
    ActorRef<TaskMessage> ref = tasks.get(task);
    if (ref == null || !released.add(task)) {
      return;
    }
    int asked = attempt;
    getContext()
        .ask(
            TaskMetricsSnapshot.class,
            ref,
            metricsTimeout,
            TaskActor.GetMetrics::new,
            (metrics, error) -> new FromAttempt(asked, new HolderReleased(task, metrics)));
  }

  /**
   * Retirement found a holder no owner references: it stops now, or with checkpoints once no
   * retained or pending checkpoint includes it (§6.7, C5).
   */
  private void holderUnreferenced(TaskId task) {
    if (checkpoints == null) {
      release(task);
    } else {
      carryOut(checkpoints.holderUnreferenced(task));
    }
  }

  private Behavior<Command> onHolderReleased(HolderReleased m) {
    if (m.metrics() != null) {
      releasedMetrics.add(m.metrics().released());
    }
    tasks.remove(m.task());
    addresses.remove(m.task());
    finished.remove(m.task());
    getContext()
        .getLog()
        .info("job {}: retired task {} holds no state any more; stopping it", jobId, m.task());
    workers.get(live.placement(m.task())).tell(new Worker.StopTask(jobId, m.task(), attempt));
    advanceDepartures();
    return this;
  }

  /**
   * DeathWatch: a task stopped while the job runs, and not because it was released. Its worker is
   * asked whether it is still there first ({@link TaskStopChecked} follows), so that a task that
   * stopped with its worker counts as the loss of that worker, whichever news came first.
   */
  private Behavior<Command> onTaskTerminated(TaskTerminated m) {
    if (status.isTerminal() || released.contains(m.task())) {
      return this;
    }
    int worker = live.placement(m.task());
    if (!pool.available(worker)) {
      return this; // stopped with its lost worker: recovered as that loss
    }
    int stopped = m.attempt();
    getContext()
        .ask(
            Worker.Alive.class,
            workers.get(worker),
            metricsTimeout,
            Worker.IsAlive::new,
            (alive, error) -> new TaskStopChecked(m.task(), stopped, alive != null));
    return this;
  }

  /**
   * A task stopped unexpectedly and its worker was heard from: the job fails or rolls back. A
   * worker that did not answer (within {@code koala.metrics-timeout}, or at once because it has
   * stopped) is lost, with its tasks.
   */
  private Behavior<Command> onTaskStopChecked(TaskStopChecked m) {
    if (m.attempt() != attempt
        || status.isTerminal()
        || released.contains(m.task())
        || !pool.available(live.placement(m.task()))) {
      return this;
    }
    if (!m.workerAlive()) {
      // no answer: an ask to a worker that has stopped fails at once, before the DeathWatch of
      // the worker says so; either way the worker is gone for this job
      return onWorkerLost(new WorkerLost(live.placement(m.task())));
    }
    return failed(
        ErrorInfo.of(
            m.task().operator().name(),
            m.task(),
            null,
            new IllegalStateException(
                "the actor of task "
                    + m.task()
                    + " stopped while job "
                    + jobId
                    + " is "
                    + status
                    + " (its worker "
                    + live.placement(m.task())
                    + " is still there)")));
  }

  /**
   * DeathWatch: worker {@code w} stopped or its node went away. It is lost for good: no task is
   * placed on it again. If it hosted tasks of the job (or was deploying some), the job rolls back
   * and its tasks are restored on the remaining workers ({@link WorkerPool#replacements}); without
   * checkpoints, or when no worker remains, the job fails naming it.
   */
  private Behavior<Command> onWorkerLost(WorkerLost m) {
    int w = m.worker();
    if (!pool.available(w)) {
      return this;
    }
    pool = pool.without(w);
    if (status.isTerminal()) {
      return this;
    }
    if (departures.containsKey(w)) {
      departed(
          w,
          "worker "
              + w
              + " was lost before the tasks of job "
              + jobId
              + " were moved off; the job recovers as from a crash");
    }
    refuseUnplaceable();
    List<TaskId> hosted = new ArrayList<>();
    for (TaskId t : tasks.keySet()) {
      if (!released.contains(t) && live.placement(t) == w) {
        hosted.add(t);
      }
    }
    for (TaskId t : pendingWorkers.getOrDefault(w, List.of())) {
      if (!hosted.contains(t)) {
        hosted.add(t);
      }
    }
    boolean affected = !hosted.isEmpty() || (active != null && active.deploying.contains(w));
    if (affected) {
      getContext()
          .getLog()
          .warn(
              "job {}: worker {} is lost{}; workers left: {}",
              jobId,
              w,
              hosted.isEmpty() ? "" : " with tasks " + hosted,
              pool.survivors());
    } else {
      getContext().getLog().info("job {}: worker {} is gone, with none of its tasks", jobId, w);
    }
    TaskId where = new TaskId(new OperatorId("worker"), w);
    if (pool.exhausted()) {
      return fail(
          ErrorInfo.of(
              "worker",
              where,
              null,
              new IllegalStateException(
                  "every worker of job " + jobId + " is lost (workers " + pool.lost() + ")")));
    }
    if (!affected) {
      return this; // none of the job's tasks was there: placement avoids it from now on
    }
    String lost =
        "worker "
            + w
            + " is lost (it stopped, or its node went away) with tasks "
            + hosted
            + " of job "
            + jobId;
    ErrorInfo error =
        ErrorInfo.of(
            "worker",
            where,
            null,
            new IllegalStateException(
                checkpoints == null
                    ? lost + "; without checkpoints (koala.checkpoint.interval = off) they are lost"
                    : lost + "; workers left: " + pool.survivors()));
    if (recovering && status == JobStatus.RUNNING) {
      rollback(error.describe()); // part of the failure being recovered from: no restart counted
      return this;
    }
    return failed(error);
  }

  // ---------------------------------------------------------------- membership

  /** A worker joined: it may get tasks, and the {@code scale-on-join} operators grow onto it. */
  private Behavior<Command> onWorkerJoined(WorkerJoined m) {
    int w = m.worker();
    if (w < pool.size()) {
      return this; // known already
    }
    while (workers.size() < w) {
      workers.add(getContext().getSystem().deadLetters()); // a join missed: lost in the pool
    }
    workers.add(m.ref());
    pool = pool.joined(w);
    getContext().watchWith(m.ref(), new WorkerLost(w));
    getContext()
        .getLog()
        .info("job {}: worker {} joined; workers that take tasks: {}", jobId, w, pool.placeable());
    if (status.isTerminal()) {
      return this;
    }
    for (String operator : scaleOnJoin) {
      OperatorId vertex = plan.vertexOf(new OperatorId(operator)).id();
      int parallelism = live.liveTaskIds(vertex).size();
      Set<Integer> hosts = new HashSet<>();
      for (TaskId t : live.liveTaskIds(vertex)) {
        hosts.add(live.placement(t));
      }
      int buckets = live.setup(live.liveTaskIds(vertex).get(0)).buckets();
      int target = WorkerPool.parallelismOnJoin(parallelism, hosts.size(), buckets);
      if (target > parallelism) {
        getContext()
            .getLog()
            .info(
                "job {}: scaling {} from {} to {} tasks onto worker {} (koala.cluster.scale-on-join)",
                jobId,
                operator,
                parallelism,
                target,
                w);
        onReconfigure(
            new Reconfigure(
                new Change.Rescale(operator, target, io.koala.core.PartitionPolicy.even()),
                getContext().getSystem().ignoreRef()));
      }
    }
    return this;
  }

  /** A worker's node is leaving: no task goes there any more, and the job's tasks move off. */
  private Behavior<Command> onDrainWorker(DrainWorker m) {
    int w = m.worker();
    if (!pool.available(w)) {
      m.replyTo()
          .tell(
              new WorkerDrained(
                  jobId,
                  w,
                  pool.size() > w && w >= 0
                      ? null // lost already: nothing of the job runs there
                      : "job " + jobId + " has no worker " + w));
      return this;
    }
    if (status.isTerminal()) {
      m.replyTo().tell(new WorkerDrained(jobId, w, null));
      return this;
    }
    pool = pool.leavingOne(w);
    refuseUnplaceable(); // queued migrations to it
    departures.computeIfAbsent(w, k -> new ArrayList<>()).add(m.replyTo());
    getContext()
        .getLog()
        .info(
            "job {}: worker {} is leaving; moving its tasks to workers {}",
            jobId,
            w,
            pool.placeable());
    advanceDepartures();
    return this;
  }

  /**
   * Moves the job's tasks off every leaving worker one step further ({@link Departure#next}), and
   * answers the departures that are complete. Called whenever that may have changed: an epoch or a
   * deployment ended, a holder was released, a relocation's checkpoint committed.
   */
  private void advanceDepartures() {
    if (departures.isEmpty() || status != JobStatus.RUNNING) {
      return;
    }
    String busy = recovering ? "a recovery under way" : null;
    for (int w : List.copyOf(departures.keySet())) {
      Departure.Step step =
          Departure.next(
              w,
              hostedOn(w),
              departing,
              busy != null ? busy : deployingOn(w),
              checkpoints != null,
              pool,
              loadByOperator());
      if (step instanceof Departure.Done) {
        departed(w, null);
      } else if (step instanceof Departure.Fail f) {
        departed(w, f.reason());
      } else if (step instanceof Departure.Relocate r) {
        if (!relocationAsked) {
          relocationAsked = true;
          getContext()
              .getLog()
              .info(
                  "job {}: tasks {} of leaving worker {} move by a checkpoint and a restore",
                  jobId,
                  r.tasks(),
                  w);
          checkpointAsked.add(relocation);
          maybeCheckpoint();
        }
      } else if (step instanceof Departure.Migrate mg) {
        for (Change.Migrate c : mg.requests()) {
          departing.add(c.taskId());
          Queued q = new Queued(c, check(c));
          q.departingFrom = w;
          queue.add(q);
          journalRequest(q);
        }
        startNextEpoch();
      }
    }
  }

  /**
   * Plans the departures again once a migration they asked for was rejected as overtaken ({@link
   * #reject}); not from within {@code reject}, which runs while the queue is being iterated.
   */
  private void replanDepartures() {
    if (replanDepartures) {
      replanDepartures = false;
      advanceDepartures();
    }
  }

  /** The job's tasks on worker {@code w}, by what can move them. */
  private Departure.Hosted hostedOn(int w) {
    List<TaskId> owners = new ArrayList<>();
    List<TaskId> unmovable = new ArrayList<>();
    List<TaskId> holders = new ArrayList<>();
    for (TaskId t : tasks.keySet()) {
      if (live.placement(t) != w) {
        continue;
      }
      if (released.contains(t) || live.retired().contains(t) || finished.contains(t)) {
        // stops once drained, or with the job; released, it is there until HolderReleased
        holders.add(t);
      } else if (plan.vertex(t.operator()).isKeyed()) {
        owners.add(t);
      } else {
        unmovable.add(t);
      }
    }
    return new Departure.Hosted(owners, unmovable, holders);
  }

  /** Why nothing may start on worker {@code w} now: tasks are being deployed there. */
  private String deployingOn(int w) {
    if (!pendingWorkers.getOrDefault(w, List.of()).isEmpty()
        || (active != null && active.deploying.contains(w))) {
      return "tasks being deployed on worker " + w;
    }
    if (inputEnds.finishing()) {
      return "the job finishing (source task " + inputEnds.first() + " read all its input)";
    }
    return null;
  }

  /** The live tasks of each keyed operator per worker. */
  private Map<String, int[]> loadByOperator() {
    Map<String, int[]> load = new HashMap<>();
    for (TaskId t : tasks.keySet()) {
      if (!released.contains(t) && !live.retired().contains(t)) {
        load.computeIfAbsent(t.operator().name(), k -> new int[pool.size()])[live.placement(t)]++;
      }
    }
    return load;
  }

  /** The departure of worker {@code w} is over: answers whoever waits for it. */
  private void departed(int w, String error) {
    List<ActorRef<WorkerDrained>> waiting = departures.remove(w);
    if (waiting == null) {
      return;
    }
    if (error == null) {
      getContext().getLog().info("job {}: no task left on leaving worker {}", jobId, w);
    } else {
      getContext().getLog().warn("job {}: leaving worker {}: {}", jobId, w, error);
    }
    for (ActorRef<WorkerDrained> r : waiting) {
      r.tell(new WorkerDrained(jobId, w, error));
    }
  }

  /**
   * The checkpoint asked for to relocate the tasks of leaving workers committed: the job rolls back
   * to it at once, and the restore places every task of a leaving worker elsewhere ({@link
   * WorkerPool#replacements}). No restart is counted: nothing failed.
   */
  private Behavior<Command> onRelocationCheckpointed(RelocationCheckpointed m) {
    relocationAsked = false;
    if (status != JobStatus.RUNNING) {
      return this;
    }
    if (m.error() != null) {
      getContext()
          .getLog()
          .warn("job {}: the checkpoint to relocate tasks did not complete: {}", jobId, m.error());
      advanceDepartures(); // asks again if still needed (a rollback may have moved them already)
      return this;
    }
    List<Integer> stranded = new ArrayList<>();
    for (int w : departures.keySet()) {
      if (!hostedOn(w).unmovable().isEmpty()) {
        stranded.add(w);
      }
    }
    if (stranded.isEmpty() || recovering) {
      advanceDepartures();
      return this;
    }
    rollback(
        "leaving workers "
            + stranded
            + " hold tasks that move only by a restore: relocating them from checkpoint "
            + m.checkpointId());
    return this;
  }

  /** The redeployment after a rollback took too long: the attempt failed. */
  private Behavior<Command> onRedeployTimedOut(RedeployTimedOut m) {
    if (m.attempt() != attempt || !recovering || status.isTerminal() || pendingWorkers.isEmpty()) {
      return this;
    }
    return failed(
        ErrorInfo.of(
            "deployment",
            new TaskId(new OperatorId("coordinator"), 0),
            null,
            new IllegalStateException(
                "attempt "
                    + attempt
                    + " of job "
                    + jobId
                    + ": "
                    + describePending()
                    + " did not deploy their tasks within "
                    + redeployTimeout
                    + " (koala.checkpoint.redeploy-timeout)")));
  }

  /** The workers a deployment waits for, with their tasks. */
  private String describePending() {
    StringBuilder b = new StringBuilder("workers");
    String sep = " ";
    for (Map.Entry<Integer, List<TaskId>> e : pendingWorkers.entrySet()) {
      b.append(sep).append(e.getKey()).append(" (tasks ").append(e.getValue()).append(')');
      sep = ", ";
    }
    return b.toString();
  }

  /** Tells every worker not lost {@code command}. */
  private void tellWorkers(Worker.Command command) {
    for (int w : pool.survivors()) {
      workers.get(w).tell(command);
    }
  }

  private Behavior<Command> onEpochStalled(EpochStalled m) {
    if (active == null
        || active.driver.epoch() != m.epoch()
        || status != JobStatus.RUNNING
        || recovering) {
      return this;
    }
    String waiting =
        active.driver.phase() == EpochDriver.Phase.DEPLOYING
            ? "workers " + active.deploying + " to deploy the new tasks"
            : "tasks " + active.driver.waitingFor();
    return failed(
        ErrorInfo.of(
            "reconfiguration",
            new TaskId(new OperatorId("coordinator"), 0),
            null,
            new IllegalStateException(
                "epoch "
                    + m.epoch()
                    + " ("
                    + active.request.change
                    + ") made no progress for "
                    + stepTimeout
                    + " in phase "
                    + active.driver.phase()
                    + ", waiting for "
                    + waiting
                    + " (koala.reconfiguration.step-timeout)")));
  }

  private void finishEpoch(EpochDriver.EpochReport r) {
    Active a = active;
    active = null;
    timers.cancel(STEP_TIMER);
    ReconfigurationReport report =
        report(
            a.request,
            r.epoch(),
            r.tasksBefore(),
            r.tasksAfter(),
            r.movedBuckets(),
            a.handoverMillis,
            r.transferred(),
            System.currentTimeMillis() - a.startedMillis);
    reports.add(report);
    getContext().getLog().info("job {}: {}", jobId, report);
    complete(a.request, report);
    if (ledger != null) {
      ledger.completed(a.request.seq); // done once a checkpoint triggered from now on commits
    }
    for (Retirement.Publish p :
        retirement.epochEnded(
            a.request.vertex, r.epoch(), live.retired(), live.liveTaskIds(a.request.vertex))) {
      ActorRef<TaskMessage> ref = tasks.get(p.task());
      if (ref != null) {
        ref.tell(p.command());
      }
    }
    startNextEpoch();
    advanceDepartures();
  }

  // ---------------------------------------------------------------- checkpoints

  /** Whether a checkpoint should be triggered now: due, or asked for and none in progress. */
  private boolean checkpointWanted(long now) {
    return checkpoints.due(now) || (!checkpointAsked.isEmpty() && !checkpoints.inProgress());
  }

  private Behavior<Command> onCheckpointTick() {
    maybeCheckpoint();
    return this;
  }

  private Behavior<Command> onTakeCheckpoint(TakeCheckpoint m) {
    if (checkpoints == null) {
      m.replyTo()
          .tell(new CheckpointOutcome(-1, "checkpoints are off (koala.checkpoint.interval = off)"));
    } else if (status.isTerminal()) {
      m.replyTo().tell(new CheckpointOutcome(-1, "job " + jobId + " is " + status));
    } else {
      checkpointAsked.add(m.replyTo());
      maybeCheckpoint();
    }
    return this;
  }

  /**
   * Triggers a checkpoint when one is wanted and may start: the job runs, no epoch runs (§8, C1),
   * no source has read all its input (its end is held until none is in progress), and some task has
   * not finished.
   */
  private void maybeCheckpoint() {
    if (checkpoints == null
        || status != JobStatus.RUNNING
        || recovering
        || active != null
        || inputEnds.finishing()
        || finished.containsAll(tasks.keySet())) {
      return;
    }
    long now = System.currentTimeMillis();
    if (!checkpointWanted(now)) {
      return;
    }
    List<TaskId> sources = new ArrayList<>();
    List<TaskId> liveTasks = new ArrayList<>();
    List<TaskId> holders = new ArrayList<>();
    for (TaskId t : tasks.keySet()) {
      if (released.contains(t)) {
        continue;
      }
      if (live.retired().contains(t) || finished.contains(t)) {
        holders.add(t); // no barrier reaches it: asked directly, or left out if not needed
      } else {
        liveTasks.add(t);
        if (plan.vertex(t.operator()).head().kind() == OperatorNode.Kind.SOURCE) {
          sources.add(t);
        }
      }
    }
    CoordinatorState state =
        new CoordinatorState(live.copy(), retirement.copy(), taken.size(), reports.size());
    List<Checkpoints.Effect> effects = checkpoints.trigger(now, state, sources, liveTasks, holders);
    long id = checkpoints.pendingId();
    if (ledger != null) {
      ledger.triggered(id);
    }
    if (!checkpointAsked.isEmpty()) {
      checkpointWaiters.computeIfAbsent(id, k -> new ArrayList<>()).addAll(checkpointAsked);
      checkpointAsked.clear();
    }
    getContext()
        .getLog()
        .debug(
            "job {}: checkpoint {} triggered ({} sources, {} tasks, {} holders)",
            jobId,
            id,
            sources.size(),
            liveTasks.size(),
            holders.size());
    carryOut(effects);
    maybeCrash();
  }

  private Behavior<Command> onSnapshotTaken(SnapshotTaken m) {
    if (checkpoints == null || status != JobStatus.RUNNING || recovering) {
      return this;
    }
    Path file = Path.of(m.file());
    if (checkpoints.pendingId() != m.checkpointId()) {
      deleteSnapshot(file); // of an abandoned checkpoint
      return this;
    }
    if (checkpoints.cutsAtSnapshot(m.task(), m.checkpointId())) {
      output.cut(m.task(), m.checkpointId()); // a finished task reports once its results are in
    }
    snapshotBytes.merge(m.checkpointId(), m.bytes(), Long::sum);
    carryOut(checkpoints.snapshotTaken(m.task(), m.checkpointId(), file));
    maybeCrash();
    return this;
  }

  /** Carries out what the checkpoint core decided. */
  private void carryOut(List<Checkpoints.Effect> effects) {
    for (Checkpoints.Effect e : effects) {
      if (e instanceof Checkpoints.Send send) {
        ActorRef<TaskMessage> ref = tasks.get(send.task());
        if (ref != null) {
          ref.tell(send.command());
        }
      } else if (e instanceof Checkpoints.Persist<?, ?> persist) {
        @SuppressWarnings("unchecked")
        Checkpoints.Completed<Path, CoordinatorState> c =
            (Checkpoints.Completed<Path, CoordinatorState>) persist.checkpoint();
        record(c);
      } else if (e instanceof Checkpoints.Discard<?> discard) {
        Path own = storage.jobDirectory(jobId).toAbsolutePath();
        for (Object h : discard.snapshots()) {
          if (((Path) h).toAbsolutePath().startsWith(own)) {
            deleteSnapshot((Path) h); // never the files of a checkpoint restored from elsewhere
          }
        }
        Path metadata =
            storage.checkpointDirectory(jobId, discard.checkpointId()).resolve(METADATA_FILE);
        deleteSnapshot(metadata);
        deleteCheckpointDirectoryIfEmpty(discard.checkpointId());
      } else if (e instanceof Checkpoints.StopHolder stop) {
        release(stop.task());
      } else {
        throw new IllegalStateException("unhandled " + e);
      }
    }
  }

  /** Records {@code c} in the journal; {@link Journaled} follows. */
  private void record(Checkpoints.Completed<Path, CoordinatorState> c) {
    byte[] metadata = CheckpointMetadata.of(c).encode(metadataSerde);
    int asked = attempt;
    long id = c.id();
    getContext()
        .askWithStatus(
            JobJournal.CheckpointAck.class,
            journal,
            Duration.ofSeconds(30),
            r ->
                new JobJournal.RecordCheckpoint(id, metadata, checkpoints.settings().retained(), r),
            (ack, error) ->
                new Journaled(
                    asked, id, error == null ? null : String.valueOf(error.getMessage())));
  }

  private Behavior<Command> onJournaled(Journaled m) {
    if (status.isTerminal()) {
      return this;
    }
    boolean current =
        m.attempt() == attempt && !recovering && checkpoints.pendingId() == m.checkpointId();
    if (m.error() != null) {
      if (!current) {
        return this;
      }
      return fail(
          ErrorInfo.of(
              "journal",
              new TaskId(new OperatorId("coordinator"), 0),
              null,
              new IllegalStateException(
                  "the journal cannot record checkpoint " + m.checkpointId() + ": " + m.error())));
    }
    if (!current) {
      // recorded after a rollback abandoned it (its files are gone): the journal forgets it too
      discardInJournal(m.checkpointId());
      return this;
    }
    committed(m.checkpointId());
    return this;
  }

  private void discardInJournal(long id) {
    writeToJournal(
        JobJournal.DiscardAck.class,
        r -> new JobJournal.DiscardCheckpoint(id, r),
        "discard checkpoint " + id);
  }

  /** Checkpoint {@code id} is durably recorded: publish its results, then tell the tasks (C4). */
  private void committed(long id) {
    output
        .committed(id)
        .forEach(
            (sink, values) ->
                collected.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(values));
    getContext().getLog().debug("job {}: checkpoint {} committed", jobId, id);
    carryOut(checkpoints.persisted(id));
    long triggered = checkpoints.latest().map(c -> c.triggeredMillis()).orElse(0L);
    checkpointStats =
        checkpointStats.committed(
            id,
            triggered == 0 ? 0 : System.currentTimeMillis() - triggered,
            snapshotBytes.getOrDefault(id, 0L));
    snapshotBytes.keySet().removeIf(k -> k <= id);
    if (ledger != null) {
      markDone(ledger.committed(id)); // a restart resumes after their completion
    }
    checkpoints.latest().filter(c -> c.id() == id).ifPresent(this::writeMetadata);
    List<ActorRef<CheckpointOutcome>> waiting = checkpointWaiters.remove(id);
    if (waiting != null) {
      waiting.forEach(r -> r.tell(new CheckpointOutcome(id, null)));
    }
    epochsTurn = true;
    startNextEpoch(); // epochs and input ends held for the checkpoint may go on
    maybeCheckpoint(); // one asked for since this one was triggered
  }

  private void deleteSnapshot(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      getContext()
          .getLog()
          .warn("job {}: cannot delete snapshot {}: {}", jobId, file, e.toString());
    }
  }

  private void deleteCheckpointDirectoryIfEmpty(long id) {
    Path dir = storage.checkpointDirectory(jobId, id);
    try (var entries = Files.list(dir)) {
      if (entries.findAny().isEmpty()) {
        Files.deleteIfExists(dir);
      }
    } catch (IOException e) {
      // absent already, or not empty: a snapshot a newer checkpoint shares stays
    }
  }

  // ---------------------------------------------------------------- recovery

  /**
   * Rolls the job back (DESIGN §8, §6.8): every task of the current attempt is stopped and fenced
   * off, the checkpoint in progress and the unpublished results are abandoned, the requests taken
   * since the latest checkpoint are queued again, and after the backoff the latest checkpoint's
   * tasks are deployed from their snapshots as the next attempt.
   */
  private void rollback(String cause) {
    long now = System.currentTimeMillis();
    var latest = checkpoints.latest();
    getContext()
        .getLog()
        .warn(
            "job {}: rolling back to {} as attempt {} (restart {} of {}): {}",
            jobId,
            latest.map(c -> "checkpoint " + c.id()).orElse("its start"),
            attempt + 1,
            restarts,
            maxRestarts,
            cause);
    getContext().stop(inbox); // and with it, the DeathWatch of the attempt's tasks
    attempt++;
    rollbacks++;
    crashes.rolledBack();
    inbox = forwarder(attempt);
    tellWorkers(new Worker.StopAttemptsBefore(jobId, attempt));
    timers.cancel(STEP_TIMER);
    timers.cancel(REDEPLOY_TIMER);
    if (active != null) {
      active = null; // its request is among those taken: it runs again
    }
    // checkpoints asked for and not committed are asked for again
    checkpointWaiters.values().forEach(checkpointAsked::addAll);
    checkpointWaiters.clear();
    carryOut(checkpoints.rolledBack(now));
    if (ledger != null) {
      ledger.rolledBack(); // the requests taken since the latest checkpoint run again
    }
    output.rolledBack();
    recovering = true;
    tasks.clear();
    addresses.clear();
    pendingWorkers.clear();
    finished.clear();
    released.clear();
    releasedMetrics.clear(); // like every task's counters: the restored run counts afresh
    clientChannels.clear();
    inputEnds = new InputEnds();
    timers.startSingleTimer(new Redeploy(attempt), restartBackoff);
  }

  private Behavior<Command> onRedeploy(Redeploy m) {
    if (m.attempt() != attempt || status.isTerminal() || !recovering) {
      return this;
    }
    var latest = checkpoints.latest();
    int keep = latest.map(c -> c.state().taken()).orElse(0);
    List<Queued> redo = new ArrayList<>(taken.subList(keep, taken.size()));
    taken.subList(keep, taken.size()).clear();
    for (int i = redo.size() - 1; i >= 0; i--) {
      queue.addFirst(redo.get(i)); // run again, in order, before those still queued
    }
    int reportsKept = latest.map(c -> c.state().reports()).orElse(0);
    reports.subList(Math.min(reportsKept, reports.size()), reports.size()).clear();
    deploy(latest.orElse(null));
    return this;
  }

  /** Every task of the new attempt is started: finished tasks and holders as they were. */
  private void resumed() {
    recovering = false;
    if (restoring != null) {
      for (TaskId h : restoring.holders()) {
        finished.add(h);
      }
      for (TaskId h : restoring.holders()) {
        retirement.taskFinished(h);
        if (retirement.unreferenced(h)) {
          holderUnreferenced(h); // the checkpoint has it for the cut of its output alone
        }
      }
    }
    for (Retirement.Publish p : retirement.republish(nextEpoch - 1, live::liveTaskIds)) {
      ActorRef<TaskMessage> ref = tasks.get(p.task());
      if (ref != null) {
        ref.tell(p.command());
      }
    }
    getContext()
        .getLog()
        .info(
            "job {}: attempt {} running{}",
            jobId,
            attempt,
            restoring == null ? " from the start" : " from checkpoint " + restoring.id());
    restoring = null;
  }

  /** A snapshot of the checkpoint being restored is missing or corrupt: try the one before. */
  private Behavior<Command> onSnapshotUnusable(SnapshotUnusable m) {
    boolean restoringAtStart = status == JobStatus.DEPLOYING && restoring != null;
    if (!(recovering || restoringAtStart) || status.isTerminal()) {
      return this;
    }
    getContext()
        .getLog()
        .warn(
            "job {}: checkpoint {} is unusable: snapshot {} of {}: {}; trying the one before",
            jobId,
            m.checkpointId(),
            m.file(),
            m.task(),
            m.problem());
    carryOut(checkpoints.unusable(m.checkpointId()));
    discardInJournal(m.checkpointId());
    if (restoreFrom != null && checkpoints.latest().isEmpty() && status == JobStatus.DEPLOYING) {
      return fail(
          ErrorInfo.of(
              m.task().operator().name(),
              m.task(),
              null,
              new io.koala.checkpoint.CheckpointException(
                  "cannot restore job "
                      + jobId
                      + " from "
                      + restoreFrom
                      + ": snapshot "
                      + m.file()
                      + ": "
                      + m.problem())));
    }
    rollback("checkpoint " + m.checkpointId() + " is unusable: " + m.problem());
    return this;
  }

  private ReconfigurationReport report(
      Queued q,
      long epoch,
      int[] before,
      int[] after,
      int[] moved,
      long handoverMillis,
      EpochMessage.Transfer transferred,
      long durationMillis) {
    return new ReconfigurationReport(
        epoch,
        q.vertex.name(),
        q.change.kind(),
        Arrays.stream(before).boxed().toList(),
        Arrays.stream(after).boxed().toList(),
        Arrays.stream(moved).boxed().toList(),
        handoverMillis,
        durationMillis,
        transferred.keys(),
        transferred.bytes(),
        transferred.fetchRequests(),
        transferred.drainedKeys(),
        transferred.piggybackedKeys(),
        transferred.recordsParked(),
        transferred.lookupTableBytes());
  }

  private void complete(Queued q, ReconfigurationReport report) {
    if (q.departingFrom >= 0) {
      departing.remove(((Change.Migrate) q.change).taskId());
    } else if (q.replyTo.isEmpty()) {
      getContext()
          .getLog()
          .info("job {}: journaled request {} ran again: {}", jobId, q.seq, report);
    }
    for (ActorRef<Reconfiguration.Outcome> r : q.replyTo) {
      r.tell(new Reconfiguration.Completed(report));
    }
  }

  /** {@code q} ended without changing the job: a restart does not run it again. */
  private void endedNow(Queued q) {
    if (ledger != null) {
      q.superseded.forEach(old -> markDone(ledger.ended(old)));
      q.superseded.clear();
      markDone(ledger.ended(q.seq));
    }
  }

  /** The job is ending: {@code q} will not be carried out. */
  private void reject(Queued q, String reason) {
    reject(q, JOB_ENDING, reason);
  }

  private void reject(Queued q, ReconfigurationException.Reason kind, String reason) {
    if (q.departingFrom >= 0) {
      Change.Migrate mg = (Change.Migrate) q.change;
      departing.remove(mg.taskId());
      if (kind == JOB_ENDING) {
        // the departure is answered when the job ends
      } else if (!hostedOn(q.departingFrom).owners().contains(mg.taskId())
          || !pool.placeable(mg.worker())) {
        // overtaken while queued: the task was retired (a scale-in) or moved, or its target is
        // leaving or lost now; the departure is planned again from what is there now
        getContext()
            .getLog()
            .info("job {}: {} is void ({}); planning the departure again", jobId, mg, reason);
        replanDepartures = true;
      } else {
        departed(q.departingFrom, "cannot migrate " + q.change + ": " + reason);
      }
    } else if (q.replyTo.isEmpty()) {
      getContext()
          .getLog()
          .warn("job {}: journaled request {} was rejected: {}", jobId, q.seq, reason);
    }
    for (ActorRef<Reconfiguration.Outcome> r : q.replyTo) {
      r.tell(new Reconfiguration.Rejected(kind, reason));
    }
  }

  private void rejectQueued(String reason) {
    for (Queued q : queue) {
      reject(q, reason);
    }
    queue.clear();
  }

  // ---------------------------------------------------------------- crash injection (testing)

  private Behavior<Command> onPlanCrashes(PlanCrashes m) {
    crashes.plan(m.seed(), m.crashes());
    if (crashes.timed()) {
      timers.startTimerWithFixedDelay(CRASH_TIMER, CrashTick.INSTANCE, Duration.ofMillis(10));
    }
    maybeCrash();
    return this;
  }

  private Behavior<Command> onCrashTick() {
    maybeCrash();
    if (!crashes.timed() || status.isTerminal()) {
      timers.cancel(CRASH_TIMER);
    }
    return this;
  }

  private Behavior<Command> onGetInjectedCrashes(GetInjectedCrashes m) {
    m.replyTo().tell(new InjectedCrashes(crashes.injected()));
    return this;
  }

  /**
   * Injects the planned crash due now, if any ({@link TaskCrashes}): only while the job runs, is
   * not recovering, and no source has read all its input. The victim — a task still running or a
   * retired holder — stops, and its DeathWatch rolls the job back like any task failure.
   */
  private void maybeCrash() {
    if (status != JobStatus.RUNNING || recovering || inputEnds.finishing()) {
      return;
    }
    EpochDriver.Phase phase = active == null ? null : active.driver.phase();
    boolean checkpointing = checkpoints != null && checkpoints.inProgress();
    int snapshots = checkpointing ? checkpoints.snapshotsTaken() : -1;
    long sinceStart = System.currentTimeMillis() - startMillis;
    TaskCrashes.Crash due = crashes.due(sinceStart, phase, snapshots);
    if (due == null) {
      return;
    }
    List<TaskId> candidates = new ArrayList<>();
    for (TaskId t : tasks.keySet()) {
      if (!released.contains(t) && (!finished.contains(t) || live.retired().contains(t))) {
        candidates.add(t);
      }
    }
    if (candidates.isEmpty()) {
      return;
    }
    String during =
        phase != null
            ? "epoch " + active.driver.epoch() + " " + phase
            : checkpointing
                ? "checkpoint " + checkpoints.pendingId() + " (" + snapshots + " snapshots)"
                : "processing";
    TaskId victim = crashes.strike(due, candidates, sinceStart, during);
    getContext()
        .getLog()
        .warn(
            "job {}: crashing task {} during {} (planned for testing: {})",
            jobId,
            victim,
            during,
            due);
    tasks.get(victim).tell(TaskActor.CrashNow.INSTANCE);
  }
}
