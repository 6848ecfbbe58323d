package io.koala.plan;

import io.koala.connector.SourceSpec;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.TypedKeySelector;
import io.koala.operator.OperatorFactory;
import java.util.List;
import java.util.Objects;

/**
 * One operator of a logical plan: a source (with its {@link SourceSpec}), or an operator created
 * per task by its {@link OperatorFactory} (sinks included). Immutable.
 *
 * @param keyedState whether the operator reads or writes keyed state (all its inputs must be keyed)
 * @param watermarks how a source derives watermarks ({@link WatermarkStrategy#none()} otherwise)
 * @param capacity records per second each task may process (an emulated capacity for experiments),
 *     or 0 for no limit
 * @param capacityChange the capacity from a time after the job's start on, or null: it keeps {@code
 *     capacity}
 * @param uid the identity the operator's state is kept under in checkpoints: its name unless set
 *     ({@code Stage.uid}), so that a renamed operator keeps its state across versions
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
    double capacity,
    CapacityChange capacityChange,
    String uid) {

  /**
   * An emulated capacity that changes during the run: {@code perSecond} records per second from
   * {@code atMillis} after the job's start on (an experiment's control run doubles its capacity at
   * the moment another run rescales, with no state to move).
   */
  public record CapacityChange(long atMillis, double perSecond) {
    public CapacityChange {
      if (atMillis < 0 || !(perSecond > 0) || Double.isInfinite(perSecond)) {
        throw new IllegalArgumentException(
            "a capacity change needs a time >= 0 and a positive, finite capacity, got "
                + perSecond
                + " at "
                + atMillis
                + " ms");
      }
    }
  }

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
    if (uid == null) {
      uid = id.name(); // checked as the operator's name
    } else if (!OperatorId.isValid(uid)) {
      throw new IllegalArgumentException(
          "operator " + id + ": uid '" + uid + "' is not valid (letters, digits, '.', '_', '-')");
    }
    if (capacity < 0 || Double.isNaN(capacity) || Double.isInfinite(capacity)) {
      throw new IllegalArgumentException(
          "operator " + id + ": capacity must be positive and finite (or 0), got " + capacity);
    }
    if (capacityChange != null && capacity == 0) {
      throw new IllegalArgumentException(
          "operator " + id + ": a capacity change needs a capacity to change");
    }
  }

  /** An operator whose state is kept under its name. */
  public OperatorNode(
      OperatorId id,
      Kind kind,
      int parallelism,
      List<InputEdge> inputs,
      SourceSpec<?> source,
      OperatorFactory<?, ?> factory,
      boolean keyedState,
      WatermarkStrategy watermarks,
      double capacity,
      CapacityChange capacityChange) {
    this(
        id,
        kind,
        parallelism,
        inputs,
        source,
        factory,
        keyedState,
        watermarks,
        capacity,
        capacityChange,
        null);
  }

  /** An operator whose capacity does not change. */
  public OperatorNode(
      OperatorId id,
      Kind kind,
      int parallelism,
      List<InputEdge> inputs,
      SourceSpec<?> source,
      OperatorFactory<?, ?> factory,
      boolean keyedState,
      WatermarkStrategy watermarks,
      double capacity) {
    this(id, kind, parallelism, inputs, source, factory, keyedState, watermarks, capacity, null);
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

  /**
   * The class its keyed inputs declared for their keys ({@code keyBy(selector, keyType)}; the first
   * that did), or null when none did.
   */
  public Class<?> declaredKeyType() {
    for (InputEdge e : inputs) {
      if (e.keySelector() instanceof TypedKeySelector<?, ?> t) {
        return t.keyType();
      }
    }
    return null;
  }
}
