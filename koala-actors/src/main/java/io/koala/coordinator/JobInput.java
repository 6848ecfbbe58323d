package io.koala.coordinator;

import io.koala.job.ErrorInfo;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import io.koala.protocol.Deliver;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.KoalaMessage;
import java.nio.file.Path;
import java.util.List;

/**
 * Everything the job core reacts to: what the job's tasks and workers report, what clients ask,
 * membership changes, the answers to the effects it asked for (journal writes, worker checks,
 * metrics), and its timers. Each record says who sends it. Those sent as messages are Koala
 * messages (registered with the serializer); {@link Recovered}, which the host builds from the
 * journal's answer within the coordinator, is not.
 */
public sealed interface JobInput {

  // ------------------------------------------------------------ by the part that decides them

  /**
   * Inputs about the deployment attempts: deploying, failures, rollbacks, redeployments ({@link
   * Recovery}).
   */
  sealed interface Deployment extends JobInput {}

  /** Inputs about checkpoints and savepoints ({@link JobCheckpoints}). */
  sealed interface Checkpointing extends JobInput {}

  /** Inputs about the job's status and its end ({@link JobLifecycle}). */
  sealed interface Status extends JobInput {}

  /** Inputs about reconfiguration requests ({@link RequestQueue}). */
  sealed interface Requests extends JobInput {}

  /** Inputs about the running epoch ({@link EpochRunner}). */
  sealed interface Epochs extends JobInput {}

  /** Inputs about workers lost, joining and leaving ({@link Departures}). */
  sealed interface Workers extends JobInput {}

  /** Inputs about metrics snapshots ({@link MetricsBook}). */
  sealed interface Metrics extends JobInput {}

  /** Inputs about the results sent to the job's client ({@link ClientResults}). */
  sealed interface Results extends JobInput {}

  /** Inputs about finished tasks and retired holders ({@link Holders}). */
  sealed interface Holding extends JobInput {}

  /** Inputs about the handles feeding ingest sources ({@link IngestAttachments}). */
  sealed interface Ingest extends JobInput {}

  /** Inputs about the autoscaler's interval ({@link Autoscaling}). */
  sealed interface Autoscaler extends JobInput {}

  /** Inputs about crashes planned for testing ({@link CrashStrikes}). */
  sealed interface Crashes extends JobInput {}

  /** Inputs about where a keyed operator's state is queried (the core answers). */
  sealed interface Queries extends JobInput {}

  // ------------------------------------------------------------ from one deployment attempt

  /**
   * What a task or worker of one deployment attempt says. It reaches the core inside {@link
   * FromAttempt}, which the host stamps with the attempt, so that whatever an older incarnation
   * still says is dropped (C4, C8).
   */
  sealed interface OfAttempt extends JobInput, KoalaMessage {}

  /** The host: {@code input}, from a task or worker of attempt {@code attempt}. */
  record FromAttempt(int attempt, OfAttempt input) implements JobInput, KoalaMessage {}

  /** Worker → coordinator: the worker's tasks exist. */
  record TasksDeployed(int worker, List<TaskAddress> tasks) implements OfAttempt, Deployment {}

  /** Worker → coordinator: the worker could not create its tasks. */
  record DeployFailed(int worker, ErrorInfo error) implements OfAttempt, Deployment {}

  /**
   * Worker → coordinator: {@code task}'s snapshot {@code file} of checkpoint {@code checkpointId}
   * is corrupt (its checksum or format is wrong): the checkpoint is unusable, and quarantined.
   */
  record SnapshotUnusable(int worker, TaskId task, long checkpointId, String file, String problem)
      implements OfAttempt, Deployment {}

  /**
   * Worker → coordinator: {@code task}'s snapshot {@code file} of checkpoint {@code checkpointId}
   * cannot be read now (missing, or an I/O error: a mount not there yet, a disk that failed): the
   * attempt failed, and the checkpoint is kept to be restored again.
   */
  record SnapshotUnreadable(int worker, TaskId task, long checkpointId, String file, String problem)
      implements OfAttempt, Deployment {}

  /** Task → coordinator: the task has delivered end-of-channel on every output. */
  record TaskFinished(TaskId task) implements OfAttempt, Holding {}

  /**
   * Task → coordinator: take a checkpoint as soon as one may start, before its interval is due
   * ({@code reason}, for the log: a sink's uncommitted output grew large). No reply.
   */
  record CheckpointWanted(TaskId task, String reason) implements OfAttempt, Checkpointing {}

  /** Task → coordinator: the task failed and stopped processing. */
  record TaskFailed(TaskId task, ErrorInfo error) implements OfAttempt, Deployment {}

  /** Task → coordinator: an item of the task's channel to the client (flow-controlled). */
  record ResultsDelivered(TaskId from, Deliver deliver) implements OfAttempt, Results {}

  /** Task → coordinator: a step of the current reconfiguration reached at that task. */
  record EpochReported(EpochMessage.Report report) implements OfAttempt, Epochs {}

