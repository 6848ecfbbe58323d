package io.koala.job;

import io.koala.KoalaException;

/**
 * A task stopped because the task holding state it still needs stopped first (its worker or node
 * may be gone, or a crash is rolling the job back): a consequence of that stop, which the job's
 * coordinator reports and recovers from, not where the trouble started ({@link
 * ErrorInfo#consequence()}).
 */
public final class HolderStoppedException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public HolderStoppedException(String message) {
    super(message);
  }
}
