package io.koala.deploy;

import io.koala.coordinator.WorkerPool;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.TaskSetup;
import io.koala.routing.RoutingTable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The coordinator's view of a running job's deployment: every task's setup (channels, routing), the
 * worker each runs on, the live tasks of each vertex, the highest task index ever used (indices are
 * never reused), the retired tasks that stay holders of state, and the next free channel id.
 *
 * <p>An immutable value: a reconfiguration, a relocation or the channels an epoch takes give a new
 * one ({@link #withNewTasks}, {@link #withSetups}, {@link #withRetired}, {@link #relocated}, {@link
 * #withChannelsFrom}), each checking what it changes and the whole value's invariants, so that a
 * checkpoint keeps the value itself and a rollback goes on from it. Pure.
 */
public final class LiveDeployment {
  private final ExecutionPlan plan;
  private final Map<TaskId, TaskSetup> setups;
  private final Map<TaskId, Integer> placement;
  private final Map<OperatorId, SortedSet<Integer>> live;
  private final Map<OperatorId, Integer> highest;
  private final List<TaskId> retired;
  private final int nextChannel;

  private LiveDeployment(
      ExecutionPlan plan,
      Map<TaskId, TaskSetup> setups,
      Map<TaskId, Integer> placement,
      Map<OperatorId, ? extends SortedSet<Integer>> live,
      Map<OperatorId, Integer> highest,
      List<TaskId> retired,
      int nextChannel) {
    this.plan = plan;
    this.setups = Collections.unmodifiableMap(new LinkedHashMap<>(setups));
    this.placement = Collections.unmodifiableMap(new LinkedHashMap<>(placement));
    Map<OperatorId, SortedSet<Integer>> liveCopy = new HashMap<>();
    live.forEach(
        (op, tasks) -> liveCopy.put(op, Collections.unmodifiableSortedSet(new TreeSet<>(tasks))));
    this.live = Collections.unmodifiableMap(liveCopy);
    this.highest = Map.copyOf(highest);
    this.retired = List.copyOf(retired);
    this.nextChannel = nextChannel;
    checkInvariants();
  }

  /**
   * Every task has a worker and every placed task a setup; a live task has a setup, is not retired
   * and its index is at most the highest; every channel a setup reads is below the next free one.
   */
  private void checkInvariants() {
    Set<TaskId> retiredTasks = Set.copyOf(retired);
    if (!placement.keySet().equals(setups.keySet())) {
      throw new IllegalStateException(
          "deployment: the placed tasks "
              + placement.keySet()
              + " are not the tasks set up "
              + setups.keySet());
    }
    live.forEach(
        (op, tasks) -> {
          for (int i : tasks) {
            TaskId t = new TaskId(op, i);
            if (!setups.containsKey(t)
                || retiredTasks.contains(t)
                || i > highest.getOrDefault(op, -1)) {
              throw new IllegalStateException(
                  "deployment: live task "
                      + t
                      + " is not set up, is retired, or is above the highest index");
            }
          }
        });
    for (TaskSetup s : setups.values()) {
      int highestChannel = s.clientChannel();
      for (TaskSetup.InputSpec in : s.inputs()) {
        highestChannel = Math.max(highestChannel, in.channel());
      }
      if (highestChannel >= nextChannel) {
        throw new IllegalStateException(
            "deployment: task "
                + s.task()
                + " reads channel "
                + highestChannel
                + ", not below the next free "
                + nextChannel);
      }
    }
  }

  /** The deployment a job starts with. */
  public static LiveDeployment of(ExecutionPlan plan, DeploymentPlan initial) {
    Map<OperatorId, TreeSet<Integer>> live = new HashMap<>();
    Map<OperatorId, Integer> highest = new HashMap<>();
    int maxChannel = -1;
    for (TaskSetup s : initial.setups().values()) {
      live.computeIfAbsent(s.task().operator(), k -> new TreeSet<>()).add(s.task().index());
      highest.merge(s.task().operator(), s.task().index(), Math::max);
      maxChannel = Math.max(maxChannel, s.clientChannel());
      for (TaskSetup.InputSpec in : s.inputs()) {
        maxChannel = Math.max(maxChannel, in.channel());
      }
    }
    return new LiveDeployment(
        plan, initial.setups(), initial.placement(), live, highest, List.of(), maxChannel + 1);
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

  /**
   * The deployment {@code image} describes, of {@code plan}.
   *
   * @throws IllegalStateException when the image breaks the deployment's invariants
   */
  public static LiveDeployment restore(ExecutionPlan plan, Image image) {
    Map<TaskId, TaskSetup> setups = new LinkedHashMap<>();
    for (TaskSetup s : image.setups()) {
      setups.put(s.task(), s);
    }
    Map<OperatorId, TreeSet<Integer>> live = new HashMap<>();
    image.live().forEach((op, tasks) -> live.put(op, new TreeSet<>(tasks)));
    return new LiveDeployment(
        plan,
        setups,
        image.placement(),
        live,
        image.highest(),
        image.retired(),
        image.nextChannel());
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
    return setups;
  }

  /** The live task indices of vertex {@code vertex}, ascending. */
  public int[] liveTasks(OperatorId vertex) {
    return live.getOrDefault(vertex, Collections.emptySortedSet()).stream()
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

  /** Tasks removed by reconfigurations; they stay as holders of the state they had. */
  public List<TaskId> retired() {
    return retired;
  }

  /** The first channel id no task has been given. */
  public int nextChannel() {
    return nextChannel;
  }

  /** The vertex of {@code task}. */
  public Vertex vertex(TaskId task) {
    return plan.vertex(task.operator());
  }

  // ---------------------------------------------------------------- changes

  /**
   * This deployment with tasks placed on other workers ({@code moves}: task → worker), as after the
   * loss of the worker they ran on ({@link WorkerPool#replacements}). Their setups stay: tasks
   * reach each other through the address book of the deployment, not through placement.
   *
   * @throws IllegalArgumentException when a task moved is not in the deployment
   */
  public LiveDeployment relocated(Map<TaskId, Integer> moves) {
    Map<TaskId, Integer> next = new LinkedHashMap<>(placement);
    moves.forEach(
        (task, worker) -> {
          if (!placement.containsKey(task)) {
            throw new IllegalArgumentException("no task " + task);
          }
          next.put(task, worker);
        });
    return new LiveDeployment(plan, setups, next, live, highest, retired, nextChannel);
  }

  /**
   * This deployment with the channel ids below {@code next} taken (an epoch's new channels).
   *
   * @throws IllegalArgumentException when {@code next} is below the next free channel now
   */
  public LiveDeployment withChannelsFrom(int next) {
    if (next < nextChannel) {
      throw new IllegalArgumentException(
          "channels are taken up to " + nextChannel + ", not only up to " + next);
    }
    return new LiveDeployment(plan, setups, placement, live, highest, retired, next);
  }

  /**
   * This deployment with new live tasks, set up by {@code added} and placed by {@code workers}.
   *
   * @throws IllegalArgumentException when a task is already in the deployment, or has no worker
   */
  public LiveDeployment withNewTasks(Collection<TaskSetup> added, Map<TaskId, Integer> workers) {
    Map<TaskId, TaskSetup> nextSetups = new LinkedHashMap<>(setups);
    Map<TaskId, Integer> nextPlacement = new LinkedHashMap<>(placement);
    Map<OperatorId, TreeSet<Integer>> nextLive = new HashMap<>();
    live.forEach((op, tasks) -> nextLive.put(op, new TreeSet<>(tasks)));
    Map<OperatorId, Integer> nextHighest = new HashMap<>(highest);
    for (TaskSetup s : added) {
      Integer worker = workers.get(s.task());
      if (setups.containsKey(s.task()) || worker == null) {
        throw new IllegalArgumentException(
            "new task " + s.task() + " is in the deployment already, or has no worker");
      }
      nextSetups.put(s.task(), s);
      nextPlacement.put(s.task(), worker);
      nextLive.computeIfAbsent(s.task().operator(), k -> new TreeSet<>()).add(s.task().index());
      nextHighest.merge(s.task().operator(), s.task().index(), Math::max);
    }
    return new LiveDeployment(
        plan, nextSetups, nextPlacement, nextLive, nextHighest, retired, nextChannel);
  }

  /**
   * This deployment with the setups of tasks it has replaced by {@code changed}.
   *
   * @throws IllegalArgumentException when a task is not in the deployment
   */
  public LiveDeployment withSetups(Collection<TaskSetup> changed) {
    Map<TaskId, TaskSetup> next = new LinkedHashMap<>(setups);
    for (TaskSetup s : changed) {
      if (next.put(s.task(), s) == null) {
        throw new IllegalArgumentException("no task " + s.task());
      }
    }
    return new LiveDeployment(plan, next, placement, live, highest, retired, nextChannel);
  }

  /**
   * This deployment with live tasks retired: they stay in it as holders of the state they had.
   *
   * @throws IllegalArgumentException when a task is not live
   */
  public LiveDeployment withRetired(Collection<TaskId> tasks) {
    Map<OperatorId, TreeSet<Integer>> nextLive = new HashMap<>();
    live.forEach((op, indices) -> nextLive.put(op, new TreeSet<>(indices)));
    List<TaskId> nextRetired = new ArrayList<>(retired);
    for (TaskId t : tasks) {
      TreeSet<Integer> indices = nextLive.get(t.operator());
      if (indices == null || !indices.remove(t.index())) {
        throw new IllegalArgumentException("task " + t + " is not live");
      }
      nextRetired.add(t);
    }
    return new LiveDeployment(plan, setups, placement, nextLive, highest, nextRetired, nextChannel);
  }
}
