package io.koala.connector;

/**
 * What {@link SinkSpec#forEach} calls with each record. Called by each of the sink's tasks from one
 * thread at a time, concurrently across tasks; a call that takes long holds its task up, which
 * backpressures the job (the task takes no input meanwhile).
 */
@FunctionalInterface
public interface SinkFunction<T> {
  void accept(T value) throws Exception;
}
