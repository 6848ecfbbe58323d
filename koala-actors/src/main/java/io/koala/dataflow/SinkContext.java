package io.koala.dataflow;

/** What a sink task knows when it opens its writer. */
public interface SinkContext {
  String sinkName();

  int taskIndex();

  int parallelism();

  /**
   * Sends values back to the job's client, where {@code JobHandle.collected(sinkName)} returns
   * them. Flow-controlled like every channel; meant for tests and small results.
   */
  Collector<Object> clientResults();
}
