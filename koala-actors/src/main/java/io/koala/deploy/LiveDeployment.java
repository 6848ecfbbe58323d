package io.koala.deploy;

import io.koala.coordinator.WorkerPool;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.TaskSetup;
import io.koala.routing.RoutingTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The coordinator's view of a running job's deployment, updated by each reconfiguration: every
 * task's setup (channels, routing), the live tasks of each vertex, the highest task index ever used
 * (indices are never reused), the retired tasks that stay holders of state, and the next free
 * channel id. Pure.
 */
public final class LiveDeployment {
  private final ExecutionPlan plan;
  private final Map<TaskId, TaskSetup> setups;
  private final Map<TaskId, Integer> placement;
  private final Map<OperatorId, TreeSet<Integer>> live = new HashMap<>();
  private final Map<OperatorId, Integer> highest = new HashMap<>();
  private final List<TaskId> retired = new ArrayList<>();
  private int nextChannel;

  private LiveDeployment(ExecutionPlan plan, DeploymentPlan initial) {
    this.plan = plan;
    this.setups = new LinkedHashMap<>(initial.setups());
    this.placement = new LinkedHashMap<>(initial.placement());
    int maxChannel = -1;
    for (TaskSetup s : setups.values()) {
      live.computeIfAbsent(s.task().operator(), k -> new TreeSet<>()).add(s.task().index());
      highest.merge(s.task().operator(), s.task().index(), Math::max);
      maxChannel = Math.max(maxChannel, s.clientChannel());
      for (TaskSetup.InputSpec in : s.inputs()) {
        maxChannel = Math.max(maxChannel, in.channel());
      }
    }
    this.nextChannel = maxChannel + 1;
  }

  private LiveDeployment(LiveDeployment other) {
    this.plan = other.plan;
    this.setups = new LinkedHashMap<>(other.setups);
    this.placement = new LinkedHashMap<>(other.placement);
    other.live.forEach((op, tasks) -> live.put(op, new TreeSet<>(tasks)));
    this.highest.putAll(other.highest);
    this.retired.addAll(other.retired);
    this.nextChannel = other.nextChannel;
  }

  /** An independent copy: what a checkpoint keeps, and a rollback goes on from. */
  public LiveDeployment copy() {
    return new LiveDeployment(this);
  }

  /**
   * The deployment as plain values, for a checkpoint's durable metadata; {@link #restore} rebuilds
   * it with the job's plan (which is code, and does not travel).
   */
  public record Image(
      List<TaskSetup> setups,
      Map<TaskId, Integer> placement,
      Map<OperatorId, List<Integer>> live,
      Map<OperatorId, Integer> highest,
      List<TaskId> retired,
      int nextChannel)
      implements io.koala.protocol.KoalaMessage {
    public Image {
      setups = new ArrayList<>(setups);
      placement = new LinkedHashMap<>(placement);
      live = new HashMap<>(live);
      highest = new HashMap<>(highest);
      retired = new ArrayList<>(retired);
    }

    /** This deployment as job {@code id}'s (a checkpoint of one job restored as another's). */
    public Image withJobId(String id) {
      return new Image(
          setups.stream().map(s -> s.withJobId(id)).toList(),
          placement,
          live,
          highest,
          retired,
          nextChannel);
    }
  }

  /** This deployment as an {@link Image}. */
  public Image image() {
    Map<OperatorId, List<Integer>> liveIndices = new HashMap<>();
    live.forEach((op, tasks) -> liveIndices.put(op, new ArrayList<>(tasks)));
    return new Image(
        new ArrayList<>(setups.values()), placement, liveIndices, highest, retired, nextChannel);
  }

  /** The deployment {@code image} describes, of {@code plan}. */
  public static LiveDeployment restore(ExecutionPlan plan, Image image) {
    LiveDeployment d = new LiveDeployment(plan, image);
    return d;
  }

