package io.koala.operator;

import io.koala.dataflow.Collector;
import io.koala.dataflow.KeyedProcessFunction;
import java.util.function.Supplier;

/** Runs a {@link KeyedProcessFunction}; one function instance per task. */
public final class KeyedProcessOperator<K, I, O> implements Operator<I, O> {
  private final Supplier<? extends KeyedProcessFunction<K, I, O>> supplier;
  private KeyedProcessFunction<K, I, O> fn;
  private OperatorContext<O> ctx;
  private long timestamp;
  private final Collector<O> collector = value -> ctx.output().emit(value, timestamp);
  private final KeyedProcessFunction.Context<K> context =
      new KeyedProcessFunction.Context<>() {
        @Override
        @SuppressWarnings("unchecked")
        public K currentKey() {
          return (K) ctx.currentKey();
        }

        @Override
        public long timestamp() {
          return timestamp;
        }
      };

  public KeyedProcessOperator(Supplier<? extends KeyedProcessFunction<K, I, O>> supplier) {
    this.supplier = supplier;
  }

  @Override
  public void open(OperatorContext<O> ctx) throws Exception {
    this.ctx = ctx;
    this.fn = supplier.get();
    if (fn == null) {
      throw new IllegalStateException("the function supplier returned null");
    }
    fn.open(ctx.keyedState());
  }

  @Override
  public void process(I value, long timestamp, int input) throws Exception {
    this.timestamp = timestamp;
    fn.process(value, context, collector);
  }

  @Override
  public void close() throws Exception {
    if (fn != null) {
      fn.close();
    }
  }
}