  /**
   * Task → coordinator: {@code task} wrote its snapshot of checkpoint {@code checkpointId} to
   * {@code file}. Sent after the task's barrier went out on its client channel.
   */
  record SnapshotTaken(TaskId task, long checkpointId, String file, long bytes)
      implements OfAttempt, Checkpointing {}

  /**
   * The host, answering {@link JobEffect.AskReleasedMetrics}: the final metrics of a retiring
   * holder no owner references any more ({@code null} if it did not answer).
   */
  record HolderReleased(TaskId task, TaskMetricsSnapshot metrics) implements OfAttempt, Holding {}

  /** The host's DeathWatch: a task's actor of attempt {@code attempt} stopped. */
  record TaskTerminated(TaskId task, int attempt) implements OfAttempt, Deployment {}

  // ------------------------------------------------------------ from clients

  /** Client → coordinator: reply with a metrics snapshot. */
  record GetMetrics(ReplyTo<JobMetrics> replyTo) implements Metrics, KoalaMessage {}

  /**
   * Client → coordinator: send {@code listener} the job's status now and at every change. A sharded
   * coordinator may start again on another node, knowing no listener, so clients send this again
   * every {@link JobCore#SUBSCRIBE_INTERVAL} until the job has ended; {@code submission}: sent by a
   * submission, which a sharded coordinator refuses once its job has ended (the journal keeps the
   * end: a job id names one run). {@code restoreFrom}: the checkpoint or savepoint directory a
   * submission asks a sharded coordinator to start from ({@link Start}), else null: a coordinator
   * that did not start from it refuses the submission.
   */
  record Subscribe(ReplyTo<JobReply.StatusChanged> listener, boolean submission, String restoreFrom)
      implements Status, KoalaMessage {

    /** A subscription that asks for no restore. */
    public Subscribe(ReplyTo<JobReply.StatusChanged> listener, boolean submission) {
      this(listener, submission, null);
    }
  }

  /**
   * Client → sharded coordinator: a submission asks the job to start from the checkpoint or
   * savepoint directory {@code restoreFrom}. Told before anything else the submission sends, so
   * that it is the message that starts the coordinator's entity, which reads it before it creates
   * the coordinator; a coordinator that runs already ignores it (the submission's {@link Subscribe}
   * is refused there).
   */
  record Start(String restoreFrom) implements Status, KoalaMessage {}

  /** Client → coordinator: reply with the values a collecting sink received so far. */
  record GetCollected(String sink, ReplyTo<JobReply.Collected> replyTo)
      implements Results, KoalaMessage {}

  /**
   * Client → coordinator: the ingest handle at {@code client} (an address tasks send to) feeds
   * source {@code source}; reply whether it may.
   */
  record AttachIngest(String source, Object client, ReplyTo<JobReply.IngestAttached> replyTo)
      implements Ingest, KoalaMessage {}

  /**
   * Query client → coordinator: where the state of keyed operator {@code operator} is queried now
   * (its routing table and its tasks' addresses).
   */
  record GetStateRoutes(String operator, ReplyTo<JobReply.StateRoutes> replyTo)
      implements Queries, KoalaMessage {}

  /** Client → coordinator: cancel the job; reply with the final status. */
  record Cancel(ReplyTo<JobStatus> replyTo) implements Status, KoalaMessage {}

  /** Client → coordinator: change how an operator is partitioned; reply when done or refused. */
  record Reconfigure(Change change, ReplyTo<JobReply.Outcome> replyTo)
      implements Requests, KoalaMessage {}

  /**
   * Client → coordinator: take a checkpoint now (or join the one in progress if it was triggered
   * after this request); reply once it is committed, or why not.
   */
  record TakeCheckpoint(ReplyTo<JobReply.CheckpointOutcome> replyTo)
      implements Checkpointing, KoalaMessage {}

  /**
   * Client → coordinator: take a savepoint in {@code directory} — a checkpoint triggered like one
   * asked for by {@link TakeCheckpoint}, whose files are then placed in that directory — and, with
   * {@code stop}, stop the job with it; reply once it is written, or why not. A stop with no {@code
   * directory} (null) stops the job with a final checkpoint that stays in the job's own checkpoint
   * directory, from which the job resumes when submitted again.
   */
  record TakeSavepoint(String directory, boolean stop, ReplyTo<JobReply.SavepointOutcome> replyTo)
      implements Checkpointing, KoalaMessage {}

  /**
   * Host → coordinator: the savepoint of checkpoint {@code checkpointId} (triggered at {@code
   * triggeredMillis}) was written to {@code directory}, or not ({@code error}); {@code stop}: the
   * job stops with it.
   */
  record SavepointWritten(
      long checkpointId,
      long triggeredMillis,
      String directory,
      boolean stop,
      String error,
      ReplyTo<JobReply.SavepointOutcome> replyTo)
      implements Checkpointing, KoalaMessage {}

  /**
   * Client → coordinator, for testing Koala: plan {@code crashes}, victims chosen by {@code seed}.
   */
  record PlanCrashes(long seed, List<PlannedCrash> crashes) implements Crashes, KoalaMessage {}

  /** Client → coordinator, for testing Koala: reply with the crashes injected so far. */
  record GetInjectedCrashes(ReplyTo<JobReply.InjectedCrashes> replyTo)
      implements Crashes, KoalaMessage {}

