package io.koala.operator;

import io.koala.function.KeyedCoProcessFunction;
import io.koala.state.TimeDomain;
import java.util.function.Supplier;

/**
 * Runs a {@link KeyedCoProcessFunction} over two keyed inputs: input 0 goes to {@code
 * processElement1}, input 1 to {@code processElement2}. One function instance per task; its state
 * and timers are the operator's keyed state, shared by both inputs.
 */
public final class KeyedCoProcessOperator<K, A, B, O> implements Operator<Object, O> {
  private final Supplier<? extends KeyedCoProcessFunction<K, A, B, O>> supplier;
  private final KeyedCallContext<K, O> call = new KeyedCallContext<>();
  private KeyedCoProcessFunction<K, A, B, O> fn;

  public KeyedCoProcessOperator(Supplier<? extends KeyedCoProcessFunction<K, A, B, O>> supplier) {
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
  @SuppressWarnings("unchecked")
  public void process(Object value, long timestamp, int input) throws Exception {
    call.record(timestamp);
    if (input == 0) {
      fn.processElement1((A) value, call, call.collector);
    } else {
      fn.processElement2((B) value, call, call.collector);
    }
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
