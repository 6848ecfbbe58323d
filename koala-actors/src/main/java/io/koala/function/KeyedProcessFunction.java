package io.koala.function;

import io.koala.dataflow.KeyedStage;
import io.koala.state.KeyedStateContext;
import io.koala.state.TimeDomain;
import io.koala.state.TimerService;

/**
 * A function over a keyed stage with access to the state of the current key. Each task gets its own
 * instance (from the supplier given to {@link KeyedStage#process}), so fields set in {@link #open}
 * (state handles) are private to the task. State handles always refer to the key of the record
 * being processed.
 *
 * <pre>{@code
 * class CountPerKey extends KeyedProcessFunction<String, String, KeyValue<String, Long>> {
 *   private ValueState<Long> count;
 *
 *   public void open(KeyedStateContext ctx) {
 *     count = ctx.valueState("count", Long.class);
 *   }
 *
 *   public void process(String word, Context<String> ctx, Collector<KeyValue<String, Long>> out) {
 *     long n = count.value() == null ? 1 : count.value() + 1;
 *     count.update(n);
 *     out.collect(new KeyValue<>(ctx.currentKey(), n));
 *   }
 * }
 * }</pre>
 */
public abstract class KeyedProcessFunction<K, I, O> {

  /** Called once per task before the first record; obtain state handles here. */
  public void open(KeyedStateContext ctx) throws Exception {}

  /** Called for every record, with the record's key as the current key. */
  public abstract void process(I value, Context<K> ctx, Collector<O> out) throws Exception;

  /**
   * Called when a timer of the current key fires: event-time timers when the watermark reaches
   * them, processing-time timers when the wall clock does. Records collected here carry the timer's
   * timestamp.
   */
  public void onTimer(long timestamp, OnTimerContext<K> ctx, Collector<O> out) throws Exception {}

  /** Called once when the task stops. */
  public void close() throws Exception {}

  /** What a function knows about the record it is processing. */
  public interface Context<K> {
    /** The key of the record being processed. */
    K currentKey();

    /** The record's event timestamp in milliseconds, or {@link Long#MIN_VALUE} if it has none. */
    long timestamp();

    /** Timers of the current key, and the task's clocks. */
    TimerService timerService();
  }

  /** What a function knows about the timer that fired. */
  public interface OnTimerContext<K> extends Context<K> {
    TimeDomain timeDomain();
  }
}
