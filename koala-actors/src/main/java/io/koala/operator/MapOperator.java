package io.koala.operator;

import io.koala.function.MapFunction;

/** Applies a {@link MapFunction} to every record. */
public final class MapOperator<I, O> implements Operator<I, O> {
  private final MapFunction<I, O> fn;
  private Output<O> out;

  public MapOperator(MapFunction<I, O> fn) {
    this.fn = fn;
  }

  @Override
  public void open(OperatorContext<O> ctx) {
    out = ctx.output();
  }

  @Override
  public void process(I value, long timestamp, int input) throws Exception {
    out.emit(fn.map(value), timestamp);
  }
}
