package io.koala.coordinator;

import io.koala.job.JobStatus;
import io.koala.plan.TaskId;
import io.koala.protocol.TaskMessage;
import io.koala.protocol.TaskSetup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the job core asks its host to do, in order. Effects that expect an answer name the {@link
 * JobInput} the host feeds back.
 */
public sealed interface JobEffect {

  // ------------------------------------------------------------ workers and tasks

  /**
   * Create {@code setups} on worker {@code worker} as attempt {@code attempt}, those in {@code
   * restores} from their snapshots; answered by {@link JobInput.TasksDeployed}, {@link
   * JobInput.DeployFailed}, {@link JobInput.SnapshotUnusable} or {@link
   * JobInput.SnapshotUnreadable}.
   */
  record Deploy(int worker, List<TaskSetup> setups, int attempt, Map<TaskId, TaskRestore> restores)
      implements JobEffect {}

  /**
   * Worker {@code worker} joined at {@code address}: effects name it by its index from now on, and
   * its loss is reported as {@link JobInput.WorkerLost}.
   */
  record WatchWorker(int worker, WorkerAddress address) implements JobEffect {}

  /** DeathWatch {@code tasks}, reporting {@link JobInput.TaskTerminated} for the attempt. */
  record WatchTasks(List<TaskAddress> tasks) implements JobEffect {}

  /**
   * Start {@code tasks}, each learning {@code addressBook}; sources count from {@code startMillis}.
   */
  record StartTasks(List<TaskAddress> tasks, List<TaskAddress> addressBook, long startMillis)
      implements JobEffect {}

  /** Tell running {@code tasks} the addresses of the tasks {@code added} by an epoch. */
  record Introduce(List<TaskAddress> tasks, List<TaskAddress> added) implements JobEffect {}

  /** Send {@code message} to a task. */
  record ToTask(TaskAddress task, TaskMessage message) implements JobEffect {}

  /** Cancel {@code tasks}: they stop processing. */
  record CancelTasks(List<TaskAddress> tasks) implements JobEffect {}

  /** Crash {@code task} now, as a crash planned for testing. */
  record CrashTask(TaskAddress task) implements JobEffect {}

  /**
   * From now on, what tasks and workers say is stamped with attempt {@code attempt}; what earlier
   * attempts' tasks still say reaches the core stamped with theirs. {@code cause}: why the attempt
   * opens (the job starts, a rollback's cause, a coordinator's takeover).
   */
  record OpenAttempt(int attempt, String cause) implements JobEffect {}

  /** Workers {@code workers} stop every task of the job deployed before attempt {@code attempt}. */
  record StopAttemptsBefore(List<Integer> workers, int attempt) implements JobEffect {}

  /** Workers {@code workers} stop every task of the job and release its state. */
  record StopJob(List<Integer> workers) implements JobEffect {}

  /**
   * Worker {@code worker} stops retired task {@code task} of {@code attempt}, deleting its store.
   */
  record StopTask(int worker, TaskId task, int attempt) implements JobEffect {}

  /**
   * Ask worker {@code worker} whether it is there; answered by {@link JobInput.TaskStopChecked}.
   */
  record CheckWorker(int worker, TaskId task, int attempt) implements JobEffect {}

  /**
   * Ask {@code task} for its final metrics; answered by {@link JobInput.HolderReleased} of {@code
   * attempt}, with null metrics if it does not answer in time.
   */
  record AskReleasedMetrics(TaskAddress task, int attempt) implements JobEffect {}

  /** Gather every task's metrics; answered by {@link JobInput.MetricsGathered}. */
  record GatherMetrics(int request, List<TaskAddress> tasks) implements JobEffect {}

  // ------------------------------------------------------------ the journal

  /**
   * Read the job's journal ({@code incarnation}: recording this coordinator's start first);
   * answered by {@link JobInput.Recovered}.
   */
  record RecoverJournal(boolean incarnation) implements JobEffect {}

  /**
   * Record request {@code seq} open, with who waits for its outcome; answered by {@link
   * JobInput.RequestJournaled}.
   */
  record JournalRequest(long seq, JobInput.JournaledRequest request) implements JobEffect {}

  /**
   * Record request {@code seq} done: a restart does not run it again. A failure costs only a repeat
   * after a restart: the host logs it and answers {@link JobInput.CheckpointTick}.
   */
  record JournalRequestDone(long seq) implements JobEffect {}

  /**
   * Record {@code checkpoint}, keeping the {@code retained} newest; answered by {@link
   * JobInput.Journaled} of {@code attempt}.
   */
  record JournalCheckpoint(
      int attempt, Checkpoints.Completed<Path, CoordinatorState> checkpoint, int retained)
      implements JobEffect {}

  /**
   * Forget checkpoint {@code checkpointId}. A failure only keeps its record: the host logs it and
   * answers {@link JobInput.CheckpointTick}.
   */
  record JournalDiscard(long checkpointId) implements JobEffect {}

  /** Record the job's end; answered by {@link JobInput.EndJournaled}. */
  record JournalEnd(JobStatus status, String error) implements JobEffect {}

  // ------------------------------------------------------------ checkpoint files

  /** Write {@code checkpoint}'s metadata next to its snapshots, so its directory restores it. */
  record WriteMetadata(Checkpoints.Completed<Path, CoordinatorState> checkpoint)
      implements JobEffect {}

  /** Delete snapshot {@code file} of a checkpoint that was abandoned. */
  record DeleteSnapshot(Path file) implements JobEffect {}

  /**
   * Checkpoint {@code checkpointId} is no longer retained: delete {@code snapshots} (those in the
   * job's own directory), its metadata, and its directory once empty.
   */
  record DiscardCheckpoint(long checkpointId, List<Path> snapshots) implements JobEffect {}

  /**
   * Checkpoint {@code checkpointId} is corrupt: move {@code snapshots} (those in the job's own
   * directory) and its metadata aside, into the job's quarantine directory; delete nothing.
   */
  record QuarantineCheckpoint(long checkpointId, List<Path> snapshots) implements JobEffect {}

  /** The job finished: delete every checkpoint file of the job. */
  record DeleteCheckpoints() implements JobEffect {}

  /**
   * Place committed checkpoint {@code checkpoint} in savepoint directory {@code directory} (its
   * metadata and every snapshot file it names, linked or copied); answered by {@link
   * JobInput.SavepointWritten} with {@code stop} and {@code replyTo}. Until then no file of the
   * job's checkpoints is deleted.
   */
  record WriteSavepoint(
      Checkpoints.Completed<Path, CoordinatorState> checkpoint,
      String directory,
      boolean stop,
      ReplyTo<JobReply.SavepointOutcome> replyTo)
      implements JobEffect {}

  // ------------------------------------------------------------ timers and answers

  /**
   * Feed {@code input} back after {@code delay} (every {@code delay} if {@code repeat}), replacing
   * the timer under {@code key}.
   */
  record StartTimer(Object key, JobInput input, Duration delay, boolean repeat)
      implements JobEffect {}

  /** Cancel the timer under {@code key}, if any. */
  record CancelTimer(Object key) implements JobEffect {}

  /** Feed {@code input} back as the next input after this one. */
  record ToSelf(JobInput input) implements JobEffect {}

  /** Tell {@code to} {@code message}. */
  record Reply<T>(ReplyTo<T> to, T message) implements JobEffect {
    /** Carries the reply out. */
    public void send() {
      to.tell(message);
    }
  }
}
