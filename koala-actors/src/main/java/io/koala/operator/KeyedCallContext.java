package io.koala.operator;

import io.koala.function.Collector;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.state.TimeDomain;
import io.koala.state.TimerService;

/**
 * What the keyed process and co-process operators hand their user function at each call: the
 * current key, the record's (or event-time timer's) timestamp, timers, the time domain in {@code
 * onTimer}, and a collector that emits with that timestamp.
 */
final class KeyedCallContext<K, O> implements KeyedCoProcessFunction.OnTimerContext<K> {
  private OperatorContext<O> ctx;
  private long timestamp;
  private TimeDomain domain;
  final Collector<O> collector = value -> ctx.output().emit(value, timestamp);

  void open(OperatorContext<O> ctx) {
    this.ctx = ctx;
  }

  /** Before a record is processed. */
  void record(long timestamp) {
    this.timestamp = timestamp;
  }

  /** Before a timer fires; processing-time timers give their output no event timestamp. */
  void timer(long timestamp, TimeDomain domain) {
    this.timestamp = domain == TimeDomain.EVENT_TIME ? timestamp : Long.MIN_VALUE;
    this.domain = domain;
  }

  /** After a timer fired. */
  void timerDone() {
    this.domain = null;
  }

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
}
