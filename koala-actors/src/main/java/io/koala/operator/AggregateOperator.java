package io.koala.operator;

import io.koala.function.AggregateFunction;
import io.koala.function.KeyValue;
import io.koala.state.ValueState;

/**
 * A rolling aggregate per key: keeps only the accumulator and emits {@code (key, result)} after
 * every record.
 */
public final class AggregateOperator<K, I, A, O> implements Operator<I, KeyValue<K, O>> {
  private final AggregateFunction<I, A, O> fn;
  private final Class<A> accumulatorType;
  private OperatorContext<KeyValue<K, O>> ctx;
  private ValueState<A> accumulator;

  /**
   * @param accumulatorType the accumulator's class, or {@code Object.class} for any registered type
   */
  public AggregateOperator(AggregateFunction<I, A, O> fn, Class<A> accumulatorType) {
    this.fn = fn;
    this.accumulatorType = accumulatorType;
  }

  @Override
  public void open(OperatorContext<KeyValue<K, O>> ctx) {
    this.ctx = ctx;
    this.accumulator = ctx.keyedState().valueState("accumulator", accumulatorType);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void process(I value, long timestamp, int input) throws Exception {
    A acc = accumulator.value();
    acc = fn.add(value, acc == null ? fn.createAccumulator() : acc);
    accumulator.update(acc);
    ctx.output().emit(new KeyValue<>((K) ctx.currentKey(), fn.result(acc)), timestamp);
  }
}
