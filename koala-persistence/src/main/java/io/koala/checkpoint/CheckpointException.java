package io.koala.checkpoint;

import io.koala.KoalaException;

/**
 * Writing, reading or managing a checkpoint file failed (an I/O error, a file that already exists):
 * the message names the file and the operation. A file whose content is wrong is reported by the
 * subtype {@link CorruptCheckpointException}.
 */
public class CheckpointException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public CheckpointException(String message) {
    super(message);
  }

  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
