package io.koala.runtime;

import io.koala.dataflow.Collector;
import io.koala.dataflow.SinkContext;
import io.koala.dataflow.SinkSpec;
import io.koala.dataflow.SinkWriter;

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
