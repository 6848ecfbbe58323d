package io.koala.function;

/** Transforms one record into zero or more records. Stateless, like {@link MapFunction}. */
@FunctionalInterface
public interface FlatMapFunction<I, O> {
  void flatMap(I value, Collector<O> out) throws Exception;
}
