package io.koala.operator;

import io.koala.function.FilterFunction;

/** Keeps the records a {@link FilterFunction} accepts. */
public final class FilterOperator<T> implements Operator<T, T> {
  private final FilterFunction<T> fn;
  private Output<T> out;

  public FilterOperator(FilterFunction<T> fn) {
    this.fn = fn;
  }

  @Override
  public void open(OperatorContext<T> ctx) {
    out = ctx.output();
  }

  @Override
  public void process(T value, long timestamp, int input) throws Exception {
    if (fn.test(value)) {
      out.emit(value, timestamp);
    }
  }
}
