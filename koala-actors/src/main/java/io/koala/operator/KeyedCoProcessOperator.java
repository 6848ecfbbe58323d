package io.koala.operator;

import io.koala.dataflow.Collector;
import io.koala.dataflow.KeyedCoProcessFunction;
import io.koala.state.TimeDomain;
import io.koala.state.TimerService;
import java.util.function.Supplier;

/**
 * Runs a {@link KeyedCoProcessFunction} over two keyed inputs: input 0 goes to {@code
 * processElement1}, input 1 to {@code processElement2}. One function instance per task; its state
 * and timers are the operator's keyed state, shared by both inputs.
 */
public final class KeyedCoProcessOperator<K, A, B, O> implements Operator<Object, O> {
  private final Supplier<? extends KeyedCoProcessFunction<K, A, B, O>> supplier;
  private KeyedCoProcessFunction<K, A, B, O> fn;
  private OperatorContext<O> ctx;
  private long timestamp;
  private TimeDomain domain;
  private final Collector<O> collector = value -> ctx.output().emit(value, timestamp);
  private final KeyedCoProcessFunction.OnTimerContext<K> context =
      new KeyedCoProcessFunction.OnTimerContext<>() {
        @Override
        @SuppressWarnings("unchecked")
        public K currentKey() {
          return (K) ctx.currentKey();
        }

        @Override
        public long timestamp() {
          return timestamp;
        }

        @Override
        public TimerService timerService() {
          return ctx.timers();
        }

        @Override
        public TimeDomain timeDomain() {
          if (domain == null) {
            throw new IllegalStateException("timeDomain() is only defined in onTimer");
          }
          return domain;
        }
      };

  public KeyedCoProcessOperator(Supplier<? extends KeyedCoProcessFunction<K, A, B, O>> supplier) {
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
  @SuppressWarnings("unchecked")
  public void process(Object value, long timestamp, int input) throws Exception {
    this.timestamp = timestamp;
    if (input == 0) {
      fn.processElement1((A) value, context, collector);
    } else {
      fn.processElement2((B) value, context, collector);
    }
  }

  @Override
  public void onTimer(long timestamp, byte[] namespace, TimeDomain domain) throws Exception {
    this.timestamp = domain == TimeDomain.EVENT_TIME ? timestamp : Long.MIN_VALUE;
    this.domain = domain;
    try {
      fn.onTimer(timestamp, context, collector);
    } finally {
      this.domain = null;
    }
  }

  @Override
  public void close() throws Exception {
    if (fn != null) {
      fn.close();
    }
  }
}
