package io.koala.operator;

/** Where an operator emits its records. */
@FunctionalInterface
public interface Output<T> {
  /** Emits a record with an event timestamp ({@link Long#MIN_VALUE} when it has none). */
  void emit(T value, long timestamp);
}
