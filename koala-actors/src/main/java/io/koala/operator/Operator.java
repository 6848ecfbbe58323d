package io.koala.operator;

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
   * @param input index of the input edge the record arrived on (0 for single-input operators)
   */
  void process(I value, long timestamp, int input) throws Exception;

  /** Called after the last record of each input batch. */
  default void endBatch() throws Exception {}

  /** Called once when every input has ended, before {@link #close}. */
  default void finish() throws Exception {}

  /** Releases resources; called once, also after a failure. */
  default void close() throws Exception {}
}
