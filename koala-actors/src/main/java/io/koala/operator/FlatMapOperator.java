package io.koala.operator;

import io.koala.function.Collector;
import io.koala.function.FlatMapFunction;

/** Applies a {@link FlatMapFunction}; emitted records keep the input's timestamp. */
public final class FlatMapOperator<I, O> implements Operator<I, O> {
  private final FlatMapFunction<I, O> fn;
  private Output<O> out;
  private long timestamp;
  private final Collector<O> collector = value -> out.emit(value, timestamp);

  public FlatMapOperator(FlatMapFunction<I, O> fn) {
    this.fn = fn;
  }

  @Override
  public void open(OperatorContext<O> ctx) {
    out = ctx.output();
  }

  @Override
  public void process(I value, long timestamp, int input) throws Exception {
    this.timestamp = timestamp;
    fn.flatMap(value, collector);
  }
}
