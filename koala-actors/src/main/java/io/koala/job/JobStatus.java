package io.koala.job;

/** Lifecycle of a submitted job. */
public enum JobStatus {
  /** Tasks are being created on the workers. */
  DEPLOYING,
  /** Every task runs. */
  RUNNING,
  /** Every source ended and every task drained its output: terminal. */
  FINISHED,
  /** A task failed; the job stopped: terminal. */
  FAILED,
  /** Cancelled by the user: terminal. */
  CANCELLED;

  public boolean isTerminal() {
    return this == FINISHED || this == FAILED || this == CANCELLED;
  }
}
