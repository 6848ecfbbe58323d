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
   * Timers of the current key.
   *
   * @throws IllegalStateException when the operator was not declared with keyed state
   */
  InternalTimers timers();

  /**
   * State of the current key split by namespace.
   *
   * @throws IllegalStateException when the operator was not declared with keyed state
   */
  NamespacedState namespacedState();

  /** The task's current watermark ({@link Long#MIN_VALUE} before the first one). */
  long currentWatermark();

  /**
   * The codec the task uses for values of {@code type} in state: built-in forms for common JDK
   * types, Koala's Kryo serializer otherwise ({@code Object.class}: any registered class, written
   * with its class).
   */
  <T> io.koala.state.Codec<T> codec(Class<T> type);

  /**
   * Where the operator emits records to its side output {@code tag}; records of a side output that
   * nothing reads are dropped.
   */
  <X> Output<X> sideOutput(io.koala.dataflow.OutputTag<X> tag);

  /** Counts a record the operator dropped for being too late (shown in the task's metrics). */
  void lateRecordDropped();

  /**
   * Sends values to the job's client ({@code JobHandle.collected(operatorName)}); flow-controlled.
   */
  Collector<Object> clientResults();
}
