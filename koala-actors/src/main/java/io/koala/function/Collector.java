package io.koala.function;

/** Receives the records a function emits; they keep the event timestamp of the input record. */
@FunctionalInterface
public interface Collector<T> {
  void collect(T value);
}
