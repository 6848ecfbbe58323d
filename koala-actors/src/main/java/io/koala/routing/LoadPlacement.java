package io.koala.routing;

import java.util.Arrays;
import java.util.Comparator;
import java.util.function.Supplier;

/**
 * The placement of {@link PartitionPolicy#loadAware(double[])}: balances measured bucket loads over
 * a set of tasks starting from the current table, moving few buckets. Pure and deterministic (ties
 * go to the lower task index, then the lower bucket).
 */
final class LoadPlacement {
  /** Moves stop once the busiest task is within this share above the mean task load. */
  static final double MIN_GAIN = 0.01;

  private final int[] tasks;
  private final double[] loads;
  private final int[] owners;
  private final double[] taskLoad; // by position in tasks
  private final int[] taskBuckets; // by position in tasks

  private LoadPlacement(RoutingTable start, int[] tasks, double[] loads) {
    this.tasks = tasks;
    this.loads = loads;
    this.owners = start.toArray();
    this.taskLoad = new double[tasks.length];
    this.taskBuckets = new int[tasks.length];
  }

  /**
   * Balances {@code loads} over {@code tasks} (ascending), starting from {@code start}; {@code
   * unmeasured} gives the table when every load is zero.
   */
  static RoutingTable balance(
      RoutingTable start, int[] tasks, double[] loads, Supplier<RoutingTable> unmeasured) {
    if (Arrays.stream(loads).sum() <= 0) {
      return unmeasured.get();
    }
    LoadPlacement p = new LoadPlacement(start, tasks, loads);
    p.placeOrphans();
    p.improve();
    p.feedEmptyTasks();
    return RoutingTable.of(p.owners);
  }

  private int position(int task) {
    return Arrays.binarySearch(tasks, task);
  }

  /** Buckets whose owner is not among the tasks go, heaviest first, to the least loaded task. */
  private void placeOrphans() {
    Integer[] orphans =
        java.util.stream.IntStream.range(0, owners.length)
            .filter(b -> position(owners[b]) < 0)
            .boxed()
            .sorted(Comparator.comparingDouble((Integer b) -> -loads[b]).thenComparing(b -> b))
            .toArray(Integer[]::new);
    for (int b = 0; b < owners.length; b++) {
      int at = position(owners[b]);
      if (at >= 0) {
        taskLoad[at] += loads[b];
        taskBuckets[at]++;
      }
    }
    for (int b : orphans) {
      int to = least();
      owners[b] = tasks[to];
      taskLoad[to] += loads[b];
      taskBuckets[to]++;
    }
  }

  /** The position of the least loaded task (then the one with fewest buckets, then the lowest). */
  private int least() {
    int best = 0;
    for (int i = 1; i < tasks.length; i++) {
      if (taskLoad[i] < taskLoad[best]
          || (taskLoad[i] == taskLoad[best] && taskBuckets[i] < taskBuckets[best])) {
        best = i;
      }
    }
    return best;
  }

  private int most() {
    int best = 0;
    for (int i = 1; i < tasks.length; i++) {
      if (taskLoad[i] > taskLoad[best]) {
        best = i;
      }
    }
    return best;
  }

  /**
   * Moves, one at a time, the busiest task's bucket whose load is nearest half the gap to the least
   * loaded task, while the busiest is more than {@link #MIN_GAIN} above the mean and such a bucket
   * lowers it. Each move lowers the sum of the squared task loads, so it ends; when it does, the
   * busiest task carries at most the mean plus its lightest loaded bucket.
   */
  private void improve() {
    double enough = (1 + MIN_GAIN) * Arrays.stream(taskLoad).sum() / tasks.length;
    for (int round = 0; round < owners.length * 4; round++) {
      int hi = most();
      int lo = least();
      double gap = taskLoad[hi] - taskLoad[lo];
      if (taskLoad[hi] <= enough) {
        return;
      }
      int pick = -1;
      double best = 0;
      for (int b = 0; b < owners.length; b++) {
        if (owners[b] != tasks[hi] || !(loads[b] > 0) || loads[b] >= gap) {
          continue;
        }
        double gain = Math.min(loads[b], gap - loads[b]); // the busiest task's load drops by this
        if (gain > best) {
          best = gain;
          pick = b;
        }
      }
      if (pick < 0) {
        return;
      }
      move(pick, hi, lo);
    }
  }

  /** A task with no bucket takes the lightest bucket of the task with the most buckets. */
  private void feedEmptyTasks() {
    for (int empty = 0; empty < tasks.length; empty++) {
      if (taskBuckets[empty] > 0) {
        continue;
      }
      int donor = 0;
      for (int i = 1; i < tasks.length; i++) {
        if (taskBuckets[i] > taskBuckets[donor]) {
          donor = i;
        }
      }
      int pick = -1;
      for (int b = 0; b < owners.length; b++) {
        if (owners[b] == tasks[donor] && (pick < 0 || loads[b] < loads[pick])) {
          pick = b;
        }
      }
      move(pick, donor, empty);
    }
  }

  private void move(int bucket, int from, int to) {
    owners[bucket] = tasks[to];
    taskLoad[from] -= loads[bucket];
    taskLoad[to] += loads[bucket];
    taskBuckets[from]--;
    taskBuckets[to]++;
  }
}
