package io.koala.coordinator;

import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.protocol.KoalaMessage;
import java.util.List;

/** The job core's answers to its clients (besides {@code JobStatus} and {@code JobMetrics}). */
public sealed interface JobReply extends KoalaMessage {

  /**
   * Coordinator → listener: the job's status now, and at every change; {@code error} is set when it
   * failed.
   */
  record StatusChanged(JobStatus status, ErrorInfo error) implements JobReply {}

  /** Coordinator → client: how a reconfiguration request ended. */
  sealed interface Outcome extends JobReply {}

  /** The change is in place. */
  record Completed(ReconfigurationReport report) implements Outcome {}

  /** The change was not made (or the job ended before it completed), with the reason. */
  record Rejected(ReconfigurationException.Reason kind, String reason) implements Outcome {}

  /** Reply to {@link JobInput.TakeCheckpoint}: the committed checkpoint's id, or {@code error}. */
  record CheckpointOutcome(long checkpointId, String error) implements JobReply {}

  /**
   * Reply to {@link JobInput.TakeSavepoint}: the savepoint of checkpoint {@code checkpointId},
   * triggered at {@code triggeredMillis}, is in {@code directory}; or {@code error}.
   */
  record SavepointOutcome(String directory, long checkpointId, long triggeredMillis, String error)
      implements JobReply {}

  /**
   * Reply to {@link JobInput.AttachIngest}: the source's tasks ({@code error} null), or why the
   * handle cannot feed it.
   */
  record IngestAttached(int parallelism, String error) implements JobReply {}

  /**
   * Reply to {@link JobInput.GetStateRoutes}: the operator's {@code buckets} and the task index
   * owning each ({@code owners}, by bucket) as the coordinator knows them now, and the addresses of
   * its tasks (new and retiring ones included); or {@code error}, when the job cannot be queried
   * there.
   */
  record StateRoutes(
      String operator, int buckets, int[] owners, List<TaskAddress> tasks, String error)
      implements JobReply {}

  /** Reply to {@link JobInput.GetCollected}: what a collecting sink received so far. */
  record Collected(List<Object> values) implements JobReply {}

  /**
   * Reply to {@link JobInput.DrainWorker}: job {@code jobId} has no task left on worker {@code
   * worker} ({@code error} null), or cannot move them off ({@code error} says why).
   */
  record WorkerDrained(String jobId, int worker, String error) implements JobReply {}

  /** Reply to {@link JobInput.GetInjectedCrashes}: the crashes injected so far, in order. */
  record InjectedCrashes(List<PlannedCrash.Injected> crashes) implements JobReply {}
}
