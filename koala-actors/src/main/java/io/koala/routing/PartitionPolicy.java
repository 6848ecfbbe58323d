package io.koala.routing;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.TreeMap;

/**
 * Decides which task owns each bucket of a keyed operator, given the operator's live task indices
 * (logical, never reused, so not necessarily contiguous). Pure and deterministic.
 *
 * <ul>
 *   <li>{@link #even()} (default): contiguous ranges at first; a scale-out gives the new tasks
 *       buckets taken one at a time from the most loaded existing tasks; a scale-in gives only the
 *       removed tasks' buckets to the least loaded tasks. Nothing moves between tasks that stay,
 *       except to feed new tasks.
 *   <li>{@link #consistentHashing()}: a token ring with 64 virtual nodes per task.
 *   <li>{@link #explicit(int[])}: a bucket → task map given by the caller (skew mitigation).
 *   <li>{@link #loadAware(double[])}: balances measured bucket loads over the tasks, moving as few
 *       buckets as it can (skew mitigation, and the autoscaler's rescales).
 * </ul>
 */
public interface PartitionPolicy {

  /**
   * The routing table for {@code tasks}.
   *
   * @param current the table before the change, or {@code null} for a first deployment
   * @param tasks the live task indices after the change, ascending, at least one
   */
  RoutingTable assign(RoutingTable current, int[] tasks, int buckets);

  /** The default policy. */
  static PartitionPolicy even() {
    return new Even();
  }

  /** Consistent hashing over a token ring. */
  static PartitionPolicy consistentHashing() {
    return new ConsistentHashing();
  }

  /** The given bucket → task index map; every owner must be one of the live tasks. */
  static PartitionPolicy explicit(int[] owners) {
    return new Explicit(owners);
  }

  /**
   * Balances {@code loads} (by bucket: records per second, or busy time, measured by the runtime)
   * over the tasks, moving as few buckets as it can: the buckets of removed tasks go, heaviest
   * first, to the least loaded task; then, while the busiest task is more than 1% above the mean,
   * the bucket of the busiest task whose load is nearest half the gap moves to the least loaded
   * task, as long as that lowers the busiest; a task left with no bucket takes the lightest bucket
   * of the task with the most. With no load measured (all zero), it is {@link #even()}.
   *
   * @param loads the load of every bucket, not negative
   */
  static PartitionPolicy loadAware(double[] loads) {
    return new LoadAware(loads);
  }

  /** See {@link #loadAware(double[])}. */
  record LoadAware(double[] loads) implements PartitionPolicy {
    public LoadAware {
      loads = loads.clone();
      for (int b = 0; b < loads.length; b++) {
        if (!(loads[b] >= 0) || Double.isInfinite(loads[b])) {
          throw new IllegalArgumentException(
              "the load of bucket " + b + " must be finite and not negative: " + loads[b]);
        }
      }
    }

    @Override
    public double[] loads() {
      return loads.clone();
    }

    @Override
    public RoutingTable assign(RoutingTable current, int[] tasks, int buckets) {
      if (loads.length != buckets) {
        throw new IllegalArgumentException(
            "load-aware policy has the loads of " + loads.length + " buckets, the job " + buckets);
      }
      check(tasks, buckets);
      RoutingTable start = current == null ? evenAssign(null, tasks, buckets) : current;
      return LoadPlacement.balance(start, tasks, loads, () -> evenAssign(current, tasks, buckets));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof LoadAware l && Arrays.equals(loads, l.loads);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(loads);
    }

    @Override
    public String toString() {
      return "LoadAware("
          + loads.length
          + " buckets, hash "
          + Integer.toHexString(Arrays.hashCode(loads))
          + ")";
    }
  }

  /** See {@link #even()}. A record, so that requests naming it can be serialized. */
  record Even() implements PartitionPolicy {
    @Override
    public RoutingTable assign(RoutingTable current, int[] tasks, int buckets) {
      return evenAssign(current, tasks, buckets);
    }
  }

  /** See {@link #consistentHashing()}. */
  record ConsistentHashing() implements PartitionPolicy {
    @Override
    public RoutingTable assign(RoutingTable current, int[] tasks, int buckets) {
      return ringAssign(current, tasks, buckets);
    }
  }

  /** See {@link #explicit(int[])}. */
  record Explicit(int[] owners) implements PartitionPolicy {
    public Explicit {
      owners = owners.clone();
    }

    @Override
    public int[] owners() {
      return owners.clone();
    }

