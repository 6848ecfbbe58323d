package io.koala.operator;

import io.koala.state.TimeDomain;

/**
 * The operator SPI: one instance per task, driven by one thread at a time. The runtime calls {@link
 * #open} once, then {@link #process} for every input record of a batch followed by {@link
 * #endBatch}, and {@link #finish} once every input has ended. For an operator with keyed state the
 * runtime has set the current key (see {@link OperatorContext#keyedState()}) before each {@link
 * #process} call.
 *
 * <p>Checkpoints: when the job takes checkpoints, the runtime calls {@link #snapshotState} at each
 * checkpoint's barrier and {@link #checkpointCommitted} once the checkpoint is durably recorded;
 * after a rollback the operator is opened again and {@link OperatorContext#restoredCheckpoint()}
 * names the checkpoint it resumes from. These hooks are for effects outside the job (a
 * transactional sink); keyed state needs none of them, since the task's store is snapshotted as a
 * whole.
 *
 * <p>Exceptions thrown here fail the task; the job reports them with the operator's name.
 */
public interface Operator<I, O> {

  default void open(OperatorContext<O> ctx) throws Exception {}

  /**
   * Processes one record.
   *
   * @param input the input the record arrived on: 0, or 1 for the second input of a two-input
   *     operator
   */
  void process(I value, long timestamp, int input) throws Exception;

  /**
   * A timer of the current key registered through {@link OperatorContext#timers()} fired; the
   * runtime has set its key as the current key. Records emitted here carry the timer's timestamp
   * for event-time timers.
   */
  default void onTimer(long timestamp, byte[] namespace, TimeDomain domain) throws Exception {}

  /**
   * The task's watermark advanced to {@code watermark}, after every event-time timer up to it has
   * fired; the runtime forwards it downstream after this returns.
   */
  default void processWatermark(long watermark) throws Exception {}

  /** Called after the last record of each input batch. */
  default void endBatch() throws Exception {}

  /**
   * Checkpoint {@code checkpointId}'s snapshot is being taken: every record before its barrier has
   * been processed (and so have the records the operators upstream in the task emitted from their
   * own {@code snapshotState}), nothing after it. Records emitted here go downstream before the
   * barrier. The operator prepares what an exactly-once effect needs to be committed later, but
   * makes nothing visible: the checkpoint may never complete, and a rollback to an earlier one then
   * replays the records since. Not called after {@link #finish}.
   */
  default void snapshotState(long checkpointId) throws Exception {}

  /**
   * Checkpoint {@code checkpointId} is durably recorded: what was prepared for it and for every
   * earlier checkpoint may be made visible. A notification may be lost (a crash after the commit
   * but before it arrived), in which case a later one or the restore covers it; repeats of an id
   * may arrive. May be called after {@link #finish}.
   */
  default void checkpointCommitted(long checkpointId) throws Exception {}

  /** Called once when every input has ended, before {@link #close}. */
  default void finish() throws Exception {}

  /** Releases resources; called once, also after a failure. */
  default void close() throws Exception {}
}
