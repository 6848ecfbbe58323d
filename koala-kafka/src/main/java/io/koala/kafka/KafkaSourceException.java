package io.koala.kafka;

import io.koala.KoalaException;

/**
 * A {@link KafkaSource} cannot read: the broker did not answer, the topic does not exist, the
 * deserializer failed on a record, the consumer failed. The message names the source, the bootstrap
 * servers and the topic (and the partition and offset where one record is at fault). Thrown from
 * the source task, it fails the task like any user-code failure: the job rolls back to its latest
 * checkpoint while restarts remain, and fails otherwise.
 */
public class KafkaSourceException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public KafkaSourceException(String message) {
    super(message);
  }

  public KafkaSourceException(String message, Throwable cause) {
    super(message, cause);
  }
}
