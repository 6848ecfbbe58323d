package io.koala.dataflow;

import io.koala.dataflow.DataflowBuilder.Draft;
import io.koala.dataflow.DataflowBuilder.DraftInput;
import io.koala.operator.FilterOperator;
import io.koala.operator.FlatMapOperator;
import io.koala.operator.MapOperator;
import io.koala.operator.OperatorFactory;
import io.koala.operator.SinkOperator;
import io.koala.plan.OperatorNode.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A stream of records of type {@code T} in a dataflow being defined: the output of one operator, or
 * the union of several. Each method adds an operator reading this stage and returns its output.
 * Operator names must be unique within the dataflow and stay the same across runs.
 */
public class Stage<T> {
  final DataflowBuilder builder;
  final List<Draft> heads;

  Stage(DataflowBuilder builder, List<Draft> heads) {
    this.builder = builder;
    this.heads = List.copyOf(heads);
  }

  /** Sets the parallelism of the operator that produces this stage. */
  public Stage<T> parallelism(int parallelism) {
    if (heads.size() != 1) {
      throw new DataflowDefinitionException(
          "a union has no operator of its own: set the parallelism of its inputs");
    }
    heads.get(0).parallelism = parallelism;
    return this;
  }

  public <R> Stage<R> map(String name, MapFunction<T, R> fn) {
    Objects.requireNonNull(fn, "function");
    return transform(name, () -> new MapOperator<>(fn));
  }

  public Stage<T> filter(String name, FilterFunction<T> fn) {
    Objects.requireNonNull(fn, "function");
    return transform(name, () -> new FilterOperator<>(fn));
  }

  public <R> Stage<R> flatMap(String name, FlatMapFunction<T, R> fn) {
    Objects.requireNonNull(fn, "function");
    return transform(name, () -> new FlatMapOperator<>(fn));
  }

  /** Partitions this stage by key: records with equal keys reach the same task. */
  public <K> KeyedStage<K, T> keyBy(KeySelector<T, K> selector) {
    return new KeyedStage<>(builder, heads, Objects.requireNonNull(selector, "key selector"));
  }

  /** This stage and {@code others} as one stage (no operator of its own). */
  @SafeVarargs
  public final Stage<T> union(Stage<T>... others) {
    List<Draft> all = new ArrayList<>(heads);
    for (Stage<T> o : others) {
      if (o.builder != builder) {
        throw new DataflowDefinitionException("cannot union stages of different dataflows");
      }
      all.addAll(o.heads);
    }
    return new Stage<>(builder, all);
  }

  /** Adds an operator of the low-level SPI without keyed state. */
  public <R> Stage<R> transform(String name, OperatorFactory<T, R> factory) {
    return add(name, Kind.TRANSFORM, factory, false, null);
  }

  /** Ends this stage in a sink. */
  public Stage<Void> sink(SinkSpec<T> sink) {
    Objects.requireNonNull(sink, "sink");
    OperatorFactory<T, Void> factory = () -> new SinkOperator<>(sink);
    return add(sink.name(), Kind.SINK, factory, false, null);
  }

  <R> Stage<R> add(
      String name,
      Kind kind,
      OperatorFactory<?, ?> factory,
      boolean keyedState,
      KeySelector<?, ?> keySelector) {
    List<DraftInput> inputs = new ArrayList<>();
    for (Draft h : heads) {
      inputs.add(new DraftInput(h, keySelector));
    }
    Draft d = builder.add(new Draft(name, kind, null, factory, keyedState, inputs));
    return new Stage<>(builder, List.of(d));
  }
}
