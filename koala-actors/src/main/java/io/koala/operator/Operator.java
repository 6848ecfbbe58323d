package io.koala.operator;

import io.koala.state.TimeDomain;

/**
 * The operator SPI: one instance per task, driven by one thread at a time. The runtime calls {@link
 * #open} once, then {@link #process} for every input record of a batch followed by {@link
 * #endBatch}, and {@link #finish} once every input has ended. For an operator with keyed state the
 * runtime has set the current key (see {@link OperatorContext#keyedState()}) before each {@link
 * #process} call.
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

  /** Called once when every input has ended, before {@link #close}. */
  default void finish() throws Exception {}

  /** Releases resources; called once, also after a failure. */
  default void close() throws Exception {}
}
