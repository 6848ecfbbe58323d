package io.koala.operator;

import io.koala.dataflow.Collector;
import io.koala.dataflow.KeyedProcessFunction;
import io.koala.state.TimeDomain;
import io.koala.state.TimerService;
import java.util.function.Supplier;

/** Runs a {@link KeyedProcessFunction}; one function instance per task. */
public final class KeyedProcessOperator<K, I, O> implements Operator<I, O> {
  private final Supplier<? extends KeyedProcessFunction<K, I, O>> supplier;
  private KeyedProcessFunction<K, I, O> fn;
  private OperatorContext<O> ctx;
  private long timestamp;
  private TimeDomain domain;
  private final Collector<O> collector = value -> ctx.output().emit(value, timestamp);
  private final KeyedProcessFunction.OnTimerContext<K> context =
      new KeyedProcessFunction.OnTimerContext<>() {
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
