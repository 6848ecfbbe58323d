package io.koala.plan;

import io.koala.function.KeySelector;
import io.koala.function.RecordErrorPolicy;
import io.koala.plan.OperatorNode.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The logical plan cut into vertices: chains of operators that run in one task and call each other
 * directly. An operator is chained to its input when the edge is forward, the parallelism is the
 * same, the input feeds nothing else and the operator has no other input; keyed edges always cut a
 * chain. A vertex is named by its head operator, and its tasks by {@link TaskId}.
 */
public final class ExecutionPlan {
  private final LogicalPlan logical;
  private final Map<OperatorId, Vertex> vertices;

  /** One input edge of a vertex's head operator, delivering to its {@code logicalInput}. */
  public record VertexInput(
      int index,
      OperatorId from,
      Partitioning partitioning,
      KeySelector<?, ?> keySelector,
      int logicalInput) {}

  /**
   * One output edge of a vertex's tail operator (its main output, or the side output {@code
   * sideOutput}): into input edge {@code inputIndex} of {@code to}.
   */
  public record VertexOutput(
      OperatorId to,
      int inputIndex,
      Partitioning partitioning,
      KeySelector<?, ?> keySelector,
      String sideOutput) {}

  /**
   * A chain of operators run by each of {@code parallelism} tasks, which treat a record they cannot
   * process as {@code recordErrors} says (the job's policy).
   */
  public record Vertex(
      OperatorId id,
      List<OperatorNode> chain,
      int parallelism,
      List<VertexInput> inputs,
      List<VertexOutput> outputs,
      RecordErrorPolicy recordErrors) {
    public Vertex {
      chain = List.copyOf(chain);
      inputs = List.copyOf(inputs);
      outputs = List.copyOf(outputs);
    }

    /**
     * Whether the vertex sends its dead letters on ({@link InputEdge#DEAD_LETTERS}): not on their
     * own way to their sink.
     */
    public boolean sendsDeadLetters() {
      for (VertexOutput o : outputs) {
        if (InputEdge.DEAD_LETTERS.equals(o.sideOutput())) {
          return true;
        }
      }
      return false;
    }

    /** The first operator of the chain. */
    public OperatorNode head() {
      return chain.get(0);
    }

    /** The last operator of the chain. */
    public OperatorNode tail() {
      return chain.get(chain.size() - 1);
    }

    /** Whether the chain starts with a source. */
    public boolean isSource() {
      return head().kind() == Kind.SOURCE;
    }

    /** Whether the head reads keyed input (and so owns buckets). */
    public boolean isKeyed() {
      return head().hasKeyedInput();
    }

    /** The task ids of this vertex. */
    public List<TaskId> tasks() {
      List<TaskId> out = new ArrayList<>(parallelism);
      for (int i = 0; i < parallelism; i++) {
        out.add(new TaskId(id, i));
      }
      return out;
    }

    /**
     * Whether an epoch can reconfigure this vertex while the job runs: its tasks read keyed input
     * (their state is partitioned by key), or it is a stage without keyed input that reads no
     * forward edge (its tasks keep no keyed state; records reach them round-robin, so any number of
     * tasks may read them), or a rescalable source that feeds no forward edge.
     */
    public boolean reconfigurable() {
      return whyNotReconfigurable() == null;
    }

    /**
     * Checks that this vertex can be reconfigured ({@link #reconfigurable}).
     *
     * @throws IllegalArgumentException saying why not
     */
    public void checkReconfigurable() {
      String why = whyNotReconfigurable();
      if (why != null) {
        throw new IllegalArgumentException(why);
      }
    }

    /** Why this vertex cannot be reconfigured ({@link #reconfigurable}), or null when it can. */
    public String whyNotReconfigurable() {
      if (isKeyed()) {
        return null;
      }
      if (isSource()) {
        if (!head().source().rescalable()) {
          return "operator '"
              + id()
              + "' is a source whose splits cannot move between its tasks while it runs (its"
              + " SourceSpec is not rescalable; an ingest source's handles stripe records over its"
              + " tasks); it keeps the parallelism it was deployed with";
        }
        for (VertexOutput out : outputs()) {
          if (out.partitioning() == Partitioning.FORWARD) {
            return "operator '"
                + id()
                + "' is a source with a forward edge to '"
                + out.to()
                + "' (each of its tasks feeds one task of '"
                + out.to()
                + "'); another parallelism would leave a task of '"
                + out.to()
                + "' without input or with two. Give '"
                + out.to()
                + "' a parallelism other than '"
                + id()
                + "''s in the dataflow, or key its input";
          }
        }
        return null;
      }
      for (VertexInput in : inputs()) {
        if (in.partitioning() == Partitioning.FORWARD) {
          return "operator '"
              + id()
              + "' reads a forward edge from '"
              + in.from()
              + "' (each of its tasks reads one task of '"
              + in.from()
              + "', in order); another parallelism would make that edge a rebalance and lose"
              + " that order. Give '"
              + id()
              + "' a parallelism other than '"
              + in.from()
              + "''s in the dataflow, so the edge is a rebalance, or key its input";
        }
      }
      return null;
    }
  }

