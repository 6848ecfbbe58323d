package io.koala.dataflow;

import java.nio.file.Path;

/** A sink: opens one writer per sink task. */
public interface SinkSpec<T> {
  /** The sink operator's name. */
  String name();

  SinkWriter<T> open(SinkContext ctx) throws Exception;

  /** Sends every record back to the client ({@code JobHandle.collected(name)}); for tests. */
  static <T> SinkSpec<T> collecting(String name) {
    return Sinks.collecting(name);
  }

  /** Counts and drops every record (the count shows in the job's metrics). */
  static <T> SinkSpec<T> discarding(String name) {
    return Sinks.discarding(name);
  }

  /** Logs every record at INFO on the logger {@code io.koala.sink.<name>}. */
  static <T> SinkSpec<T> logging(String name) {
    return Sinks.logging(name);
  }

  /**
   * Writes one JSON document per line to {@code directory/<name>-<task>.jsonl}: records, maps,
   * collections, strings, numbers, booleans and enums become JSON; other values their string.
   */
  static <T> SinkSpec<T> jsonLines(String name, Path directory) {
    return Sinks.jsonLines(name, directory);
  }
}
