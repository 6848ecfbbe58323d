package io.koala.connector;

import java.util.Map;

/**
 * Reads the splits of one source task. Called from the task's thread only, one call at a time.
 *
 * <p>Positions: a split's position is a number the reader gives meaning to (the offset of the next
 * record of a log); {@link #positions} is asked at every checkpoint's barrier and must then cover
 * exactly the records emitted so far. After a rollback the reader of the restored task is started
 * with those positions, so it must read from them again: the records after a checkpoint are read
 * again, and the job's state and exactly-once sinks discard their effects from before.
 */
public interface SourceReader<T> {

  /**
   * Starts reading, emitting into {@code output}: from {@code restored} (split → position, as
   * {@link #positions} gave them at the checkpoint being restored; empty on a fresh start). A
   * restored split the reader does not know is an error that names it.
   */
  void start(Map<String, Long> restored, SourceOutput<T> output) throws Exception;

  /**
   * Emits what is available now, at most {@code max} records per split, and says when to call
   * again.
   */
  ReadResult read(int max) throws Exception;

  /** Every split this reader reads and its position: where it would go on after a restore. */
  Map<String, Long> positions();

  /**
   * Checkpoint {@code checkpointId}, which recorded {@code positions}, is durable: a reader may
   * acknowledge or trim what they cover (commit offsets for monitoring). Not every checkpoint's
   * call arrives (a later one covers the earlier ones).
   */
  default void checkpointCompleted(long checkpointId, Map<String, Long> positions)
      throws Exception {}

  /** Records available but not read yet, and the age of the oldest; for the lag metric. */
  default Backlog backlog(long nowMillis) {
    return Backlog.UNKNOWN;
  }

  /**
   * Called once when the task stops, also after a failure; releases what the reader holds
   * (connections, threads).
   */
  default void close() throws Exception {}
}
