package io.koala.window;

import io.koala.dataflow.WindowedStage;
import io.koala.function.Collector;
import io.koala.state.KeyedStateContext;
import java.util.List;

/**
 * A function over all the records of one key's window, called when the window fires (see {@link
 * WindowedStage#process}). The window operator keeps every record of an open window in the key's
 * state until then, so prefer {@link WindowedStage#aggregate} when an incremental result will do.
 * Each task gets its own instance from the supplier, so fields set in {@link #open} are private to
 * the task.
 *
 * <pre>{@code
 * class MaxPerWindow extends ProcessWindowFunction<String, Bid, String> {
 *   public void process(String key, TimeWindow w, List<Bid> bids, Collector<String> out) {
 *     long max = bids.stream().mapToLong(Bid::price).max().orElseThrow();
 *     out.collect(key + " " + w.start() + ".." + w.end() + ": " + max);
 *   }
 * }
 * }</pre>
 *
 * @param <K> the key
 * @param <I> the records of the window
 * @param <O> what the function emits; records carry the timestamp {@link TimeWindow#maxTimestamp()}
 */
public abstract class ProcessWindowFunction<K, I, O> {

  /**
   * Called once per task before the first window fires. State obtained here belongs to the key (it
   * outlives its windows); names starting with {@code "window."} are reserved for the operator.
   */
  public void open(KeyedStateContext ctx) throws Exception {}

  /**
   * Called when {@code window} of {@code key} fires: when the watermark passes its end, and again
   * for every record that arrives later but within the allowed lateness.
   *
   * @param elements the window's records, never empty; a copy the function may keep
   */
  public abstract void process(K key, TimeWindow window, List<I> elements, Collector<O> out)
      throws Exception;

  /** Called once when the task stops. */
  public void close() throws Exception {}
}
