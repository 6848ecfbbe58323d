package io.koala.function;

import io.koala.dataflow.ConnectedKeyedStages;
import io.koala.dataflow.KeyedStage;
import io.koala.state.KeyedStateContext;

/**
 * A function over two keyed stages connected with {@link KeyedStage#connect}: records of the first
 * stage go to {@link #processElement1}, those of the second to {@link #processElement2}, and both
 * see the same state and timers of their key. Each task gets its own instance (from the supplier
 * given to {@link ConnectedKeyedStages#process}), so fields set in {@link #open} (state handles)
 * are private to the task. State handles always refer to the key of the record or timer being
 * processed. The runtime calls one method at a time; the order in which the records of the two
 * inputs interleave is the order they reach the task, which is not deterministic: a function whose
 * output must not depend on it buffers in state and decides on event-time timers.
 *
 * <pre>{@code
 * // Auctions of sellers whose person record has arrived, whatever the order of arrival.
 * class SellerAuctions extends KeyedCoProcessFunction<Long, Person, Auction, String> {
 *   private ValueState<Person> person;
 *   private ListState<Auction> waiting;
 *
 *   public void open(KeyedStateContext ctx) {
 *     person = ctx.valueState("person", Person.class);
 *     waiting = ctx.listState("waiting", Auction.class);
 *   }
 *
 *   public void processElement1(Person p, Context<Long> ctx, Collector<String> out) {
 *     person.update(p);
 *     for (Auction a : waiting.get()) {
 *       out.collect(p.name() + " sells " + a.id());
 *     }
 *     waiting.clear();
 *   }
 *
 *   public void processElement2(Auction a, Context<Long> ctx, Collector<String> out) {
 *     Person p = person.value();
 *     if (p == null) {
 *       waiting.add(a);
 *     } else {
 *       out.collect(p.name() + " sells " + a.id());
 *     }
 *   }
 * }
 * }</pre>
 *
 * @param <K> the key type of both stages
 * @param <A> records of the first stage (the one {@code connect} is called on)
 * @param <B> records of the second stage
 * @param <O> records emitted
 */
public abstract class KeyedCoProcessFunction<K, A, B, O> {

  /** Called once per task before the first record; obtain state handles here. */
  public void open(KeyedStateContext ctx) throws Exception {}

  /** Called for every record of the first stage, with its key as the current key. */
  public abstract void processElement1(A value, Context<K> ctx, Collector<O> out) throws Exception;

  /** Called for every record of the second stage, with its key as the current key. */
  public abstract void processElement2(B value, Context<K> ctx, Collector<O> out) throws Exception;

  /**
   * Called when a timer of the current key fires: event-time timers when the watermark (the minimum
   * over both inputs) reaches them, processing-time timers when the wall clock does. Records
   * collected here carry the timer's timestamp for event-time timers.
   */
  public void onTimer(long timestamp, OnTimerContext<K> ctx, Collector<O> out) throws Exception {}

  /** Called once when the task stops. */
  public void close() throws Exception {}

  /** What a function knows about the record it is processing; timers are shared by both inputs. */
  public interface Context<K> extends KeyedProcessFunction.Context<K> {}

  /** What a function knows about the timer that fired. */
  public interface OnTimerContext<K> extends KeyedProcessFunction.OnTimerContext<K>, Context<K> {}
}
