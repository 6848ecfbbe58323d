package io.koala.function;

/** Assigns the event timestamp (milliseconds) of a source record. */
@FunctionalInterface
public interface TimestampFunction<T> {
  long timestamp(T value);
}
