package io.koala.routing;

import java.util.Arrays;

/**
 * The routing table of a keyed edge: bucket → index of the owning task. Immutable; a
 * reconfiguration installs a new table atomically.
 */
public final class RoutingTable {
  private final int[] owners;

  private RoutingTable(int[] owners) {
    this.owners = owners;
  }

  /** A table from an explicit bucket → task-index map; indices must not be negative. */
  public static RoutingTable of(int[] owners) {
    for (int b = 0; b < owners.length; b++) {
      if (owners[b] < 0) {
        throw new IllegalArgumentException("bucket " + b + " routed to task " + owners[b]);
      }
    }
    if (owners.length == 0) {
      throw new IllegalArgumentException("a routing table needs at least one bucket");
    }
    return new RoutingTable(owners.clone());
  }

  /** A table from an explicit bucket → task-index map; every entry must be in [0, tasks). */
  public static RoutingTable of(int[] owners, int tasks) {
    for (int b = 0; b < owners.length; b++) {
      if (owners[b] < 0 || owners[b] >= tasks) {
        throw new IllegalArgumentException(
            "bucket " + b + " routed to task " + owners[b] + " outside [0, " + tasks + ")");
      }
    }
    return new RoutingTable(owners.clone());
  }

  /**
   * The initial even assignment: task i owns the contiguous buckets {@code [i·B/p, (i+1)·B/p)}, so
   * every task owns ⌊B/p⌋ or ⌈B/p⌉ buckets.
   */
  public static RoutingTable even(int buckets, int tasks) {
    Buckets.checkBucketCount(buckets);
    if (tasks < 1 || tasks > buckets) {
      throw new IllegalArgumentException(
          "parallelism " + tasks + " outside [1, " + buckets + " buckets]");
    }
    int[] owners = new int[buckets];
    for (int t = 0; t < tasks; t++) {
      int from = (int) ((long) t * buckets / tasks);
      int to = (int) ((long) (t + 1) * buckets / tasks);
      Arrays.fill(owners, from, to, t);
    }
    return new RoutingTable(owners);
  }

  /** The owning task index of {@code bucket}. */
  public int owner(int bucket) {
    return owners[bucket];
  }

  /** Number of buckets. */
  public int buckets() {
    return owners.length;
  }

  /** A copy of the bucket → task-index map. */
  public int[] toArray() {
    return owners.clone();
  }

  /** The task indices that own at least one bucket, ascending. */
  public int[] tasks() {
    return Arrays.stream(owners).distinct().sorted().toArray();
  }

  /** The buckets task {@code index} owns, ascending. */
  public int[] bucketsOf(int index) {
    return java.util.stream.IntStream.range(0, owners.length)
        .filter(b -> owners[b] == index)
        .toArray();
  }

  /** Whether task {@code index} owns {@code bucket}. */
  public boolean owns(int index, int bucket) {
    return owners[bucket] == index;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RoutingTable other && Arrays.equals(owners, other.owners);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(owners);
  }

  @Override
  public String toString() {
    return "RoutingTable" + Arrays.toString(owners);
  }
}
