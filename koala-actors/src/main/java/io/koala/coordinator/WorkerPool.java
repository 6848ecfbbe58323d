package io.koala.coordinator;

import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The workers a job may place tasks on: workers {@code 0..size-1} minus those {@code lost} (the
 * worker stopped, or its node went away, while the job ran) and those {@code leaving} (their node
 * is leaving the cluster gracefully: their tasks still run, and are being moved off). Pure and
 * immutable; the coordinator keeps one per job and replaces it when a worker joins, leaves or is
 * lost.
 *
 * <p>A worker is <b>available</b> while it is not lost: its tasks run and are judged as usual. It
 * is <b>placeable</b> while it is available and not leaving: only placeable workers get tasks.
 *
 * <p>It decides where the tasks of workers that are not placeable go ({@link #replacements}): each,
 * in the order given, to the placeable worker with the fewest of the job's tasks at that moment,
 * ties going to the lowest index — deterministic, and balanced. A lost or leaving worker never gets
 * a task again, neither from a recovery nor from a reconfiguration ({@link #checkTarget}). Workers
 * that join get the next index ({@link #joined}); an index is never reused.
 */
public record WorkerPool(int size, Set<Integer> lost, Set<Integer> leaving) {

  public WorkerPool {
    if (size < 1) {
      throw new IllegalArgumentException("a job needs at least one worker, not " + size);
    }
    lost = java.util.Collections.unmodifiableSet(new TreeSet<>(lost));
    leaving = java.util.Collections.unmodifiableSet(new TreeSet<>(leaving));
    for (Set<Integer> s : List.of(lost, leaving)) {
      for (int w : s) {
        if (w < 0 || w >= size) {
          throw new IllegalArgumentException("no worker " + w + " among workers 0.." + (size - 1));
        }
      }
    }
  }

  public WorkerPool(int size, Set<Integer> lost) {
    this(size, lost, Set.of());
  }

  /** Workers {@code 0..size-1}, none lost. */
  public static WorkerPool of(int size) {
    return new WorkerPool(size, Set.of());
  }

  /** This pool with {@code worker} lost too. */
  public WorkerPool without(int worker) {
    Set<Integer> l = new TreeSet<>(lost);
    l.add(worker);
    return new WorkerPool(size, l, leaving);
  }

  /** This pool with {@code worker} leaving: it keeps its tasks for now, and gets no new one. */
  public WorkerPool leavingOne(int worker) {
    if (worker < 0 || worker >= size) {
      throw new IllegalArgumentException(
          "no worker " + worker + "; this runtime has workers 0.." + (size - 1));
    }
    Set<Integer> l = new TreeSet<>(leaving);
    l.add(worker);
    return new WorkerPool(size, lost, l);
  }

  /**
   * This pool with worker {@code worker} joined: the pool grows to {@code worker + 1} workers; an
   * index between the old size and {@code worker} that was never seen counts as lost (indices are
   * handed out in order, so that happens only if a join was missed, and the worker behind it is
   * then unknown here).
   *
   * @throws IllegalArgumentException when {@code worker} is already in the pool
   */
  public WorkerPool joined(int worker) {
    if (worker < size) {
      throw new IllegalArgumentException(
          "worker " + worker + " is already in the pool of workers 0.." + (size - 1));
    }
    Set<Integer> l = new TreeSet<>(lost);
    for (int w = size; w < worker; w++) {
      l.add(w);
    }
    return new WorkerPool(worker + 1, l, leaving);
  }

  /**
   * The parallelism of an operator of {@code parallelism} tasks on {@code hosts} workers once it is
   * scaled onto a worker that joined ({@code koala.cluster.scale-on-join}): one worker's average
   * share more, rounded up, and at most {@code buckets}. The new tasks all go to the new worker.
   */
  public static int parallelismOnJoin(int parallelism, int hosts, int buckets) {
    if (parallelism < 1 || hosts < 1) {
      throw new IllegalArgumentException(
          "an operator of " + parallelism + " tasks on " + hosts + " workers");
    }
    return Math.min(buckets, parallelism + (parallelism + hosts - 1) / hosts);
  }

  /** Whether {@code worker} exists and is not lost: its tasks run. */
  public boolean available(int worker) {
    return worker >= 0 && worker < size && !lost.contains(worker);
  }

  /** Whether {@code worker} may get tasks: it is available and not leaving. */
  public boolean placeable(int worker) {
    return available(worker) && !leaving.contains(worker);
  }

  /** The workers not lost (leaving ones included), ascending. */
  public List<Integer> survivors() {
    List<Integer> out = new ArrayList<>();
    for (int w = 0; w < size; w++) {
      if (available(w)) {
        out.add(w);
      }
    }
    return out;
  }

  /** The workers that may get tasks, ascending. */
  public List<Integer> placeable() {
    List<Integer> out = new ArrayList<>();
    for (int w = 0; w < size; w++) {
      if (placeable(w)) {
        out.add(w);
      }
    }
    return out;
  }

  /** Whether every worker is lost: no task can run. */
  public boolean exhausted() {
    return lost.size() == size;
  }

  /**
   * The placeable worker with the smallest {@code load} (tasks per worker, indexed by worker), ties
   * to the lowest index.
   *
   * @throws IllegalStateException when no worker is placeable
   */
  public int leastLoaded(int[] load) {
    return leastLoaded(load, new int[size]);
  }

  /**
   * The placeable worker with the smallest {@code load}, ties to the smallest {@code then}, then to
   * the lowest index (both indexed by worker).
   *
   * @throws IllegalStateException when no worker is placeable
   */
  public int leastLoaded(int[] load, int[] then) {
    if (load.length != size || then.length != size) {
      throw new IllegalArgumentException(
          "load has " + load.length + " and " + then.length + " entries for " + size + " workers");
    }
    int best = -1;
    for (int w = 0; w < size; w++) {
      if (placeable(w)
          && (best < 0
              || load[w] < load[best]
              || (load[w] == load[best] && then[w] < then[best]))) {
        best = w;
      }
    }
    if (best < 0) {
      throw new IllegalStateException(
          "no worker can take tasks: lost " + lost + ", leaving " + leaving);
    }
    return best;
  }

  /**
   * Where the tasks of {@code placement} (task → worker, in the order to place them) that are on a
   * worker that is not placeable (lost or leaving) go: each to the least-loaded placeable worker,
   * counting the tasks of {@code placement} that stay and those already moved. Tasks on placeable
   * workers stay and are not in the result.
   *
   * @throws IllegalStateException when a task must move and no worker is placeable
   */
  public Map<TaskId, Integer> replacements(Map<TaskId, Integer> placement) {
    int[] load = new int[size];
    placement.forEach(
        (task, w) -> {
          if (placeable(w)) {
            load[w]++;
          }
        });
    Map<TaskId, Integer> moves = new LinkedHashMap<>();
    placement.forEach(
        (task, w) -> {
          if (!placeable(w)) {
            int to = leastLoaded(load);
            load[to]++;
            moves.put(task, to);
          }
        });
    return moves;
  }

  /**
   * Checks that a request may place tasks on {@code worker}.
   *
   * @throws IllegalArgumentException naming the worker, when it does not exist, is lost or leaving
   */
  public void checkTarget(int worker) {
    if (worker < 0 || worker >= size) {
      throw new IllegalArgumentException(
          "no worker " + worker + "; this runtime has workers 0.." + (size - 1));
    }
    if (lost.contains(worker)) {
      throw new IllegalArgumentException(
          "worker "
              + worker
              + " is lost (it stopped while the job ran) and takes no tasks; available workers: "
              + placeable());
    }
    if (leaving.contains(worker)) {
      throw new IllegalArgumentException(
          "worker "
              + worker
              + " is leaving (its node is shutting down) and takes no tasks; available workers: "
              + placeable());
    }
  }
}
