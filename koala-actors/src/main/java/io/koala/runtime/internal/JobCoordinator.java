package io.koala.runtime.internal;

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
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.runtime.JobMetrics;
import io.koala.runtime.JobStatus;
import java.time.Duration;
import java.util.ArrayList;
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
 * or failure, receives the results sent to the client, and answers metrics requests.
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

  /** Self: deployment took too long. */
  enum DeployTimeout implements Command {
    INSTANCE
  }

  private static final int FINAL_METRICS = -1;

  private final String jobId;
  private final ExecutionPlan plan;
  private final List<ActorRef<Worker.Command>> workers;
  private final ActorRef<JobListener.Event> listener;
  private final Duration metricsTimeout;
  private final DeploymentPlan deployment;
  private final Map<TaskId, ActorRef<TaskMessage>> tasks = new LinkedHashMap<>();
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
      ChannelSettings settings,
      Duration deployTimeout,
      Duration metricsTimeout,
      ActorRef<JobListener.Event> listener) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers ->
                    new JobCoordinator(
                        ctx,
                        timers,
                        jobId,
                        plan,
                        workers,
                        settings,
                        deployTimeout,
                        metricsTimeout,
                        listener)));
  }

  private JobCoordinator(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      String jobId,
      ExecutionPlan plan,
      List<ActorRef<Worker.Command>> workers,
      ChannelSettings settings,
      Duration deployTimeout,
      Duration metricsTimeout,
      ActorRef<JobListener.Event> listener) {
    super(ctx);
    this.jobId = jobId;
    this.plan = plan;
    this.workers = workers;
    this.listener = listener;
    this.metricsTimeout = metricsTimeout;
    this.deployment = DeploymentPlan.of(jobId, plan, workers.size(), settings);
    this.lastMetrics = new JobMetrics(jobId, status, System.currentTimeMillis(), List.of());
    for (TaskSetup s : deployment.setups().values()) {
      clientChannels.put(
          s.clientChannel(), new InputChannel(s.clientChannel(), s.task(), 0, settings.credits()));
      sinkOf.put(s.task(), plan.vertex(s.task().operator()).tail().id());
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
        .build();
  }

  private Behavior<Command> onTasksDeployed(TasksDeployed m) {
    for (TaskActor.TaskRef r : m.tasks()) {
      tasks.put(r.task(), r.ref());
      addresses.put(r.task(), r);
    }
    pendingWorkers.remove(m.worker());
    if (status != JobStatus.DEPLOYING) {
      // a late deployment of a job that already ended: stop those tasks too
      workers.get(m.worker()).tell(new Worker.StopJob(jobId));
      return this;
    }
    if (pendingWorkers.isEmpty()) {
      List<TaskActor.TaskRef> book = new ArrayList<>(addresses.values());
      long start = System.currentTimeMillis();
      for (ActorRef<TaskMessage> ref : tasks.values()) {
        ref.tell(new TaskActor.Start(book, start));
      }
      status = JobStatus.RUNNING;
      listener.tell(new JobListener.StatusChanged(status, null));
      getContext().getLog().info("job {}: running", jobId);
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
    if (finished.size() == deployment.setups().size()) {
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
            new JobMetrics(jobId, JobStatus.FINISHED, System.currentTimeMillis(), m.tasks());
        end(JobStatus.FINISHED, null);
      }
      return this;
    }
    ActorRef<JobMetrics> replyTo = metricsRequests.remove(m.request());
    JobMetrics metrics = new JobMetrics(jobId, status, System.currentTimeMillis(), m.tasks());
    if (!status.isTerminal()) {
      lastMetrics = metrics;
    }
    if (replyTo != null) {
      replyTo.tell(status.isTerminal() ? lastMetrics : metrics);
    }
    return this;
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
      lastMetrics = new JobMetrics(jobId, terminal, lastMetrics.atMillis(), lastMetrics.tasks());
    }
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
}
