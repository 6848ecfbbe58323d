package io.koala.runtime;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.function.Collector;

/** A collecting sink that keeps each record's event timestamp: it collects {@code value@ts}. */
final class TimestampedSink {
  private TimestampedSink() {}

  static <T> SinkSpec<T> collecting(String name) {
    return new SinkSpec<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public SinkWriter<T> open(SinkContext ctx) {
        Collector<Object> results = ctx.clientResults();
        return (value, ts) -> results.collect(value + "@" + ts);
      }
    };
  }
}
