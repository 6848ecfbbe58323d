package io.koala.samples;

import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeySelector;
import io.koala.function.KeyedProcessFunction;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import java.util.function.ToDoubleFunction;

/**
 * The keyed stage of the real-world-like queries (Taxi trends, Borg monitoring, Azure CPU): records
 * keyed by a {@code long} key id, each key keeping its last {@code capacity} values in a {@link
 * BoundedSeries} padded to {@code stateBytes} bytes, and a record of the series' statistics emitted
 * for every input record. Immutable.
 *
 * <pre>{@code
 * SeriesStats<VmReading, Double> medians =
 *     new SeriesStats<>("last-avg-cpu", 48, VmReading::vmId, VmReading::avgCpu,
 *         (reading, key, series) -> series.median());
 * medians.add(readings, "medians", 512).sink(SinkSpec.discarding("out"));
 * }</pre>
 *
 * @param <T> the input records
 * @param <R> the records emitted
 */
public final class SeriesStats<T, R> {

  /** What is emitted for a record. */
  @FunctionalInterface
  public interface Output<T, R> {
    /**
     * The record emitted for {@code record} of key {@code key}, whose series ({@code record}'s
     * value last) is {@code series}.
     */
    R of(T record, long key, BoundedSeries series);
  }

  private final String stateName;
  private final int capacity;
  private final KeySelector<T, Long> key;
  private final ToDoubleFunction<T> value;
  private final Output<T, R> output;

  /**
   * @param stateName the name of each key's state
   * @param capacity how many of a key's last values the series keeps
   * @param key the key id of a record
   * @param value the value of a record appended to its key's series
   * @param output the record emitted for each record
   */
  public SeriesStats(
      String stateName,
      int capacity,
      KeySelector<T, Long> key,
      ToDoubleFunction<T> value,
      Output<T, R> output) {
    this.stateName = stateName;
    this.capacity = capacity;
    this.key = key;
    this.value = value;
    this.output = output;
  }

  /**
   * Adds the stage: {@code input} keyed into the operator {@code name}.
   *
   * @param stateBytes bytes of state per key, at least {@link BoundedSeries#minBytes} of the
   *     capacity
   * @throws IllegalArgumentException if {@code stateBytes} is too small
   */
  public Stage<R> add(Stage<T> input, String name, int stateBytes) {
    BoundedSeries.codec(capacity, stateBytes); // fails here, at definition, when too small
    return input.keyBy(key).process(name, () -> append(stateBytes));
  }

  /** The keyed function: appends the record's value to the key's series and emits the output. */
  private KeyedProcessFunction<Long, T, R> append(int stateBytes) {
    return new KeyedProcessFunction<>() {
      private ValueState<BoundedSeries> last;

      @Override
      public void open(KeyedStateContext ctx) {
        last = ctx.valueState(stateName, BoundedSeries.codec(capacity, stateBytes));
      }

      @Override
      public void process(T record, Context<Long> ctx, Collector<R> out) {
        BoundedSeries before = last.value();
        BoundedSeries after =
            (before == null ? BoundedSeries.empty(capacity, stateBytes) : before)
                .plus(value.applyAsDouble(record));
        last.update(after);
        out.collect(output.of(record, ctx.currentKey(), after));
      }
    };
  }
}
