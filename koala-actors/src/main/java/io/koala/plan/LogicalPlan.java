package io.koala.plan;

import io.koala.function.DataflowDefinitionException;
import io.koala.function.RecordErrorPolicy;
import io.koala.plan.OperatorNode.Kind;
import io.koala.store.KeyLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The immutable, validated graph of a dataflow: operators in definition order and their input
 * edges. Construction validates everything that can be checked before running ({@link #of}), so a
 * definition error never surfaces at the first record.
 */
public final class LogicalPlan {
  private final String name;
  private final Map<OperatorId, OperatorNode> nodes;
  private final int buckets;
  private final List<Class<?>> types;
  private final List<OperatorNode> topological;
  private final RecordErrorPolicy recordErrors;

  private LogicalPlan(
      String name,
      Map<OperatorId, OperatorNode> nodes,
      int buckets,
      List<Class<?>> types,
      RecordErrorPolicy recordErrors) {
    this.name = name;
    this.nodes = nodes;
    this.buckets = buckets;
    this.types = types;
    this.topological = topologicalOrder(nodes);
    this.recordErrors = recordErrors;
  }

  /**
   * Validates and builds a plan.
   *
   * @param types classes the dataflow's records and state use, registered with the serializer
   * @throws DataflowDefinitionException naming the operator at fault
   */
  public static LogicalPlan of(
      String name, List<OperatorNode> nodes, int buckets, List<Class<?>> types) {
    return of(name, nodes, buckets, types, RecordErrorPolicy.fail());
  }

  /**
   * Validates and builds a plan whose tasks treat a record they cannot process as {@code
   * recordErrors} says.
   *
   * @throws DataflowDefinitionException naming the operator at fault
   */
  public static LogicalPlan of(
      String name,
      List<OperatorNode> nodes,
      int buckets,
      List<Class<?>> types,
      RecordErrorPolicy recordErrors) {
    Objects.requireNonNull(recordErrors, "record error policy");
    if (name == null || name.isBlank()) {
      throw new DataflowDefinitionException("a dataflow needs a non-blank name");
    }
    if (buckets < 1 || buckets > KeyLayout.MAX_BUCKETS) {
      throw new DataflowDefinitionException(
          "dataflow '"
              + name
              + "': bucket count "
              + buckets
              + " outside [1, "
              + KeyLayout.MAX_BUCKETS
              + "]");
    }
    Map<OperatorId, OperatorNode> byId = new LinkedHashMap<>();
    for (OperatorNode n : nodes) {
      if (!OperatorId.isValid(n.id().name())) {
        throw new DataflowDefinitionException(
            "operator name '"
                + n.id().name()
                + "' is invalid: use 1-64 letters, digits, '.', '_' or '-', starting with a letter"
                + " or digit");
      }
      if (byId.putIfAbsent(n.id(), n) != null) {
        throw new DataflowDefinitionException(
            "operator name '" + n.id() + "' is used twice; operator names must be unique");
      }
    }
    Map<String, OperatorId> byUid = new LinkedHashMap<>();
    for (OperatorNode n : nodes) {
      OperatorId other = byUid.putIfAbsent(n.uid(), n.id());
      if (other != null) {
        throw new DataflowDefinitionException(
            "operators '"
                + other
                + "' and '"
                + n.id()
                + "' have the same uid '"
                + n.uid()
                + "' (an operator's uid is its name unless Stage.uid sets it); uids must be"
                + " unique");
      }
    }
    if (byId.values().stream().noneMatch(n -> n.kind() == Kind.SOURCE)) {
      throw new DataflowDefinitionException("dataflow '" + name + "' has no source");
    }
    Map<OperatorId, Integer> consumerCount = new HashMap<>();
    for (OperatorNode n : byId.values()) {
      checkNode(n, byId, buckets);
      for (InputEdge e : n.inputs()) {
        consumerCount.merge(e.from(), 1, Integer::sum);
      }
    }
    for (OperatorNode n : byId.values()) {
      if (n.kind() != Kind.SINK && !consumerCount.containsKey(n.id())) {
        throw new DataflowDefinitionException(
            "operator '"
                + n.id()
                + "' has no downstream operator: end every branch with a sink"
                + " (SinkSpec.discarding(...) drops records)");
      }
    }
    return new LogicalPlan(name, byId, buckets, List.copyOf(types), recordErrors);
  }

  private static void checkNode(OperatorNode n, Map<OperatorId, OperatorNode> byId, int buckets) {
    String op = "operator '" + n.id() + "'";
    if (n.parallelism() < 1 || n.parallelism() > buckets) {
      throw new DataflowDefinitionException(
          op
              + ": parallelism "
              + n.parallelism()
              + " outside [1, "
              + buckets
              + "] (the number of buckets bounds every operator's parallelism)");
    }
    if (n.kind() == Kind.SOURCE) {
      if (!n.inputs().isEmpty()) {
        throw new DataflowDefinitionException(op + ": a source cannot have inputs");
      }
      if (n.parallelism() > n.source().maxParallelism()) {
        throw new DataflowDefinitionException(
            op
                + ": parallelism "
                + n.parallelism()
                + " exceeds its "
                + n.source().maxParallelism()
                + " partitions; tasks without a partition would idle");
      }
      return;
    }
    if (n.inputs().isEmpty()) {
      throw new DataflowDefinitionException(op + " has no input");
    }
    for (InputEdge e : n.inputs()) {
      OperatorNode from = byId.get(e.from());
      if (from == null) {
        throw new DataflowDefinitionException(
            op + " reads from unknown operator '" + e.from() + "'");
      }
      if (from.kind() == Kind.SINK && !InputEdge.DEAD_LETTERS.equals(e.sideOutput())) {
        // a sink's chain sends dead letters of the operators before it, nothing else
        throw new DataflowDefinitionException(
            op + " reads from sink '" + e.from() + "'; sinks have no output");
      }
      if (e.partitioning() == Partitioning.FORWARD && from.parallelism() != n.parallelism()) {
        throw new DataflowDefinitionException(
            op
                + ": a forward edge from '"
                + e.from()
                + "' needs equal parallelism, got "
                + from.parallelism()
                + " and "
                + n.parallelism());
      }
      if (n.keyedState() && e.partitioning() != Partitioning.KEYED) {
        throw new DataflowDefinitionException(
            op
                + " uses keyed state but its input from '"
                + e.from()
                + "' is not keyed; call keyBy(...) before it");
      }
    }
  }

  private static List<OperatorNode> topologicalOrder(Map<OperatorId, OperatorNode> nodes) {
    Map<OperatorId, Integer> indegree = new HashMap<>();
    Map<OperatorId, List<OperatorId>> consumers = new HashMap<>();
    for (OperatorNode n : nodes.values()) {
      indegree.putIfAbsent(n.id(), 0);
      for (InputEdge e : n.inputs()) {
        indegree.merge(n.id(), 1, Integer::sum);
        consumers.computeIfAbsent(e.from(), k -> new ArrayList<>()).add(n.id());
      }
    }
    Deque<OperatorId> ready = new ArrayDeque<>();
    for (OperatorNode n : nodes.values()) {
      if (indegree.get(n.id()) == 0) {
        ready.add(n.id());
      }
    }
    List<OperatorNode> order = new ArrayList<>();
    while (!ready.isEmpty()) {
      OperatorId id = ready.poll();
      order.add(nodes.get(id));
      for (OperatorId c : consumers.getOrDefault(id, List.of())) {
        if (indegree.merge(c, -1, Integer::sum) == 0) {
          ready.add(c);
        }
      }
    }
    if (order.size() != nodes.size()) {
      List<String> cyclic = new ArrayList<>();
      for (OperatorNode n : nodes.values()) {
        if (indegree.get(n.id()) > 0) {
          cyclic.add(n.id().name());
        }
      }
      throw new DataflowDefinitionException(
          "the dataflow has a cycle through operators " + cyclic + "; dataflows must be acyclic");
    }
    return List.copyOf(order);
  }

  /** What the job's tasks do with a record they cannot process. */
  public RecordErrorPolicy recordErrors() {
    return recordErrors;
  }

  public String name() {
    return name;
  }

  /** Number of buckets of every keyed edge. */
  public int buckets() {
    return buckets;
  }

  /** Classes to register with the serializer. */
  public List<Class<?>> types() {
    return types;
  }

  /** Every operator, sources first, each after all its inputs. */
  public List<OperatorNode> topologicalOrder() {
    return topological;
  }

  /** The operator named {@code id}. */
  public OperatorNode node(OperatorId id) {
    return Objects.requireNonNull(nodes.get(id), () -> "no operator " + id);
  }

  /** Whether an operator named {@code id} exists. */
  public boolean contains(OperatorId id) {
    return nodes.containsKey(id);
  }

  /** The operators reading from {@code id}, once per edge, in definition order. */
  public List<OperatorNode> consumers(OperatorId id) {
    List<OperatorNode> out = new ArrayList<>();
    for (OperatorNode n : nodes.values()) {
      for (InputEdge e : n.inputs()) {
        if (e.from().equals(id)) {
          out.add(n);
        }
      }
    }
    return out;
  }
}
