package io.koala.function;

import io.koala.dataflow.IntervalJoined;
import io.koala.dataflow.KeyedStage;

/**
 * Processes each matching pair of an {@linkplain KeyedStage#intervalJoin interval join}, with the
 * timestamps of both records; may emit any number of records, which carry the timestamp {@link
 * Context#timestamp()} (the later of the two). Each task gets its own instance from the supplier
 * given to {@link IntervalJoined#process}. The function keeps no state of its own: the join buffers
 * the records in the key's state.
 *
 * <pre>{@code
 * class Delay extends ProcessJoinFunction<Order, Shipment, Long> {
 *   public void processElement(Order o, Shipment s, Context ctx, Collector<Long> out) {
 *     out.collect(ctx.rightTimestamp() - ctx.leftTimestamp());
 *   }
 * }
 * }</pre>
 */
public abstract class ProcessJoinFunction<A, B, O> {

  /** Called once per task before the first pair. */
  public void open() throws Exception {}

  /** Called once for every pair of the same key within the join's interval. */
  public abstract void processElement(A left, B right, Context ctx, Collector<O> out)
      throws Exception;

  /** Called once when the task stops. */
  public void close() throws Exception {}

  /** The timestamps of the pair being processed. */
  public interface Context {
    /** Event timestamp of the first stage's record. */
    long leftTimestamp();

    /** Event timestamp of the second stage's record. */
    long rightTimestamp();

    /** Timestamp of the records emitted for this pair: the later of the two. */
    long timestamp();
  }
}
