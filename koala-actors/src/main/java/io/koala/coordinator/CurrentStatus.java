package io.koala.coordinator;

import io.koala.job.JobStatus;

/** The job's status as the coordinator's parts read it ({@link JobLifecycle} keeps it). */
@FunctionalInterface
interface CurrentStatus {
  JobStatus status();

  /** Whether the job runs (not deploying its first attempt, not ended). */
  default boolean running() {
    return status() == JobStatus.RUNNING;
  }

  /** Whether the job has ended. */
  default boolean ended() {
    return status().isTerminal();
  }
}
