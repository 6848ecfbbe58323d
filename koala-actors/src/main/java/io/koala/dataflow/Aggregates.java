package io.koala.dataflow;

import io.koala.function.AggregateFunction;

/** Ready-made aggregate functions. */
public final class Aggregates {
  private Aggregates() {}

  /** Counts records; mergeable, so it also serves session windows. */
  public static <T> AggregateFunction<T, Long, Long> count() {
    return new AggregateFunction<>() {
      @Override
      public Long createAccumulator() {
        return 0L;
      }

      @Override
      public Long add(T value, Long acc) {
        return acc + 1;
      }

      @Override
      public Long result(Long acc) {
        return acc;
      }

      @Override
      public Long merge(Long a, Long b) {
        return a + b;
      }
    };
  }
}