  // ------------------------------------------------------------ membership

  /**
   * Worker {@code worker} is gone for good: its actor stopped, or its node went away; idempotent.
   */
  record WorkerLost(int worker) implements Workers, KoalaMessage {}

  /**
   * Worker {@code worker} ({@code address}) joined: its node came Up. It may get tasks from now on;
   * with {@code scale-on-join} operators, each is rescaled onto it. Indices are handed out in order
   * and never reused; a join already known is ignored.
   */
  record WorkerJoined(int worker, WorkerAddress address) implements Workers, KoalaMessage {}

  /**
   * Worker {@code worker}'s node is leaving gracefully (DESIGN §9, C6): it gets no new task, the
   * job's tasks there are moved off, and {@code replyTo} is answered once none is left there (or
   * why they cannot move).
   */
  record DrainWorker(int worker, ReplyTo<JobReply.WorkerDrained> replyTo)
      implements Workers, KoalaMessage {}

  // ------------------------------------------------------------ answers to effects

  /** The journal's state at start-up ({@code null} and {@code error} if it did not answer). */
  record Recovered(RecoveredJournal journal, String error) implements Deployment {}

  /** The journal recorded checkpoint {@code checkpointId} (for attempt {@code attempt}), or not. */
  record Journaled(int attempt, long checkpointId, String error)
      implements Checkpointing, KoalaMessage {}

  /** The journal recorded request {@code seq} as open, or {@code error}. */
  record RequestJournaled(long seq, String error) implements Requests, KoalaMessage {}

  /** The journal recorded the job's end ({@code error} null: durable). */
  record EndJournaled(String error) implements Status, KoalaMessage {}

  /** The host gathered the metrics of request {@code request}. */
  record MetricsGathered(int request, List<TaskMetricsSnapshot> tasks)
      implements Metrics, KoalaMessage {}

  /**
   * {@code task} of attempt {@code attempt} stopped unexpectedly, and its worker answered ({@code
   * workerAlive}) or did not in time.
   */
  record TaskStopChecked(TaskId task, int attempt, boolean workerAlive)
      implements Deployment, KoalaMessage {}

  /**
   * The checkpoint asked for to relocate the tasks of leaving workers committed ({@code
   * checkpointId}), or did not ({@code error}).
   */
  record RelocationCheckpointed(long checkpointId, String error) implements Workers, KoalaMessage {}

  // ------------------------------------------------------------ timers

  /** Deployment took too long. */
  enum DeployTimeout implements Deployment, KoalaMessage {
    INSTANCE
  }

  /** Time to see whether a checkpoint is due. */
  enum CheckpointTick implements Checkpointing, KoalaMessage {
    INSTANCE
  }

  /** Time for the autoscaler to look at the job's load ({@code koala.autoscaler.interval}). */
  enum AutoscalerTick implements Autoscaler, KoalaMessage {
    INSTANCE
  }

  /** Time to see whether a crash planned at a time is due. */
  enum CrashTick implements Crashes, KoalaMessage {
    INSTANCE
  }

  /** No task reported progress on epoch {@code epoch} for the step timeout. */
  record EpochStalled(long epoch) implements Epochs, KoalaMessage {}

  /** The restart backoff of attempt {@code attempt} is over: deploy its tasks. */
  record Redeploy(int attempt) implements Deployment, KoalaMessage {}

  /** The redeployment of attempt {@code attempt} did not complete in time. */
  record RedeployTimedOut(int attempt) implements Deployment, KoalaMessage {}

  /**
   * What the job's journal held at start-up, decoded by the host; {@code restoreFrom} is the
   * checkpoint read from {@link JobSetup#restoreFrom()} (null when none is given).
   *
   * @param incarnations coordinators started on this journal, this one included (sharded only)
   * @param endedStatus the status the job ended with under an earlier coordinator, or null
   */
  record RecoveredJournal(
      int incarnations,
      String endedStatus,
      String endedError,
      List<Decoded<Checkpoints.Completed<Path, CoordinatorState>>> checkpoints,
      long lastCheckpointId,
      List<Decoded<JournaledRequest>> requests,
      long lastRequestSeq,
      Decoded<Checkpoints.Completed<Path, CoordinatorState>> restoreFrom) {
    public RecoveredJournal {
      checkpoints = List.copyOf(checkpoints);
      requests = List.copyOf(requests);
    }
  }

  /**
   * A reconfiguration request as the journal keeps it: the change, and who waits for its outcome
   * (those the host could record: on a cluster whose coordinators fail over they are often alive on
   * other nodes, and get the outcome of the request's run under the next coordinator).
   */
  record JournaledRequest(Change change, List<ReplyTo<JobReply.Outcome>> replyTo) {
    public JournaledRequest {
      replyTo = List.copyOf(replyTo);
    }
  }

  /**
   * A journal entry ({@code id}: its checkpoint id or request number) as decoded: {@code value}, or
   * why it could not be ({@code error}). A request may have both: what could be read of it (its
   * callers, to be told) and why it cannot run.
   */
  record Decoded<T>(long id, T value, String error) {}
}