    @Override
    public RoutingTable assign(RoutingTable current, int[] tasks, int buckets) {
      if (owners.length != buckets) {
        throw new IllegalArgumentException(
            "explicit map has " + owners.length + " buckets, the job " + buckets);
      }
      for (int b = 0; b < buckets; b++) {
        if (Arrays.binarySearch(tasks, owners[b]) < 0) {
          throw new IllegalArgumentException(
              "explicit map gives bucket "
                  + b
                  + " to task "
                  + owners[b]
                  + ", which is not one of "
                  + Arrays.toString(tasks));
        }
      }
      return RoutingTable.of(owners);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Explicit e && Arrays.equals(owners, e.owners);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(owners);
    }

    @Override
    public String toString() {
      return "Explicit("
          + owners.length
          + " buckets over tasks "
          + Arrays.stream(owners).distinct().sorted().boxed().toList()
          + ", hash "
          + Integer.toHexString(Arrays.hashCode(owners))
          + ")";
    }
  }

  private static RoutingTable evenAssign(RoutingTable current, int[] tasks, int buckets) {
    check(tasks, buckets);
    int[] owners = new int[buckets];
    if (current == null) {
      for (int i = 0; i < tasks.length; i++) {
        int from = (int) ((long) i * buckets / tasks.length);
        int to = (int) ((long) (i + 1) * buckets / tasks.length);
        Arrays.fill(owners, from, to, tasks[i]);
      }
      return RoutingTable.of(owners);
    }
    owners = current.toArray();
    TreeMap<Integer, Integer> load = new TreeMap<>();
    for (int t : tasks) {
      load.put(t, 0);
    }
    for (int o : owners) {
      load.computeIfPresent(o, (k, v) -> v + 1);
    }
    // 1. buckets of removed tasks go, one by one, to the least loaded live task
    for (int b = 0; b < buckets; b++) {
      if (!load.containsKey(owners[b])) {
        int to = leastLoaded(load, tasks);
        owners[b] = to;
        load.merge(to, 1, Integer::sum);
      }
    }
    // 2. tasks below their share take buckets from the most loaded tasks, highest bucket first
    int floor = buckets / tasks.length;
    while (true) {
      int to = leastLoaded(load, tasks);
      int from = mostLoaded(load, tasks);
      if (load.get(to) >= floor || load.get(from) - load.get(to) <= 1) {
        break;
      }
      for (int b = buckets - 1; b >= 0; b--) {
        if (owners[b] == from) {
          owners[b] = to;
          break;
        }
      }
      load.merge(from, -1, Integer::sum);
      load.merge(to, 1, Integer::sum);
    }
    return RoutingTable.of(owners);
  }

  private static int leastLoaded(TreeMap<Integer, Integer> load, int[] tasks) {
    int best = tasks[0];
    for (int t : tasks) {
      if (load.get(t) < load.get(best)) {
        best = t;
      }
    }
    return best;
  }

  private static int mostLoaded(TreeMap<Integer, Integer> load, int[] tasks) {
    int best = tasks[0];
    for (int t : tasks) {
      if (load.get(t) > load.get(best)) {
        best = t;
      }
    }
    return best;
  }

  private static RoutingTable ringAssign(RoutingTable current, int[] tasks, int buckets) {
    check(tasks, buckets);
    TreeMap<Integer, Integer> ring = new TreeMap<>();
    for (int t : tasks) {
      for (int v = 0; v < 64; v++) {
        ring.putIfAbsent(Murmur3.hash32(ByteBuffer.allocate(8).putInt(t).putInt(v).array()), t);
      }
    }
    int[] owners = new int[buckets];
    for (int b = 0; b < buckets; b++) {
      int h = Murmur3.hash32(ByteBuffer.allocate(8).putInt(-1).putInt(b).array());
      Integer token = ring.ceilingKey(h);
      owners[b] = ring.get(token == null ? ring.firstKey() : token);
    }
    return RoutingTable.of(owners);
  }

  private static void check(int[] tasks, int buckets) {
    if (tasks.length < 1 || tasks.length > buckets) {
      throw new IllegalArgumentException(
          tasks.length + " tasks outside [1, " + buckets + " buckets]");
    }
    for (int i = 1; i < tasks.length; i++) {
      if (tasks[i] <= tasks[i - 1]) {
        throw new IllegalArgumentException(
            "task indices must be ascending and distinct: " + Arrays.toString(tasks));
      }
    }
  }
}
