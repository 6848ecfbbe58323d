package io.koala.plan;

import io.koala.connector.SourceSpec;
import io.koala.function.WatermarkStrategy;
import io.koala.operator.OperatorFactory;
import java.util.List;
import java.util.Objects;

/**
 * One operator of a logical plan: a source (with its {@link SourceSpec}), or an operator created
 * per task by its {@link OperatorFactory} (sinks included). Immutable.
 *
 * @param keyedState whether the operator reads or writes keyed state (all its inputs must be keyed)
 * @param watermarks how a source derives watermarks ({@link WatermarkStrategy#none()} otherwise)
 * @param capacity records per second each task may process (an emulated capacity for experiments,
 *     DESIGN §4.7), or 0 for no limit
 */
public record OperatorNode(
    OperatorId id,
    Kind kind,
    int parallelism,
    List<InputEdge> inputs,
    SourceSpec<?> source,
    OperatorFactory<?, ?> factory,
    boolean keyedState,
    WatermarkStrategy watermarks,
    double capacity) {

  /** What an operator is. */
  public enum Kind {
    SOURCE,
    TRANSFORM,
    SINK
  }

  public OperatorNode {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kind, "kind");
    inputs = List.copyOf(inputs);
    if ((kind == Kind.SOURCE) != (source != null)) {
      throw new IllegalArgumentException("operator " + id + ": a source spec goes with SOURCE");
    }
    if ((kind == Kind.SOURCE) != (factory == null)) {
      throw new IllegalArgumentException("operator " + id + ": non-sources need a factory");
    }
    watermarks = watermarks == null ? WatermarkStrategy.none() : watermarks;
    if (capacity < 0 || Double.isNaN(capacity) || Double.isInfinite(capacity)) {
      throw new IllegalArgumentException(
          "operator " + id + ": capacity must be positive and finite (or 0), got " + capacity);
    }
  }

  /** An operator without a capacity limit. */
  public OperatorNode(
      OperatorId id,
      Kind kind,
      int parallelism,
      List<InputEdge> inputs,
      SourceSpec<?> source,
      OperatorFactory<?, ?> factory,
      boolean keyedState,
      WatermarkStrategy watermarks) {
    this(id, kind, parallelism, inputs, source, factory, keyedState, watermarks, 0);
  }

  /** An operator, or a source without watermarks. */
  public OperatorNode(
      OperatorId id,
      Kind kind,
      int parallelism,
      List<InputEdge> inputs,
      SourceSpec<?> source,
      OperatorFactory<?, ?> factory,
      boolean keyedState) {
    this(id, kind, parallelism, inputs, source, factory, keyedState, WatermarkStrategy.none());
  }

  /** Whether any input is keyed. */
  public boolean hasKeyedInput() {
    return inputs.stream().anyMatch(e -> e.partitioning() == Partitioning.KEYED);
  }
}
