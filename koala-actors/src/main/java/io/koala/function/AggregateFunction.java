package io.koala.function;

/**
 * An incremental aggregate per key: the accumulator is the only state kept (never the elements), so
 * its class must be serializable by Koala (a built-in type or a registered one).
 *
 * @param <I> input records
 * @param <A> accumulator, stored in the key's state
 * @param <O> result emitted after every input record
 */
public interface AggregateFunction<I, A, O> {
  A createAccumulator();

  A add(I value, A accumulator) throws Exception;

  O result(A accumulator) throws Exception;

  /**
   * Combines the accumulators of two windows that merge (session windows). Aggregates used only
   * with tumbling or sliding windows need not implement it.
   */
  default A merge(A a, A b) throws Exception {
    throw new UnsupportedOperationException(
        getClass().getName() + " does not implement merge(), which session windows need");
  }
}
