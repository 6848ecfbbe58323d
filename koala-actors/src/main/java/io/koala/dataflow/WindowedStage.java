package io.koala.dataflow;

import io.koala.connector.CollectionSource;
import io.koala.connector.GeneratorSource;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.AggregateFunction;
import io.koala.function.OutputTag;
import io.koala.function.ReduceFunction;
import io.koala.operator.WindowOperator;
import io.koala.window.ProcessWindowFunction;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A keyed stage cut into event-time windows ({@link KeyedStage#window}), waiting for what to
 * compute per window. Results fire when the watermark passes a window's end (Flink's default
 * event-time trigger), and carry the timestamp {@link TimeWindow#maxTimestamp()}; at the end of a
 * bounded input every remaining window fires. Records need event timestamps: give the source
 * timestamps ({@link CollectionSource#timestamps}, {@link GeneratorSource#eventTime}) and a {@link
 * WatermarkStrategy}; a record without one fails the job.
 *
 * <p>A record is late for a window once the watermark has reached the window's max timestamp plus
 * the allowed lateness. A record late for every window it belongs to goes to the late-data side
 * output if there is one ({@link #sideOutputLateData}), else it is dropped and counted in the
 * task's {@code lateRecords} metric. A record that arrives after its window fired but within the
 * allowed lateness updates the window, which fires again at once with the updated result.
 *
 * <pre>{@code
 * OutputTag<Bid> late = new OutputTag<>("late-bids");
 * Stage<WindowResult<String, Long>> counts =
 *     bids.keyBy(Bid::auction)
 *         .window(WindowAssigner.tumbling(Duration.ofSeconds(10)))
 *         .allowedLateness(Duration.ofSeconds(5))
 *         .sideOutputLateData(late)
 *         .aggregate("bids-per-auction", new CountBids());
 * counts.sideOutput(late).sink(SinkSpec.logging("late"));
 * }</pre>
 *
 * <p>Not thread-safe, like the builder it belongs to; the settings apply to the terminal operations
 * called after them.
 */
public final class WindowedStage<K, T> {
  private final KeyedStage<K, T> input;
  private final WindowAssigner assigner;
  private long allowedLatenessMillis;
  private OutputTag<T> lateData;

  WindowedStage(KeyedStage<K, T> input, WindowAssigner assigner) {
    this.input = input;
    this.assigner = Objects.requireNonNull(assigner, "window assigner");
  }

  /**
   * How long after a window fired records may still update it (default zero: records behind the
   * window's end are late). The window's state is kept that long.
   */
  public WindowedStage<K, T> allowedLateness(Duration lateness) {
    long ms = lateness.toMillis();
    if (ms < 0) {
      throw new IllegalArgumentException("allowed lateness must not be negative: " + lateness);
    }
    this.allowedLatenessMillis = ms;
    return this;
  }

  /**
   * Sends records too late for all their windows to side output {@code tag} instead of dropping.
   */
  public WindowedStage<K, T> sideOutputLateData(OutputTag<T> tag) {
    this.lateData = Objects.requireNonNull(tag, "output tag");
    return this;
  }

  /** Counts each window's records; emits one count per key and window. */
  public Stage<WindowResult<K, Long>> count(String name) {
    return aggregate(name, Aggregates.<T>count());
  }

  /** Reduces each window's records with {@code fn}; emits one result per key and window. */
  public Stage<WindowResult<K, T>> reduce(String name, ReduceFunction<T> fn) {
    Objects.requireNonNull(fn, "function");
    WindowAssigner a = assigner;
    long lateness = allowedLatenessMillis;
    OutputTag<T> tag = lateData;
    return input.transform(name, () -> WindowOperator.<K, T>reduce(name, a, lateness, tag, fn));
  }

  /**
   * Aggregates each window incrementally with {@code fn}: only the accumulator is kept, never the
   * records. Session windows merge accumulators, so {@code fn} must then implement {@link
   * AggregateFunction#merge} (checked by reflection, since it has a default: {@link
   * DataflowBuilder#build()} fails otherwise).
   */
  public <A, R> Stage<WindowResult<K, R>> aggregate(String name, AggregateFunction<T, A, R> fn) {
    Objects.requireNonNull(fn, "function");
    WindowAssigner a = assigner;
    long lateness = allowedLatenessMillis;
    OutputTag<T> tag = lateData;
    Stage<WindowResult<K, R>> out =
        input.transform(
            name, () -> WindowOperator.<K, T, A, R>aggregate(name, a, lateness, tag, fn));
    if (assigner.isMerging() && !WindowOperator.implementsMerge(fn)) {
      out.origins.get(0).draft().definitionError =
          "window operator '"
              + name
              + "': "
              + fn.getClass().getName()
              + " does not implement AggregateFunction.merge, which "
              + assigner
              + " windows need to combine the accumulators of merging sessions";
    }
    return out;
  }

  /**
   * Keeps every record of each window and gives them to a {@link ProcessWindowFunction} when the
   * window fires; {@code function} is called once per task for a fresh instance.
   */
  public <R> Stage<R> process(
      String name, Supplier<? extends ProcessWindowFunction<K, T, R>> function) {
    Objects.requireNonNull(function, "function supplier");
    WindowAssigner a = assigner;
    long lateness = allowedLatenessMillis;
    OutputTag<T> tag = lateData;
    return input.transform(
        name, () -> WindowOperator.<K, T, R>process(name, a, lateness, tag, function));
  }
}
