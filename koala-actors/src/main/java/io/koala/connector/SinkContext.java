package io.koala.connector;

import io.koala.function.Collector;

/** What a sink task knows when it opens its writer. */
public interface SinkContext {
  String sinkName();

  int taskIndex();

  int parallelism();

  /**
   * Sends values back to the job's client, where {@code JobHandle.collected(sinkName)} returns
   * them. Flow-controlled like every channel; meant for tests and small results.
   */
  Collector<Object> clientResults();

  /**
   * Whether the job takes checkpoints: the writer then gets {@link SinkWriter#prepareCommit} at
   * every checkpoint's barrier and {@link SinkWriter#commit} once it is durably recorded, and may
   * publish its output only on commit (and at {@link SinkWriter#finish}).
   */
  default boolean checkpointing() {
    return false;
  }

  /**
   * The checkpoint this sink task resumes from after a rollback, or 0 when it started afresh. A
   * transactional writer discards what it wrote after that checkpoint (in-progress output, parts
   * prepared for later checkpoints) and commits the parts prepared up to it: the checkpoint is
   * durably recorded, but the task may have crashed before it heard so.
   */
  default long restoredCheckpoint() {
    return 0;
  }

  /**
   * What this sink task's writer returned from {@link SinkWriter#pendingState} at the barrier of
   * {@link #restoredCheckpoint()}, or null on a fresh start or when it returned null.
   */
  default byte[] restoredState() {
    return null;
  }

  /**
   * Asks the job for a checkpoint before its interval is due, from the task's thread (in {@link
   * SinkWriter#write}, say): a transactional writer whose output since the last checkpoint grows
   * large asks, so that it is committed, and its log dropped, sooner. The job triggers one as soon
   * as one may start (not while one is in progress or a reconfiguration runs); {@code reason} goes
   * to its log. Without checkpoints it does nothing.
   */
  default void requestCheckpoint(String reason) {}

  /**
   * What a writer whose {@link SinkWriter#ready} returned false calls, from any thread, once it can
   * take records again (its consumer caught up): the task then asks {@code ready()} again and goes
   * on. Thread-safe; calls may coalesce, and a call when the task does not wait does no harm.
   */
  default Runnable waker() {
    return () -> {};
  }
}
