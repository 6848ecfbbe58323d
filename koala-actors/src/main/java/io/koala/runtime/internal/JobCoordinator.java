package io.koala.runtime.internal;

import static io.koala.runtime.ReconfigurationException.Reason.INVALID_REQUEST;
import static io.koala.runtime.ReconfigurationException.Reason.JOB_ENDING;

import io.koala.core.ChannelSettings;
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
import io.koala.core.reconfig.Change;
import io.koala.core.reconfig.EpochDriver;
import io.koala.core.reconfig.EpochMessage;
import io.koala.core.reconfig.InputEnds;
import io.koala.core.reconfig.LiveDeployment;
import io.koala.core.reconfig.Protocol;
import io.koala.core.reconfig.ReconfigurationDriver;
import io.koala.core.reconfig.ReconfigurationPlan;
import io.koala.core.reconfig.Retirement;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.runtime.JobMetrics;
import io.koala.runtime.JobStatus;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.ReconfigurationException;
import io.koala.runtime.ReconfigurationReport;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /** Self (DeathWatch): a task's actor stopped. */
  record TaskTerminated(TaskId task) implements Command {}

  /** Self: deployment took too long. */
  enum DeployTimeout implements Command {
    INSTANCE
  }

  private static final int FINAL_METRICS = -1;
  private static final String STEP_TIMER = "reconfiguration-step";

  /** A reconfiguration waiting for its epoch, and who waits for its outcome. */
  private static final class Queued {
    Change change;
    final OperatorId vertex;
    final List<ActorRef<Reconfiguration.Outcome>> replyTo = new ArrayList<>();

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
  private final List<ActorRef<Worker.Command>> workers;
  private final ActorRef<JobListener.Event> listener;
  private final Duration metricsTimeout;
  private final Duration stepTimeout;
  private final ChannelSettings settings;
  private final TimerScheduler<Command> timers;
  private final DeploymentPlan deployment;
  private final LiveDeployment live;
  private final ArrayDeque<Queued> queue = new ArrayDeque<>();
  private final List<ReconfigurationReport> reports = new ArrayList<>();
  private Active active;
  private long nextEpoch = 1;
  private long startMillis;
  private final Map<TaskId, ActorRef<TaskMessage>> tasks = new LinkedHashMap<>();
  private final Retirement retirement;
  private final Protocol protocol;
  private final int bucketsPerStep;
  private final Set<TaskId> released = new HashSet<>();
  private final InputEnds inputEnds = new InputEnds();
  private final List<TaskMetricsSnapshot> releasedMetrics = new ArrayList<>();
  private final Map<TaskId, TaskActor.TaskRef> addresses = new LinkedHashMap<>();
  private final Set<Integer> pendingWorkers = new HashSet<>();
  private final Set<TaskId> finished = new HashSet<>();
  private final Map<Integer, InputChannel> clientChannels = new HashMap<>();
  private final Map<TaskId, OperatorId> sinkOf = new HashMap<>();
  private final Map<String, List<Object>> collected = new HashMap<>();
  private final Map<Integer, ActorRef<JobMetrics>> metricsRequests = new HashMap<>();
  private int nextRequest;
  private JobStatus status = JobStatus.DEPLOYING;
  private JobMetrics lastMetrics;

  static Behavior<Command> create(
      String jobId,
      ExecutionPlan plan,
      List<ActorRef<Worker.Command>> workers,
      KoalaConfig config,
      ActorRef<JobListener.Event> listener) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> new JobCoordinator(ctx, timers, jobId, plan, workers, config, listener)));
  }

  private JobCoordinator(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      String jobId,
      ExecutionPlan plan,
      List<ActorRef<Worker.Command>> workers,
      KoalaConfig config,
      ActorRef<JobListener.Event> listener) {
    super(ctx);
    this.jobId = jobId;
    this.plan = plan;
    this.workers = workers;
    this.listener = listener;
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
    this.lastMetrics =
        new JobMetrics(jobId, status, System.currentTimeMillis(), List.of(), List.of());
    for (TaskSetup s : deployment.setups().values()) {
      addClientChannel(s);
    }
    for (int w = 0; w < workers.size(); w++) {
      List<TaskSetup> mine = deployment.tasksOn(w);
      if (!mine.isEmpty()) {
        pendingWorkers.add(w);
        workers.get(w).tell(new Worker.DeployTasks(jobId, mine, ctx.getSelf()));
      }
    }
    timers.startSingleTimer(DeployTimeout.INSTANCE, DeployTimeout.INSTANCE, deployTimeout);
    ctx.getLog()
        .info(
            "job {}: deploying {} tasks on {} workers",
            jobId,
            deployment.setups().size(),
            pendingWorkers.size());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(TasksDeployed.class, this::onTasksDeployed)
        .onMessage(DeployFailed.class, m -> fail(m.error()))
        .onMessage(DeployTimeout.class, m -> onDeployTimeout())
        .onMessage(TaskFinished.class, this::onTaskFinished)
        .onMessage(TaskFailed.class, m -> fail(m.error()))
        .onMessage(ResultsDelivered.class, this::onResults)
        .onMessage(GetMetrics.class, this::onGetMetrics)
        .onMessage(MetricsGathered.class, this::onMetricsGathered)
        .onMessage(GetCollected.class, this::onGetCollected)
        .onMessage(Cancel.class, this::onCancel)
        .onMessage(Reconfigure.class, this::onReconfigure)
        .onMessage(EpochReported.class, this::onEpochReported)
        .onMessage(EpochStalled.class, this::onEpochStalled)
        .onMessage(HolderReleased.class, this::onHolderReleased)
        .onMessage(TaskTerminated.class, this::onTaskTerminated)
        .build();
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
      getContext().watchWith(r.ref(), new TaskTerminated(r.task()));
    }
    if (status.isTerminal()) {
      // a late deployment of a job that already ended: stop those tasks too
      workers.get(m.worker()).tell(new Worker.StopJob(jobId));
      return this;
    }
    if (status == JobStatus.RUNNING) {
      return onEpochTasksDeployed(m);
    }
    pendingWorkers.remove(m.worker());
    if (pendingWorkers.isEmpty()) {
      List<TaskActor.TaskRef> book = new ArrayList<>(addresses.values());
      startMillis = System.currentTimeMillis();
      for (ActorRef<TaskMessage> ref : tasks.values()) {
        ref.tell(new TaskActor.Start(book, startMillis));
      }
      status = JobStatus.RUNNING;
      listener.tell(new JobListener.StatusChanged(status, null));
      getContext().getLog().info("job {}: running", jobId);
      startNextEpoch();
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
                  "workers "
                      + pendingWorkers
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
    retirement.taskFinished(m.task()).forEach(this::release);
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
      List<Object> values =
          collected.computeIfAbsent(sinkOf.get(m.from()).name(), k -> new ArrayList<>());
      for (int i = 0; i < b.size(); i++) {
        values.add(b.value(i));
      }
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

  private void requestMetrics(int request) {
    getContext()
        .spawnAnonymous(
            MetricsAggregator.create(
                new ArrayList<>(tasks.values()), request, getContext().getSelf(), metricsTimeout));
  }

  private Behavior<Command> onMetricsGathered(MetricsGathered m) {
    if (m.request() == FINAL_METRICS) {
      if (status == JobStatus.RUNNING) {
        lastMetrics =
            new JobMetrics(
                jobId,
                JobStatus.FINISHED,
                System.currentTimeMillis(),
                withReleased(m.tasks()),
                reports);
        end(JobStatus.FINISHED, null);
      }
      return this;
    }
    ActorRef<JobMetrics> replyTo = metricsRequests.remove(m.request());
    JobMetrics metrics =
        new JobMetrics(jobId, status, System.currentTimeMillis(), withReleased(m.tasks()), reports);
    if (!status.isTerminal()) {
      lastMetrics = metrics;
    }
    if (replyTo != null) {
      replyTo.tell(status.isTerminal() ? lastMetrics : metrics);
    }
    return this;
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
    if (terminal != JobStatus.FINISHED) {
      lastMetrics =
          new JobMetrics(jobId, terminal, lastMetrics.atMillis(), lastMetrics.tasks(), reports);
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
    for (ActorRef<Worker.Command> w : workers) {
      w.tell(new Worker.StopJob(jobId));
    }
    for (ActorRef<JobMetrics> r : metricsRequests.values()) {
      r.tell(lastMetrics);
    }
    metricsRequests.clear();
    getContext().getLog().info("job {}: {}", jobId, terminal);
    listener.tell(new JobListener.StatusChanged(terminal, error));
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
          return this;
        }
      }
    }
    Queued q = new Queued(m.change(), vertex);
    q.replyTo.add(m.replyTo());
    queue.add(q);
    startNextEpoch();
    return this;
  }

  /** Checks what does not depend on the deployment at the time the epoch starts. */
  private OperatorId check(Change c) {
    return Change.check(c, plan, live, workers.size());
  }

  private void startNextEpoch() {
    while (active == null && status == JobStatus.RUNNING && !queue.isEmpty()) {
      Queued q = queue.poll();
      if (inputEnds.finishing()) {
        reject(
            q,
            "job "
                + jobId
                + " is finishing: source task "
                + inputEnds.first()
                + " has read all its input");
        continue;
      }
      ReconfigurationPlan rp;
      ReconfigurationDriver driver;
      try {
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
          continue;
        }
        driver =
            new ReconfigurationDriver(
                nextEpoch, q.vertex, rp, live, placer(q), protocol, bucketsPerStep);
      } catch (IllegalArgumentException e) {
        reject(q, INVALID_REQUEST, e.getMessage());
        continue;
      }
      nextEpoch += driver.epochs();
      active = new Active(q, driver, System.currentTimeMillis());
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
    if (active == null && status == JobStatus.RUNNING) {
      // no reconfiguration runs, and none will start: the sources holding their end may end
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

  /** Places new tasks where the request says, else on the workers with fewest of its tasks. */
  private java.util.function.IntUnaryOperator placer(Queued q) {
    int[] load = new int[workers.size()];
    for (TaskId t : live.liveTaskIds(q.vertex)) {
      load[live.placement(t)]++;
    }
    return index -> {
      int w = q.change.workerOf(index);
      if (w < 0) {
        w = 0;
        for (int i = 1; i < load.length; i++) {
          if (load[i] < load[w]) {
            w = i;
          }
        }
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
              workers.get(w).tell(new Worker.DeployTasks(jobId, setups, getContext().getSelf()));
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
        retirement.on(r, live.liveTaskIds(r.task().operator())).forEach(this::release);
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
    released.add(task);
    ActorRef<TaskMessage> ref = tasks.get(task);
    getContext()
        .ask(
            TaskMetricsSnapshot.class,
            ref,
            metricsTimeout,
            TaskActor.GetMetrics::new,
            (metrics, error) -> new HolderReleased(task, metrics));
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
    workers.get(live.placement(m.task())).tell(new Worker.StopTask(jobId, m.task()));
    return this;
  }

  /** DeathWatch: a task stopped while the job runs, and not because it was released: fail. */
  private Behavior<Command> onTaskTerminated(TaskTerminated m) {
    if (status.isTerminal() || released.contains(m.task())) {
      return this;
    }
    return fail(
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
                    + " (its worker or node may be gone)")));
  }

  private Behavior<Command> onEpochStalled(EpochStalled m) {
    if (active == null || active.driver.epoch() != m.epoch() || status != JobStatus.RUNNING) {
      return this;
    }
    String waiting =
        active.driver.phase() == EpochDriver.Phase.DEPLOYING
            ? "workers " + active.deploying + " to deploy the new tasks"
            : "tasks " + active.driver.waitingFor();
    return fail(
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
    for (Retirement.Publish p :
        retirement.epochEnded(
            a.request.vertex, r.epoch(), live.retired(), live.liveTaskIds(a.request.vertex))) {
      tasks.get(p.task()).tell(p.command());
    }
    startNextEpoch();
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

  private static void complete(Queued q, ReconfigurationReport report) {
    for (ActorRef<Reconfiguration.Outcome> r : q.replyTo) {
      r.tell(new Reconfiguration.Completed(report));
    }
  }

  /** The job is ending: {@code q} will not be carried out. */
  private static void reject(Queued q, String reason) {
    reject(q, JOB_ENDING, reason);
  }

  private static void reject(Queued q, ReconfigurationException.Reason kind, String reason) {
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
}
