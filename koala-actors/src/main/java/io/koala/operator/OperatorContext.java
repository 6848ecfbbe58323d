package io.koala.operator;

import io.koala.dataflow.Collector;
import io.koala.state.KeyedStateContext;

/** What the runtime gives an operator instance at {@link Operator#open}. */
public interface OperatorContext<O> {
  /** The operator's name (unique in its dataflow). */
  String operatorName();

  /** Index of this task among the operator's tasks. */
  int taskIndex();

  /** Number of tasks of the operator. */
  int parallelism();

  /** Where the operator emits records. */
  Output<O> output();

  /**
   * State of the current key.
   *
   * @throws IllegalStateException when the operator was not declared with keyed state
   */
  KeyedStateContext keyedState();

  /**
   * The key of the record being processed.
   *
   * @throws IllegalStateException when the operator was not declared with keyed state
   */
  Object currentKey();

  /**
   * Sends values to the job's client ({@code JobHandle.collected(operatorName)}); flow-controlled.
   */
  Collector<Object> clientResults();
}