  private LiveDeployment(ExecutionPlan plan, Image image) {
    this.plan = plan;
    this.setups = new LinkedHashMap<>();
    for (TaskSetup s : image.setups()) {
      setups.put(s.task(), s);
    }
    this.placement = new LinkedHashMap<>(image.placement());
    image.live().forEach((op, tasks) -> live.put(op, new TreeSet<>(tasks)));
    this.highest.putAll(image.highest());
    this.retired.addAll(image.retired());
    this.nextChannel = image.nextChannel();
  }

  /** The deployment a job starts with. */
  public static LiveDeployment of(ExecutionPlan plan, DeploymentPlan initial) {
    return new LiveDeployment(plan, initial);
  }

  public ExecutionPlan plan() {
    return plan;
  }

  /** The current setup of a task. */
  public TaskSetup setup(TaskId task) {
    TaskSetup s = setups.get(task);
    if (s == null) {
      throw new IllegalArgumentException("no task " + task);
    }
    return s;
  }

  /** Every task's current setup, retired ones included. */
  public Map<TaskId, TaskSetup> setups() {
    return java.util.Collections.unmodifiableMap(setups);
  }

  /** The live task indices of vertex {@code vertex}, ascending. */
  public int[] liveTasks(OperatorId vertex) {
    return live.getOrDefault(vertex, new TreeSet<>()).stream()
        .mapToInt(Integer::intValue)
        .toArray();
  }

  /** The live tasks of {@code vertex}. */
  public List<TaskId> liveTaskIds(OperatorId vertex) {
    List<TaskId> out = new ArrayList<>();
    for (int i : liveTasks(vertex)) {
      out.add(new TaskId(vertex, i));
    }
    return out;
  }

  /** The highest task index {@code vertex} ever used. */
  public int highestIndex(OperatorId vertex) {
    return highest.getOrDefault(vertex, -1);
  }

  /**
   * The routing table of the keyed input of {@code vertex}, or null when it reads no keyed input
   * (it owns no buckets; a source's setups list its tasks by the slots of its splits instead).
   */
  public RoutingTable routing(OperatorId vertex) {
    if (plan().vertex(vertex).isSource()) {
      return null;
    }
    TaskId any = liveTaskIds(vertex).get(0);
    List<Integer> owners = setup(any).inputRouting();
    return owners.isEmpty()
        ? null
        : RoutingTable.of(owners.stream().mapToInt(Integer::intValue).toArray());
  }

  /** The worker a task runs on. */
  public int placement(TaskId task) {
    return placement.get(task);
  }

  /**
   * Places tasks on other workers ({@code moves}: task → worker), as after the loss of the worker
   * they ran on ({@link WorkerPool#replacements}). Their setups stay: tasks reach each other
   * through the address book of the deployment, not through placement.
   */
  public void relocate(Map<TaskId, Integer> moves) {
    moves.forEach(
        (task, worker) -> {
          if (!placement.containsKey(task)) {
            throw new IllegalArgumentException("no task " + task);
          }
          placement.put(task, worker);
        });
  }

  /** Tasks removed by reconfigurations; they stay as holders of the state they had. */
  public List<TaskId> retired() {
    return List.copyOf(retired);
  }

  /** A fresh channel id. */
  public int newChannel() {
    return nextChannel++;
  }

  /** The vertex of {@code task}. */
  public Vertex vertex(TaskId task) {
    return plan.vertex(task.operator());
  }

  // ---------------------------------------------------------------- changes (by EpochDriver)

  public void put(TaskSetup setup, int worker) {
    boolean added = setups.put(setup.task(), setup) == null;
    if (added) {
      placement.put(setup.task(), worker);
      live.computeIfAbsent(setup.task().operator(), k -> new TreeSet<>()).add(setup.task().index());
      highest.merge(setup.task().operator(), setup.task().index(), Math::max);
    }
  }

  public void retire(TaskId task) {
    live.get(task.operator()).remove(task.index());
    retired.add(task);
  }
}
