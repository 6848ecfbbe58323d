package io.koala.eventtime;

/** Assigns the event timestamp (milliseconds) of a source record. */
@FunctionalInterface
public interface TimestampFunction<T> {
  long timestamp(T value);
}
