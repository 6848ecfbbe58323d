package io.koala.dataflow;

import io.koala.function.Collector;
import io.koala.function.JoinFunction;
import io.koala.function.ProcessJoinFunction;
import io.koala.operator.IntervalJoinOperator;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * An interval join waiting for its function. Semantics: for every pair of a record {@code a} of the
 * first stage and a record {@code b} of the second with the same key and {@code a.ts + lower <=
 * b.ts <= a.ts + upper}, the function runs once, as soon as the later of the two arrives; its
 * results carry the timestamp {@code max(a.ts, b.ts)}. Each record is buffered in its key's state
 * until the watermark (the minimum over both inputs) shows that nothing more can match it: a first
 * stage record until the watermark reaches {@code ts + upper}, a second stage record until it
 * reaches {@code ts - lower}. A record at or behind the watermark is late: it is dropped and
 * counted in the task's late records. Records need event timestamps: the job fails on a record
 * without one.
 */
public final class IntervalJoined<K, A, B> {
  private final KeyedStage<K, A> first;
  private final KeyedStage<K, B> second;
  private final long lower;
  private final long upper;

  IntervalJoined(KeyedStage<K, A> first, KeyedStage<K, B> second, long lower, long upper) {
    this.first = first;
    this.second = second;
    this.lower = lower;
    this.upper = upper;
  }

  /** Runs {@code function} on every matching pair; called once per task for a fresh instance. */
  public <O> Stage<O> process(
      String name, Supplier<? extends ProcessJoinFunction<A, B, O>> function) {
    Objects.requireNonNull(function, "function supplier");
    long lo = lower;
    long hi = upper;
    return ConnectedKeyedStages.addTwoInput(
        first, second, name, () -> new IntervalJoinOperator<A, B, O>(lo, hi, function));
  }

  /** Emits {@code fn.join(a, b)} for every matching pair. */
  public <O> Stage<O> apply(String name, JoinFunction<A, B, O> fn) {
    Objects.requireNonNull(fn, "join function");
    return process(
        name,
        () ->
            new ProcessJoinFunction<A, B, O>() {
              @Override
              public void processElement(A left, B right, Context ctx, Collector<O> out)
                  throws Exception {
                out.collect(fn.join(left, right));
              }
            });
  }
}