  private ExecutionPlan(LogicalPlan logical, Map<OperatorId, Vertex> vertices) {
    this.logical = logical;
    this.vertices = vertices;
  }

  /** Cuts {@code plan} into chained vertices. */
  public static ExecutionPlan of(LogicalPlan plan) {
    Map<OperatorId, List<OperatorNode>> chains = new LinkedHashMap<>();
    for (OperatorNode n : plan.topologicalOrder()) {
      if (chainedToInput(plan, n)) {
        continue;
      }
      List<OperatorNode> chain = new ArrayList<>();
      OperatorNode cur = n;
      chain.add(cur);
      while (true) {
        List<OperatorNode> consumers = plan.consumers(cur.id());
        if (consumers.size() == 1 && chainedToInput(plan, consumers.get(0))) {
          cur = consumers.get(0);
          chain.add(cur);
        } else {
          break;
        }
      }
      chains.put(n.id(), chain);
    }
    Map<OperatorId, OperatorId> vertexOf = new LinkedHashMap<>();
    chains.forEach((head, chain) -> chain.forEach(op -> vertexOf.put(op.id(), head)));
    Map<OperatorId, Vertex> vertices = new LinkedHashMap<>();
    chains.forEach(
        (head, chain) -> {
          OperatorNode h = chain.get(0);
          OperatorNode tail = chain.get(chain.size() - 1);
          List<VertexInput> inputs = new ArrayList<>();
          for (int i = 0; i < h.inputs().size(); i++) {
            InputEdge e = h.inputs().get(i);
            inputs.add(
                new VertexInput(
                    i,
                    vertexOf.get(e.from()),
                    e.partitioning(),
                    e.keySelector(),
                    e.logicalInput()));
          }
          List<VertexOutput> outputs = new ArrayList<>();
          for (OperatorNode c : plan.topologicalOrder()) {
            for (int i = 0; i < c.inputs().size(); i++) {
              InputEdge e = c.inputs().get(i);
              if (e.from().equals(tail.id()) && !vertexOf.get(c.id()).equals(head)) {
                outputs.add(
                    new VertexOutput(c.id(), i, e.partitioning(), e.keySelector(), e.sideOutput()));
              }
            }
          }
          vertices.put(
              head, new Vertex(head, chain, h.parallelism(), inputs, outputs, plan.recordErrors()));
        });
    return new ExecutionPlan(plan, vertices);
  }

  private static boolean chainedToInput(LogicalPlan plan, OperatorNode n) {
    if (n.kind() == Kind.SOURCE || n.inputs().size() != 1) {
      return false;
    }
    InputEdge e = n.inputs().get(0);
    OperatorNode from = plan.node(e.from());
    return e.partitioning() == Partitioning.FORWARD
        && e.isMain()
        && from.parallelism() == n.parallelism()
        && plan.consumers(from.id()).size() == 1;
  }

  public LogicalPlan logical() {
    return logical;
  }

  /** Vertices in topological order. */
  public List<Vertex> vertices() {
    return List.copyOf(vertices.values());
  }

  /** The vertex headed by {@code id}. */
  public Vertex vertex(OperatorId id) {
    return Objects.requireNonNull(vertices.get(id), () -> "no vertex headed by " + id);
  }

  /** The vertex that runs operator {@code op}. */
  public Vertex vertexOf(OperatorId op) {
    for (Vertex v : vertices.values()) {
      for (OperatorNode n : v.chain()) {
        if (n.id().equals(op)) {
          return v;
        }
      }
    }
    throw new IllegalArgumentException("no operator named '" + op + "' in " + logical.name());
  }
}
