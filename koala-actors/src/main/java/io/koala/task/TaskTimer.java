package io.koala.task;

/** One-shot wake-ups a {@link TaskEngine} asks its host for ({@link TaskHost#schedule}). */
public enum TaskTimer {
  /** Read more from the source partitions. */
  POLL,
  /** Send partial batches whose linger time has passed. */
  FLUSH,
  /** Fire the processing-time timers that are due. */
  PROCESSING_TIME,
  /** The task's capacity allows the next batch. */
  CAPACITY,
  /** Ask retiring holders for the next chunks of what this task still references there. */
  DRAIN,
  /** The task's sink can take records again ({@link TaskHost#waker}). */
  READY
}
