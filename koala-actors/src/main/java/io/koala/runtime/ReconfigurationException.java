package io.koala.runtime;

import io.koala.KoalaException;

/**
 * A reconfiguration was refused (unknown or non-keyed operator, parallelism out of range, no such
 * task or worker) or did not complete because the job ended; the message says which.
 */
public class ReconfigurationException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public ReconfigurationException(String message) {
    super(message);
  }
}
