package io.koala.dataflow;

/** Writes the records of one sink task. Called by one thread at a time. */
public interface SinkWriter<T> {
  void write(T value, long timestamp) throws Exception;

  /** Called after each input batch. */
  default void flush() throws Exception {}

  /** Called once when the task stops, also after a failure. */
  default void close() throws Exception {}
}
