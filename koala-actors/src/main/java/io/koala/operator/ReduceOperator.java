package io.koala.operator;

import io.koala.function.ReduceFunction;
import io.koala.state.ValueState;

/** A rolling reduce per key: emits the reduced value after every record. */
public final class ReduceOperator<T> implements Operator<T, T> {
  private final ReduceFunction<T> fn;
  private OperatorContext<T> ctx;
  private ValueState<Object> reduced;

  public ReduceOperator(ReduceFunction<T> fn) {
    this.fn = fn;
  }

  @Override
  public void open(OperatorContext<T> ctx) {
    this.ctx = ctx;
    this.reduced = ctx.keyedState().valueState("reduced", Object.class);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void process(T value, long timestamp, int input) throws Exception {
    T previous = (T) reduced.value();
    T next = previous == null ? value : fn.reduce(previous, value);
    reduced.update(next);
    ctx.output().emit(next, timestamp);
  }
}
