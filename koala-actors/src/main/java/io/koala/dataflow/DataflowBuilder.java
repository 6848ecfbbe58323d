package io.koala.dataflow;

import io.koala.connector.SourceSpec;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.KeySelector;
import io.koala.function.RecordErrorPolicy;
import io.koala.operator.OperatorFactory;
import io.koala.plan.InputEdge;
import io.koala.plan.LogicalPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.OperatorNode.Kind;
import io.koala.plan.Partitioning;
import io.koala.routing.Buckets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Defines a dataflow. Not thread-safe; defines nothing until {@link #build()}, which validates the
 * whole definition and throws {@link DataflowDefinitionException} naming the faulty operator.
 */
public final class DataflowBuilder {
  private final String name;
  private final List<Draft> drafts = new ArrayList<>();
  private final Set<Class<?>> types = new LinkedHashSet<>();
  private int defaultParallelism = 1;
  private int buckets = Buckets.DEFAULT_BUCKETS;
  private RecordErrorPolicy recordErrors = RecordErrorPolicy.fail();
  private boolean built;

  /** A node while it is being defined. */
  static final class Draft {
    final String name;
    final Kind kind;
    final SourceSpec<?> source;
    final OperatorFactory<?, ?> factory;
    final boolean keyedState;
    final List<DraftInput> inputs;
    Integer parallelism;
    WatermarkStrategy watermarks;
    double capacity;
    OperatorNode.CapacityChange capacityChange;
    String uid;

    /** A problem found while the node was defined, reported by {@link #build()}; null if none. */
    String definitionError;

    Draft(
        String name,
        Kind kind,
        SourceSpec<?> source,
        OperatorFactory<?, ?> factory,
        boolean keyedState,
        List<DraftInput> inputs) {
      this.name = name;
      this.kind = kind;
      this.source = source;
      this.factory = factory;
      this.keyedState = keyedState;
      this.inputs = List.copyOf(inputs);
    }
  }

  /**
   * An input edge while being defined: from the main output of {@code from} or its side output
   * {@code sideOutput}; keyed when it has a key selector, else forward or rebalance.
   */
  record DraftInput(
      Draft from, String sideOutput, KeySelector<?, ?> keySelector, int logicalInput) {}

  /** Where a stage's records come from: an operator's main output or one of its side outputs. */
  record Origin(Draft draft, String sideOutput) {}

  DataflowBuilder(String name) {
    this.name = name;
  }

  /** Parallelism of operators that do not set their own (default 1). */
  public DataflowBuilder parallelism(int parallelism) {
    this.defaultParallelism = parallelism;
    return this;
  }

  /** Number of buckets of keyed edges, fixed for the job's life (default 128). */
  public DataflowBuilder buckets(int buckets) {
    this.buckets = buckets;
    return this;
  }

  /**
   * What the job's tasks do with a record they cannot process (a function or key selector that
   * throws, a null or oversized key, an oversized record, one a source cannot deserialize): fail
   * the task (the default) or skip the record within a budget; see {@link RecordErrorPolicy}.
   */
  public DataflowBuilder onRecordError(RecordErrorPolicy policy) {
    this.recordErrors = Objects.requireNonNull(policy, "record error policy");
    return this;
  }

  /**
   * Registers classes that travel between tasks or live in state, so Koala's serializer (which
   * requires registration) can encode them. Classes of nested fields must be registered too.
   */
  public DataflowBuilder registerTypes(Class<?>... classes) {
    for (Class<?> c : classes) {
      types.add(Objects.requireNonNull(c));
    }
    return this;
  }

  /** Adds a source. Its parallelism defaults to {@code min(default parallelism, partitions)}. */
  public <T> Stage<T> source(SourceSpec<T> spec) {
    return source(spec, WatermarkStrategy.none());
  }

  /**
   * Adds a source whose partitions derive watermarks from record timestamps with {@code
   * watermarks}. Its parallelism defaults to {@code min(default parallelism, partitions)}.
   */
  public <T> Stage<T> source(SourceSpec<T> spec, WatermarkStrategy watermarks) {
    Objects.requireNonNull(spec, "source spec");
    Objects.requireNonNull(watermarks, "watermark strategy");
    Draft d = add(new Draft(spec.name(), Kind.SOURCE, spec, null, false, List.of()));
    d.watermarks = watermarks;
    return new Stage<>(this, List.of(new Origin(d, null)));
  }

  /** Adds an operator reading {@code inputs}; returns its output stage. */
  <R> Stage<R> addOperator(
      String name,
      Kind kind,
      OperatorFactory<?, ?> factory,
      boolean keyedState,
      List<DraftInput> inputs) {
    Draft d = add(new Draft(name, kind, null, factory, keyedState, inputs));
    return new Stage<>(this, List.of(new Origin(d, null)));
  }

  Draft add(Draft d) {
    if (built) {
      throw new IllegalStateException("dataflow '" + name + "' is already built");
    }
    drafts.add(d);
    return d;
  }

  /**
   * Validates the definition and returns the immutable dataflow.
   *
   * @throws DataflowDefinitionException naming the operator at fault
   */
  public Dataflow build() {
    List<OperatorNode> nodes = new ArrayList<>();
    for (Draft d : drafts) {
      if (d.name == null) {
        throw new DataflowDefinitionException(
            "an operator of kind " + d.kind + " has no name; every operator needs a unique name");
      }
      if (d.definitionError != null) {
        throw new DataflowDefinitionException(d.definitionError);
      }
      int p = parallelismOf(d);
      List<InputEdge> inputs = new ArrayList<>();
      for (DraftInput in : d.inputs) {
        Partitioning partitioning;
        if (in.keySelector() != null) {
          partitioning = Partitioning.KEYED;
        } else if (parallelismOf(in.from()) == p) {
          partitioning = Partitioning.FORWARD;
        } else {
          partitioning = Partitioning.REBALANCE;
        }
        inputs.add(
            new InputEdge(
                new OperatorId(in.from().name),
                partitioning,
                in.keySelector(),
                in.logicalInput(),
                in.sideOutput()));
      }
      nodes.add(
          new OperatorNode(
              new OperatorId(d.name),
              d.kind,
              p,
              inputs,
              d.source,
              d.factory,
              d.keyedState,
              d.watermarks,
              d.capacity,
              d.capacityChange,
              d.uid));
    }
    Dataflow dataflow =
        new Dataflow(LogicalPlan.of(name, nodes, buckets, List.copyOf(types), recordErrors));
    built = true;
    return dataflow;
  }

  private int parallelismOf(Draft d) {
    if (d.parallelism != null) {
      return d.parallelism;
    }
    if (d.kind == Kind.SOURCE) {
      return Math.min(defaultParallelism, d.source.maxParallelism());
    }
    return defaultParallelism;
  }
}
