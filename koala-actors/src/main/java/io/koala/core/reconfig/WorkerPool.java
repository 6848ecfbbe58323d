package io.koala.core.reconfig;

import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The workers a job may place tasks on: workers {@code 0..size-1} minus those {@code lost} (the
 * worker stopped, or its node went away, while the job ran). Pure and immutable; the coordinator
 * keeps one per job and replaces it when a worker is lost.
 *
 * <p>It decides where the tasks of lost workers go ({@link #replacements}): each, in the order
 * given, to the surviving worker with the fewest of the job's tasks at that moment, ties going to
 * the lowest index — deterministic, and balanced over the survivors. A lost worker never gets a
 * task again, neither from a recovery nor from a reconfiguration ({@link #checkTarget}).
 */
public record WorkerPool(int size, Set<Integer> lost) {

  public WorkerPool {
    if (size < 1) {
      throw new IllegalArgumentException("a job needs at least one worker, not " + size);
    }
    lost = java.util.Collections.unmodifiableSet(new TreeSet<>(lost));
    for (int w : lost) {
      if (w < 0 || w >= size) {
        throw new IllegalArgumentException("no worker " + w + " among workers 0.." + (size - 1));
      }
    }
  }

  /** Workers {@code 0..size-1}, none lost. */
  public static WorkerPool of(int size) {
    return new WorkerPool(size, Set.of());
  }

  /** This pool with {@code worker} lost too. */
  public WorkerPool without(int worker) {
    Set<Integer> l = new TreeSet<>(lost);
    l.add(worker);
    return new WorkerPool(size, l);
  }

  /** Whether {@code worker} exists and is not lost. */
  public boolean available(int worker) {
    return worker >= 0 && worker < size && !lost.contains(worker);
  }

  /** The workers not lost, ascending. */
  public List<Integer> survivors() {
    List<Integer> out = new ArrayList<>();
    for (int w = 0; w < size; w++) {
      if (!lost.contains(w)) {
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
   * The surviving worker with the smallest {@code load} (tasks per worker, indexed by worker), ties
   * to the lowest index.
   *
   * @throws IllegalStateException when every worker is lost
   */
  public int leastLoaded(int[] load) {
    if (load.length != size) {
      throw new IllegalArgumentException(
          "load has " + load.length + " entries for " + size + " workers");
    }
    int best = -1;
    for (int w = 0; w < size; w++) {
      if (!lost.contains(w) && (best < 0 || load[w] < load[best])) {
        best = w;
      }
    }
    if (best < 0) {
      throw new IllegalStateException("every worker is lost: " + lost);
    }
    return best;
  }

  /**
   * Where the tasks of {@code placement} (task → worker, in the order to place them) that are on a
   * lost worker go: each to the least-loaded survivor, counting the tasks of {@code placement} that
   * stay and those already moved. Tasks on surviving workers stay and are not in the result.
   *
   * @throws IllegalStateException when a task must move and every worker is lost
   */
  public Map<TaskId, Integer> replacements(Map<TaskId, Integer> placement) {
    int[] load = new int[size];
    placement.forEach(
        (task, w) -> {
          if (available(w)) {
            load[w]++;
          }
        });
    Map<TaskId, Integer> moves = new LinkedHashMap<>();
    placement.forEach(
        (task, w) -> {
          if (!available(w)) {
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
   * @throws IllegalArgumentException naming the worker, when it does not exist or is lost
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
              + survivors());
    }
  }
}
