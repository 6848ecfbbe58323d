package io.koala.upgrade;

import io.koala.function.TypedKeySelector;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.InputEdge;
import io.koala.plan.OperatorNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a checkpoint records of the dataflow it was taken of: per operator its name and uid (the
 * stable identity its state is kept under: its name unless set), kind, parallelism, whether it
 * keeps keyed state, the vertex it is chained into, its inputs and the declared class of its keys.
 * Two dataflows with equal signatures deploy alike, so a checkpoint of one resumes the other as it
 * was (its live parallelism and moves included); otherwise {@link UpgradeCheck} decides whether the
 * state can be carried over.
 *
 * @param dataflow the dataflow's name
 * @param buckets the dataflow's number of buckets
 * @param operators every operator, in topological order
 */
public record PlanSignature(String dataflow, int buckets, List<Operator> operators) {

  public PlanSignature {
    operators = List.copyOf(operators);
  }

  /**
   * One operator.
   *
   * @param name its name
   * @param uid the identity its state is kept under (its name unless set)
   * @param kind {@code SOURCE}, {@code TRANSFORM} or {@code SINK}
   * @param parallelism the parallelism of the vertex it runs in, as the dataflow declares it
   * @param keyedState whether it keeps keyed state
   * @param vertex the name of the first operator of its chain
   * @param inputs each input edge as {@code from[.sideOutput] PARTITIONING input}
   * @param keyType the declared class of its keys (a keyed input's {@link TypedKeySelector}), or
   *     null when not declared
   */
  public record Operator(
      String name,
      String uid,
      String kind,
      int parallelism,
      boolean keyedState,
      String vertex,
      List<String> inputs,
      String keyType) {
    public Operator {
      inputs = List.copyOf(inputs);
    }

    /** How messages name it: its name, and its uid when that differs. */
    public String label() {
      return "'" + name + "'" + (uid.equals(name) ? "" : " (uid '" + uid + "')");
    }

    /** Whether it is a source. */
    public boolean isSource() {
      return OperatorNode.Kind.SOURCE.name().equals(kind);
    }

    /** Whether a checkpoint holds state of it: keyed state, or a source's read positions. */
    public boolean hasState() {
      return keyedState || isSource();
    }
  }

  /** The signature of {@code plan}. */
  public static PlanSignature of(ExecutionPlan plan) {
    List<Operator> out = new ArrayList<>();
    for (OperatorNode n : plan.logical().topologicalOrder()) {
      ExecutionPlan.Vertex v = plan.vertexOf(n.id());
      List<String> inputs = new ArrayList<>();
      for (InputEdge e : n.inputs()) {
        inputs.add(
            e.from().name()
                + (e.sideOutput() == null ? "" : "." + e.sideOutput())
                + " "
                + e.partitioning()
                + " "
                + e.logicalInput());
      }
      Class<?> keyType = n.declaredKeyType();
      out.add(
          new Operator(
              n.id().name(),
              n.uid(),
              n.kind().name(),
              v.parallelism(),
              n.keyedState(),
              v.id().name(),
              inputs,
              keyType == null ? null : keyType.getName()));
    }
    return new PlanSignature(plan.logical().name(), plan.logical().buckets(), out);
  }

  /** The operator whose uid is {@code uid}, if the dataflow has one. */
  public Optional<Operator> operator(String uid) {
    return operators.stream().filter(o -> o.uid().equals(uid)).findFirst();
  }

  /** The uids of the operators a checkpoint holds state of ({@link Operator#hasState}). */
  public List<String> withState() {
    return operators.stream().filter(Operator::hasState).map(Operator::uid).toList();
  }
}
