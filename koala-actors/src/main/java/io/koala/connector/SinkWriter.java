package io.koala.connector;

/**
 * Writes the records of one sink task. Called by one thread at a time.
 *
 * <p>Exactly-once output: when the job takes checkpoints ({@link SinkContext#checkpointing()}), the
 * writer sees, in order, {@link #write}s, then {@link #prepareCommit}{@code (c)} at checkpoint
 * {@code c}'s barrier, more writes, {@code prepareCommit(c')}, ..., and, asynchronously, {@link
 * #commit}{@code (c)} once {@code c} is durably recorded. A transactional writer keeps what it
 * wrote invisible until it is committed; after a crash the job rolls back to a checkpoint and a new
 * writer is opened with {@link SinkContext#restoredCheckpoint()}, and the records after that
 * checkpoint are written again. Writers that publish as they go (the default methods) are
 * at-least-once under rollbacks.
 *
 * <p>A writer that cannot keep what it prepared outside the job (a Kafka transaction does not
 * survive its producer) saves it in the checkpoint instead: {@link #pendingState} is asked right
 * after each {@code prepareCommit(c)}, stored in the task's snapshot of {@code c}, and handed to
 * the writer restored from {@code c} as {@link SinkContext#restoredState()}. That writer then
 * publishes what the state holds that is not known to be published already (its sink decides how it
 * knows: a marker written with the output, say). The state is the writer's own format; it should
 * carry a version.
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
   * Asked right after {@link #prepareCommit}{@code (c)}, at checkpoint {@code c}'s barrier: what a
   * writer restored from {@code c} needs to publish everything prepared up to {@code c} that is not
   * known to be committed (records of uncommitted checkpoints, say), or null when it needs nothing
   * (the default: what it prepared is durable outside the job). Stored in the task's snapshot of
   * {@code c} (not in messages), so keep it to what is needed; its size adds to every checkpoint.
   * The caller does not modify the array, and the writer must not modify it afterwards.
   */
  default byte[] pendingState() throws Exception {
    return null;
  }

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
