package io.koala.dataflow;

import io.koala.connector.SourceSpec;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.DeadLetter;
import io.koala.function.KeySelector;
import io.koala.function.RecordErrorPolicy;
import io.koala.operator.OperatorFactory;
import io.koala.plan.ExecutionPlan;
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
  private Draft deadLetters; // what deadLetters() stages read; null: never asked for
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
   * The job's dead letters ({@link RecordErrorPolicy#deadLetter}): each record a task could not
   * process, as a {@link DeadLetter}, from every operator but those on the dead letters' own way to
   * their sink. Send it to a sink, through operators of its own if need be; it cannot be unioned or
   * joined with the job's other stages. A key selector of its own ({@code keyBy} on it) runs where
   * a dead letter is sent: one that fails there fails that task.
   */
  public Stage<DeadLetter> deadLetters() {
    if (deadLetters == null) {
      deadLetters = new Draft(InputEdge.DEAD_LETTERS, Kind.TRANSFORM, null, null, false, List.of());
      types.add(DeadLetter.class); // they travel between tasks
    }
    return new Stage<>(this, List.of(new Origin(deadLetters, InputEdge.DEAD_LETTERS)));
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
    for (Draft d : drafts) {
      if (d.name == null) {
        throw new DataflowDefinitionException(
            "an operator of kind " + d.kind + " has no name; every operator needs a unique name");
      }
      if (d.definitionError != null) {
        throw new DataflowDefinitionException(d.definitionError);
      }
    }
    Set<Draft> deadLetterWay = deadLetterWay();
    List<OperatorNode> nodes = new ArrayList<>();
    for (Draft d : drafts) {
      if (!deadLetterWay.contains(d)) {
        nodes.add(node(d, List.of()));
      }
    }
    if (!deadLetterWay.isEmpty()) {
      // every vertex's tail sends its dead letters: the vertices as the job's other operators cut
      // them, which an edge to the dead letters' way (never chained: it rebalances) leaves alone
      List<OperatorId> tails = new ArrayList<>();
      LogicalPlan others = LogicalPlan.of(name, nodes, buckets, List.copyOf(types), recordErrors);
      for (ExecutionPlan.Vertex v : ExecutionPlan.of(others).vertices()) {
        tails.add(v.tail().id());
      }
      for (Draft d : drafts) {
        if (deadLetterWay.contains(d)) {
          nodes.add(node(d, tails));
        }
      }
    }
    Dataflow dataflow =
        new Dataflow(LogicalPlan.of(name, nodes, buckets, List.copyOf(types), recordErrors));
    built = true;
    return dataflow;
  }

  /**
   * The operators on the dead letters' way to their sink: those reading {@link #deadLetters()}, and
   * every operator after them. Checks that they read nothing else, and that the dead letters are
   * read exactly when the policy sends records there.
   */
  private Set<Draft> deadLetterWay() {
    Set<Draft> way = new LinkedHashSet<>();
    for (Draft d : drafts) { // in the order defined: inputs first
      boolean reads = false;
      Draft other = null;
      for (DraftInput in : d.inputs) {
        if (in.from() == deadLetters || way.contains(in.from())) {
          reads = true;
        } else {
          other = in.from();
        }
      }
      if (reads && other != null) {
        throw new DataflowDefinitionException(
            "operator '"
                + d.name
                + "' reads the dead letters and operator '"
                + other.name
                + "': the dead letters go their own way to a sink, unioned or joined with no other"
                + " stage");
      }
      if (reads) {
        way.add(d);
      }
    }
    if (recordErrors.deadLetters() && way.isEmpty()) {
      throw new DataflowDefinitionException(
          "dataflow '"
              + name
              + "' sends records it cannot process to its dead letters ("
              + recordErrors
              + "), but no operator reads deadLetters(): send them to a sink");
    }
    if (!recordErrors.deadLetters() && !way.isEmpty()) {
      throw new DataflowDefinitionException(
          "operator '"
              + way.iterator().next().name
              + "' reads deadLetters(), but the record error policy is "
              + recordErrors
              + ", which sends none: set onRecordError(RecordErrorPolicy.deadLetter(n))");
    }
    return way;
  }

  /**
   * The node of {@code d}; its inputs from {@link #deadLetters()} are an edge from each of {@code
   * tails}.
   */
  private OperatorNode node(Draft d, List<OperatorId> tails) {
    int p = parallelismOf(d);
    List<InputEdge> inputs = new ArrayList<>();
    boolean readsDeadLetters = false;
    for (DraftInput in : d.inputs) {
      if (in.from() == deadLetters) {
        if (readsDeadLetters) {
          throw new DataflowDefinitionException(
              "operator '" + d.name + "' reads deadLetters() twice: each would come twice");
        }
        readsDeadLetters = true;
        Partitioning partitioning =
            in.keySelector() != null ? Partitioning.KEYED : Partitioning.REBALANCE;
        for (OperatorId tail : tails) {
          inputs.add(
              new InputEdge(
                  tail, partitioning, in.keySelector(), in.logicalInput(), InputEdge.DEAD_LETTERS));
        }
        continue;
      }
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
    return new OperatorNode(
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
        d.uid);
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
