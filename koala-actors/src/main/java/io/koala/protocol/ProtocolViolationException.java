package io.koala.protocol;

import io.koala.KoalaException;

/**
 * A message arrived that the protocol says cannot arrive (a sequence gap, a record for a bucket the
 * task does not own). The job fails rather than drop or misprocess anything.
 */
public class ProtocolViolationException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public ProtocolViolationException(String message) {
    super(message);
  }
}
