package io.koala.operator;

import io.koala.function.Collector;
import io.koala.state.Codec;
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
   * Where the operator emits records to its side output {@code tag}; records of a side output that
   * nothing reads are dropped.
   */
  <X> Output<X> sideOutput(io.koala.function.OutputTag<X> tag);

  /** Counts a record the operator dropped for being too late (shown in the task's metrics). */
  void lateRecordDropped();

  /**
   * Sends values to the job's client ({@code JobHandle.collected(operatorName)}); flow-controlled.
   */
  Collector<Object> clientResults();

  /**
   * The codec the task's state uses for values of {@code type}: a fixed binary form for built-in
   * types, records and plain classes field by field by name (so that their classes can gain and
   * lose fields, see docs/upgrades.md), Koala's Kryo serialization for other registered classes,
   * and for {@code Object.class} any registered class (written with its class). For {@link
   * NamespacedState}, whose handles take a codec.
   *
   * @throws io.koala.serialization.SerializationException when {@code type} is neither built in nor
   *     registered
   */
  <T> Codec<T> codec(Class<T> type);

  /**
   * The checkpoint this task resumed from after a rollback ({@link Operator#snapshotState} was
   * called with this id before the crash), or 0 when it started afresh.
   */
  default long restoredCheckpoint() {
    return 0;
  }

  /**
   * Whether the job takes checkpoints, so that {@link Operator#snapshotState} and {@link
   * Operator#checkpointCommitted} will be called.
   */
  default boolean checkpointing() {
    return false;
  }

  /** See {@link io.koala.connector.SinkContext#requestCheckpoint}; from the task's thread. */
  default void requestCheckpoint(String reason) {}

  /**
   * What code on another thread calls to wake the task (thread-safe): the task then asks its sink
   * whether it takes records again ({@link io.koala.connector.SinkWriter#ready}).
   */
  Runnable waker();
}
