package io.koala.dataflow;

import io.koala.connector.SinkSpec;
import io.koala.dataflow.DataflowBuilder.DraftInput;
import io.koala.dataflow.DataflowBuilder.Origin;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.FilterFunction;
import io.koala.function.FlatMapFunction;
import io.koala.function.KeySelector;
import io.koala.function.MapFunction;
import io.koala.function.OutputTag;
import io.koala.function.TypedKeySelector;
import io.koala.operator.FilterOperator;
import io.koala.operator.FlatMapOperator;
import io.koala.operator.MapOperator;
import io.koala.operator.OperatorFactory;
import io.koala.operator.SinkOperator;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.OperatorNode.Kind;
import java.time.Duration;
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
  final List<Origin> origins;

  Stage(DataflowBuilder builder, List<Origin> origins) {
    this.builder = builder;
    this.origins = List.copyOf(origins);
  }

  /** Sets the parallelism of the operator that produces this stage. */
  public Stage<T> parallelism(int parallelism) {
    if (origins.size() != 1 || origins.get(0).sideOutput() != null) {
      throw new DataflowDefinitionException(
          "a union or a side output has no operator of its own: set the parallelism of the"
              + " operators that produce it");
    }
    origins.get(0).draft().parallelism = parallelism;
    return this;
  }

  /**
   * Sets the identity under which checkpoints keep the state of the operator that produces this
   * stage (its name by default): an operator renamed in a new version of the dataflow keeps its
   * state when it keeps its uid. Letters, digits, '.', '_' and '-'; unique in the dataflow.
   */
  public Stage<T> uid(String uid) {
    if (origins.size() != 1 || origins.get(0).sideOutput() != null) {
      throw new DataflowDefinitionException(
          "a union or a side output has no operator of its own: set the uid of the operators"
              + " that produce it");
    }
    if (!OperatorId.isValid(uid)) {
      throw new DataflowDefinitionException(
          "operator '"
              + origins.get(0).draft().name
              + "': uid '"
              + uid
              + "' is not valid: 1 to 64 letters, digits, '.', '_' or '-'");
    }
    origins.get(0).draft().uid = uid;
    return this;
  }

  /**
   * Limits each task of the operator that produces this stage to {@code recordsPerSecond} records
   * per second (a token bucket). Meant for experiments on a machine with few cores: an emulated
   * capacity makes "4 tasks cannot keep up, 8 can" true without 8 cores. A task chaining several
   * limited operators runs at the lowest limit.
   */
  public Stage<T> capacity(double recordsPerSecond) {
    draftOfCapacity(recordsPerSecond).capacity = recordsPerSecond;
    return this;
  }

  /**
   * As {@link #capacity(double)}, with {@code recordsPerSecond} until {@code after} has passed
   * since the job started and {@code thenPerSecond} from then on: for an experiment's control run,
   * where the capacity grows at a moment with no state to move.
   */
  public Stage<T> capacity(double recordsPerSecond, Duration after, double thenPerSecond) {
    DataflowBuilder.Draft d = draftOfCapacity(recordsPerSecond);
    draftOfCapacity(thenPerSecond);
    if (after.isNegative()) {
      throw new DataflowDefinitionException(
          "operator '" + d.name + "': a capacity change must come after the start, not " + after);
    }
    d.capacity = recordsPerSecond;
    d.capacityChange = new OperatorNode.CapacityChange(after.toMillis(), thenPerSecond);
    return this;
  }

  /** The draft of this stage's operator, once {@code recordsPerSecond} is checked as a capacity. */
  private DataflowBuilder.Draft draftOfCapacity(double recordsPerSecond) {
    if (origins.size() != 1 || origins.get(0).sideOutput() != null) {
      throw new DataflowDefinitionException(
          "a union or a side output has no operator of its own: set the capacity of the"
              + " operators that produce it");
    }
    if (!(recordsPerSecond > 0) || Double.isInfinite(recordsPerSecond)) {
      throw new DataflowDefinitionException(
          "operator '"
              + origins.get(0).draft().name
              + "': capacity must be positive and finite, got "
              + recordsPerSecond);
    }
    if (origins.get(0).draft().kind == Kind.SOURCE) {
      throw new DataflowDefinitionException(
          "source '"
              + origins.get(0).draft().name
              + "': a source's pace is its rate schedule, not a capacity");
    }
    return origins.get(0).draft();
  }

  /**
   * The records this stage's operator emits to its side output {@code tag} (for example the late
   * records of a window), as a stage of their own.
   */
  public <X> Stage<X> sideOutput(OutputTag<X> tag) {
    if (origins.size() != 1 || origins.get(0).sideOutput() != null) {
      throw new DataflowDefinitionException(
          "side output '" + tag.name() + "' must be taken from a single operator's stage");
    }
    return new Stage<>(builder, List.of(new Origin(origins.get(0).draft(), tag.name())));
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
    return new KeyedStage<>(builder, origins, Objects.requireNonNull(selector, "key selector"));
  }

  /**
   * Partitions this stage by key, declaring the class of the keys: checkpoints record it, so a
   * restore into a dataflow whose keys at this operator have another class is refused before the
   * job starts (see docs/upgrades.md), and a key of another class fails the operator.
   */
  public <K> KeyedStage<K, T> keyBy(KeySelector<T, K> selector, Class<K> keyType) {
    return keyBy(new TypedKeySelector<>(selector, keyType));
  }

  /** This stage and {@code others} as one stage (no operator of its own). */
  @SafeVarargs
  public final Stage<T> union(Stage<T>... others) {
    List<Origin> all = new ArrayList<>(origins);
    for (Stage<T> o : others) {
      if (o.builder != builder) {
        throw new DataflowDefinitionException("cannot union stages of different dataflows");
      }
      all.addAll(o.origins);
    }
    return new Stage<>(builder, all);
  }

  /**
   * Adds an operator of the low-level SPI. This stage is not keyed, so the operator gets no keyed
   * state; a factory declared with {@link OperatorFactory#keyed} makes {@link
   * DataflowBuilder#build()} fail, naming the operator (call {@code keyBy(...)} first).
   */
  public <R> Stage<R> transform(String name, OperatorFactory<T, R> factory) {
    Objects.requireNonNull(factory, "operator factory");
    return add(name, Kind.TRANSFORM, factory, factory.keyedState(), null);
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
    return builder.addOperator(name, kind, factory, keyedState, inputs(keySelector, 0));
  }

  /** This stage as input edges of a new operator, into its {@code logicalInput}. */
  List<DraftInput> inputs(KeySelector<?, ?> keySelector, int logicalInput) {
    List<DraftInput> inputs = new ArrayList<>();
    for (Origin o : origins) {
      inputs.add(new DraftInput(o.draft(), o.sideOutput(), keySelector, logicalInput));
    }
    return inputs;
  }
}
