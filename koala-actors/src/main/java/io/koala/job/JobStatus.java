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
  CANCELLED,
  /**
   * Stopped by the user with a savepoint: its sources stopped at the savepoint's barrier (without
   * ending their input), the savepoint's checkpoint committed, and its tasks stopped; restoring the
   * savepoint continues from there. Terminal.
   */
  STOPPED;

  public boolean isTerminal() {
    return this == FINISHED || this == FAILED || this == CANCELLED || this == STOPPED;
  }
}
