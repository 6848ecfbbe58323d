package io.koala.coordinator;

import io.koala.deploy.DeploymentPlan;
import io.koala.deploy.LiveDeployment;
import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * <p>The decisions live in parts named after what they decide, which {@link JobParts} builds and
 * links and this class routes inputs to: {@link JobLifecycle} (status, listeners, the end), {@link
 * RequestQueue} (the reconfiguration requests: coalescing, journaling, requeueing), {@link Turns}
 * (epochs, checkpoints and the ends of the sources take turns), {@link EpochRunner} (the running
 * epoch), {@link JobCheckpoints} (triggering, completing and committing checkpoints), {@link
 * Holders} (finished tasks and retired holders), {@link Recovery} (deployment attempts, rollback,
 * redeployment), {@link Departures} (workers lost, joining, leaving), {@link ClientResults} (the
 * results sent to the client), {@link IngestAttachments} (the handles feeding ingest sources),
 * {@link MetricsBook} (metrics snapshots), {@link Autoscaling} (the autoscaler's driver) and {@link
 * CrashStrikes} (crashes planned for testing).
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

  private final JobSetup setup;
  private final String jobId;
  private final ExecutionPlan plan;
  private final JobParts parts;

  /** A job core created at {@code nowMillis}; {@link #start} gives its first effects. */
  public JobCore(JobSetup setup, long nowMillis) {
    this(setup, nowMillis, LoggerFactory.getLogger(JobCore.class));
  }

  /** A job core that logs its decisions to {@code log} (its host's). */
  public JobCore(JobSetup setup, long nowMillis, Logger log) {
    this.setup = setup;
    this.jobId = setup.jobId();
    this.plan = setup.plan();
    this.parts = new JobParts(setup, nowMillis, log);
  }

  /** The deployment job {@code setup} starts with when it starts afresh. */
  public static LiveDeployment initialDeployment(JobSetup setup) {
    return LiveDeployment.of(
        setup.plan(),
        DeploymentPlan.of(setup.jobId(), setup.plan(), setup.workers().count(), setup.channels()));
  }

  /** The first effects: the attempt, the timers, and reading the journal or deploying. */
  public List<JobEffect> start() {
    parts.out.emit(new JobEffect.OpenAttempt(0, "the job starts"));
    parts.checkpoints.start();
    parts.autoscaling.start();
    parts.out.emit(
        new JobEffect.StartTimer(
            JobInput.DeployTimeout.INSTANCE,
            JobInput.DeployTimeout.INSTANCE,
            setup.deployTimeout(),
            false));
    parts.recovery.start();
    return parts.out.drain();
  }

  /** Takes {@code input} at {@code nowMillis}; returns what to do, in order. */
  public List<JobEffect> on(JobInput input, long nowMillis) {
    parts.out.at(nowMillis);
    dispatch(input);
    return parts.out.drain();
  }

  private void dispatch(JobInput input) {
    if (input instanceof JobInput.FromAttempt f) {
      onFromAttempt(f);
    } else if (input instanceof JobInput.OfAttempt m) {
      throw new IllegalStateException("not stamped with its attempt: " + m);
    } else {
      route(input);
    }
  }

  /** What a task or worker said: handled if it belongs to the current attempt, else dropped. */
  private void onFromAttempt(JobInput.FromAttempt f) {
    if (!parts.attempts.isCurrent(f.attempt())) {
      parts
          .out
          .log()
          .debug(
              "job {}: dropped from attempt {} (now {}): {}",
              jobId,
              f.attempt(),
              parts.attempts.current(),
              f.input());
      return;
    }
    route(f.input());
  }

  /** Hands {@code input} to the part that decides it. */
  private void route(JobInput input) {
    if (input instanceof JobInput.Deployment in) {
      parts.recovery.on(in);
    } else if (input instanceof JobInput.Checkpointing in) {
      parts.checkpoints.on(in);
    } else if (input instanceof JobInput.Status in) {
      parts.lifecycle.on(in);
    } else if (input instanceof JobInput.Requests in) {
      parts.requests.on(in);
    } else if (input instanceof JobInput.Epochs in) {
      parts.epochs.on(in);
    } else if (input instanceof JobInput.Workers in) {
      parts.departures.on(in);
    } else if (input instanceof JobInput.Metrics in) {
      parts.metrics.on(in);
    } else if (input instanceof JobInput.Results in) {
      parts.results.on(in);
    } else if (input instanceof JobInput.Holding in) {
      parts.holders.on(in);
    } else if (input instanceof JobInput.Ingest in) {
      parts.ingest.on(in);
    } else if (input instanceof JobInput.Autoscaler in) {
      parts.autoscaling.on(in);
    } else if (input instanceof JobInput.Crashes in) {
      parts.crashes.on(in);
    } else if (input instanceof JobInput.GetStateRoutes m) {
      onGetStateRoutes(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  // ------------------------------------------------------------ what hosts and tests may read

  public String jobId() {
    return jobId;
  }

  public JobStatus status() {
    return parts.lifecycle.status();
  }

  /** The epoch of the running reconfiguration, or 0 when none runs (for logging contexts). */
  public long runningEpoch() {
    return parts.epochs.runningEpoch();
  }

  /** The running epoch's phase, or null when none runs. */
  public EpochDriver.Phase epochPhase() {
    return parts.epochs.phase();
  }

  /** The current deployment attempt. */
  public int attempt() {
    return parts.attempts.current();
  }

  /** The deployment as it is now (live tasks and routing of every operator). */
  public LiveDeployment deployment() {
    return parts.state.deployment();
  }

  /** The reconfigurations completed (and not undone by a rollback), in order. */
  public List<ReconfigurationReport> reports() {
    return parts.epochs.reports();
  }

  /** Whether a reconfiguration runs or waits in the queue. */
  public boolean reconfiguring() {
    return parts.epochs.running() || !parts.requests.isEmpty();
  }

  /** Whether a checkpoint is in progress. */
  public boolean checkpointInProgress() {
    return parts.checkpoints.inProgress();
  }

  /** Checkpoints committed since the start. */
  public long checkpointsCommitted() {
    return parts.checkpoints.committedCount();
  }

  /** The checkpoints a rollback may restore now: the newest, and those it may fall back to. */
  public int checkpointsRetained() {
    return parts.checkpoints.retainedCount();
  }

  /** Rollbacks since this coordinator started. */
  public int rollbacks() {
    return parts.attempts.rollbacks();
  }

  /** The crashes planned for testing that were injected so far, in order. */
  public List<PlannedCrash.Injected> injectedCrashes() {
    return parts.crashes.injected();
  }

  /** What the collecting sink {@code sink} has published so far. */
  public List<Object> collected(String sink) {
    return parts.results.collected(sink);
  }

  /** What is still awaited, for diagnostics of a run that did not finish. */
  public String waitingFor() {
    StringBuilder b = new StringBuilder();
    parts.epochs.describeWaiting(b);
    int queued = parts.requests.size();
    if (queued > 0) {
      b.append(queued).append(" requests not started; ");
    }
    if (parts.checkpoints.inProgress()) {
      b.append(parts.checkpoints.waitingFor()).append("; ");
    }
    return b.toString();
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
    } else if (parts.lifecycle.status().isTerminal()) {
      error = "job " + jobId + " has ended (" + parts.lifecycle.status() + ")";
    }
    if (error != null) {
      parts.out.reply(
          m.replyTo(), new JobReply.StateRoutes(m.operator(), 0, new int[0], List.of(), error));
      return;
    }
    List<TaskId> ids = new ArrayList<>();
    for (TaskId t : parts.roster.ids()) {
      if (t.operator().equals(vertex.id()) && !parts.roster.isReleased(t)) {
        ids.add(t);
      }
    }
    int[] owners = deployment().routing(vertex.id()).toArray();
    parts.out.reply(
        m.replyTo(),
        new JobReply.StateRoutes(
            m.operator(), owners.length, owners, parts.roster.addresses(ids), null));
  }

  /** An error of the job as a whole, not of a task. */
  public static ErrorInfo coordinatorError(String message) {
    return coordinatorError("coordinator", message);
  }

  /** An error of the job as a whole, reported as {@code where}'s. */
  static ErrorInfo coordinatorError(String where, String message) {
    return ErrorInfo.of(where, COORDINATOR, null, new IllegalStateException(message));
  }
}
