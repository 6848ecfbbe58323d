package io.koala.operator;

import io.koala.function.KeyedProcessFunction;
import io.koala.state.TimeDomain;
import java.util.function.Supplier;

/** Runs a {@link KeyedProcessFunction}; one function instance per task. */
public final class KeyedProcessOperator<K, I, O> implements Operator<I, O> {
  private final Supplier<? extends KeyedProcessFunction<K, I, O>> supplier;
  private final KeyedCallContext<K, O> call = new KeyedCallContext<>();
  private KeyedProcessFunction<K, I, O> fn;

  public KeyedProcessOperator(Supplier<? extends KeyedProcessFunction<K, I, O>> supplier) {
    this.supplier = supplier;
  }

  @Override
  public void open(OperatorContext<O> ctx) throws Exception {
    call.open(ctx);
    this.fn = supplier.get();
    if (fn == null) {
      throw new IllegalStateException("the function supplier returned null");
    }
    fn.open(ctx.keyedState());
  }

  @Override
  public void process(I value, long timestamp, int input) throws Exception {
    call.record(timestamp);
    fn.process(value, call, call.collector);
  }

  @Override
  public void onTimer(long timestamp, byte[] namespace, TimeDomain domain) throws Exception {
    call.timer(timestamp, domain);
    try {
      fn.onTimer(timestamp, call, call.collector);
    } finally {
      call.timerDone();
    }
  }

  @Override
  public void close() throws Exception {
    if (fn != null) {
      fn.close();
    }
  }
}
