package io.koala.job;

import io.koala.KoalaException;

/**
 * A reconfiguration was refused (unknown or non-keyed operator, parallelism out of range, no such
 * task or worker) or did not complete because the job ended; the message says which.
 */
public class ReconfigurationException extends KoalaException {
  private static final long serialVersionUID = 1L;

  /** Why a reconfiguration was not made. */
  public enum Reason {
    /** The request itself is invalid (operator, parallelism, task or worker). */
    INVALID_REQUEST,
    /**
     * The job is ending: its bounded input has been read, or it finished, failed or was cancelled
     * before the change was made.
     */
    JOB_ENDING,
    /**
     * The change started but made no progress for {@code koala.reconfiguration.step-timeout}: the
     * job rolled back to its latest checkpoint, without the change, and goes on (without
     * checkpoints it failed). The request is not run again; the message says what it waited for.
     */
    STALLED
  }

  private final Reason reason;

  public ReconfigurationException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
