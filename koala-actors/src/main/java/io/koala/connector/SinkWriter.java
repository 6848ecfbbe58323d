package io.koala.connector;

/**
 * Writes the records of one sink task. Called by one thread at a time.
 *
 * <p>Exactly-once output (DESIGN §8): when the job takes checkpoints ({@link
 * SinkContext#checkpointing()}), the writer sees, in order, {@link #write}s, then {@link
 * #prepareCommit}{@code (c)} at checkpoint {@code c}'s barrier, more writes, {@code
 * prepareCommit(c')}, ..., and, asynchronously, {@link #commit}{@code (c)} once {@code c} is
 * durably recorded. A transactional writer keeps what it wrote invisible until it is committed;
 * after a crash the job rolls back to a checkpoint and a new writer is opened with {@link
 * SinkContext#restoredCheckpoint()}, and the records after that checkpoint are written again.
 * Writers that publish as they go (the default methods) are at-least-once under rollbacks.
 */
public interface SinkWriter<T> {
  void write(T value, long timestamp) throws Exception;

  /** Called after each input batch. */
  default void flush() throws Exception {}

  /**
   * Whether the writer takes more records now; asked between input batches. A writer that cannot (a
   * bounded buffer its consumer has not drained) returns false and, once it can, calls {@link
   * SinkContext#waker()} from whatever thread noticed; meanwhile the task takes no input (it
   * backpressures the job: stall reason {@code sink_busy}) and does not finish. Records given to
   * {@link #write} while it is not ready must still be kept: a batch is written whole.
   */
  default boolean ready() throws Exception {
    return true;
  }

  /**
   * Checkpoint {@code checkpointId}'s barrier: seals everything written since the previous call as
   * pending for that checkpoint, durably, but does not publish it (the checkpoint may fail).
   */
  default void prepareCommit(long checkpointId) throws Exception {}

  /**
   * Checkpoint {@code checkpointId} is durably recorded: publishes every pending part of a
   * checkpoint up to {@code checkpointId}. Idempotent: a repeat, or an id already covered, does
   * nothing. Not every checkpoint's commit arrives (a later one covers the earlier ones).
   */
  default void commit(long checkpointId) throws Exception {}

  /**
   * Every input has ended: publishes everything written, pending or not. Called once, before {@link
   * #close}, and not after a failure.
   */
  default void finish() throws Exception {}

  /**
   * Called once when the task stops, also after a failure; unpublished output stays unpublished (a
   * restored writer decides what becomes of it).
   */
  default void close() throws Exception {}
}
