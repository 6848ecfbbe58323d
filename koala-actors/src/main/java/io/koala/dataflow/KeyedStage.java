package io.koala.dataflow;

import io.koala.dataflow.DataflowBuilder.Origin;
import io.koala.function.AggregateFunction;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.KeySelector;
import io.koala.function.KeyValue;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.function.KeyedProcessFunction;
import io.koala.function.ReduceFunction;
import io.koala.operator.AggregateOperator;
import io.koala.operator.KeyedProcessOperator;
import io.koala.operator.OperatorFactory;
import io.koala.operator.ReduceOperator;
import io.koala.plan.OperatorNode.Kind;
import io.koala.window.WindowAssigner;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A stage partitioned by key. The next operator receives every record of a key at the same task,
 * and may keep state per key; that state moves with its bucket when the operator is reconfigured.
 */
public final class KeyedStage<K, T> {
  private final Stage<T> input;
  private final KeySelector<T, K> selector;

  KeyedStage(DataflowBuilder builder, List<Origin> origins, KeySelector<T, K> selector) {
    this.input = new Stage<>(builder, origins);
    this.selector = selector;
  }

  /** This stage as input edges of a new operator, into its {@code logicalInput}. */
  List<DataflowBuilder.DraftInput> inputs(int logicalInput) {
    return input.inputs(selector, logicalInput);
  }

  DataflowBuilder builder() {
    return input.builder;
  }

  /**
   * Cuts this stage into event-time windows of each key; a terminal operation of the result
   * (reduce, aggregate, process) adds the window operator.
   *
   * <pre>{@code
   * stage.keyBy(Bid::auction).window(WindowAssigner.tumbling(Duration.ofSeconds(10)))
   *     .reduce("max-bid", (a, b) -> a.price() >= b.price() ? a : b);
   * }</pre>
   */
  public WindowedStage<K, T> window(WindowAssigner assigner) {
    return new WindowedStage<>(this, assigner);
  }

  /** Runs a keyed function; {@code function} is called once per task for a fresh instance. */
  public <R> Stage<R> process(
      String name, Supplier<? extends KeyedProcessFunction<K, T, R>> function) {
    Objects.requireNonNull(function, "function supplier");
    return transform(name, () -> new KeyedProcessOperator<K, T, R>(function));
  }

  /** A rolling reduce per key: emits the reduced value after every record. */
  public Stage<T> reduce(String name, ReduceFunction<T> fn) {
    Objects.requireNonNull(fn, "function");
    return transform(name, () -> new ReduceOperator<>(fn));
  }

  /** A rolling aggregate per key: emits {@code (key, result)} after every record. */
  public <A, R> Stage<KeyValue<K, R>> aggregate(String name, AggregateFunction<T, A, R> fn) {
    Objects.requireNonNull(fn, "function");
    return transform(name, () -> new AggregateOperator<K, T, A, R>(fn, objectClass()));
  }

  /** Counts records per key: emits {@code (key, count so far)} after every record. */
  public Stage<KeyValue<K, Long>> count(String name) {
    AggregateFunction<T, Long, Long> counter = Aggregates.count();
    return transform(name, () -> new AggregateOperator<K, T, Long, Long>(counter, Long.class));
  }

  /** Adds an operator of the low-level SPI that may use keyed state. */
  public <R> Stage<R> transform(String name, OperatorFactory<T, R> factory) {
    return input.add(name, Kind.TRANSFORM, factory, true, selector);
  }

  /**
   * Connects this stage with {@code other} for a {@link KeyedCoProcessFunction}: records of both
   * reach the same task per key and share its state and timers. Both must be keyed by keys of the
   * same type and belong to the same dataflow.
   *
   * @throws DataflowDefinitionException when {@code other} belongs to another dataflow
   */
  public <B> ConnectedKeyedStages<K, T, B> connect(KeyedStage<K, B> other) {
    return new ConnectedKeyedStages<>(this, other);
  }

  /**
   * Joins this stage with {@code other} by event-time window: {@code
   * join(other).window(assigner).apply(name, fn)}.
   *
   * @throws DataflowDefinitionException when {@code other} belongs to another dataflow
   */
  public <B> JoinedKeyedStages<K, T, B> join(KeyedStage<K, B> other) {
    return new JoinedKeyedStages<>(this, other);
  }

  /**
   * Joins this stage with {@code other} by time interval: {@code intervalJoin(other).between(lower,
   * upper).process(name, function)}.
   *
   * @throws DataflowDefinitionException when {@code other} belongs to another dataflow
   */
  public <B> IntervalJoin<K, T, B> intervalJoin(KeyedStage<K, B> other) {
    return new IntervalJoin<>(this, other);
  }

  @SuppressWarnings("unchecked")
  private static <A> Class<A> objectClass() {
    return (Class<A>) Object.class;
  }
}
