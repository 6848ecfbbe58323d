package io.koala.kafka;

import io.koala.KoalaException;

/**
 * A {@link KafkaSink} cannot write: its serializer failed, the broker refused or did not answer, a
 * transaction could not be committed, another writer fenced it, its marker topic is missing and
 * cannot be created. The message names the sink, its topic and servers (and the transactional id or
 * the marker topic where they are at fault). Thrown from the sink task, it fails the task: the job
 * rolls back to its latest checkpoint while restarts remain, and fails otherwise.
 */
public class KafkaSinkException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public KafkaSinkException(String message) {
    super(message);
  }

  public KafkaSinkException(String message, Throwable cause) {
    super(message, cause);
  }
}
