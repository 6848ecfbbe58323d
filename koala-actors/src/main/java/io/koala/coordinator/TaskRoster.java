package io.koala.coordinator;

import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tasks of the current deployment attempt as the job core knows them: where each is reached (in
 * deployment order), which have finished, which retired holders were released, and the workers
 * whose tasks of the attempt are still being deployed. Cleared by a rollback.
 */
final class TaskRoster {
  private final Map<TaskId, TaskAddress> tasks = new LinkedHashMap<>();
  private final Set<TaskId> finished = new HashSet<>();
  private final Set<TaskId> released = new HashSet<>();
  private final Map<Integer, List<TaskId>> pendingWorkers = new LinkedHashMap<>(); // their tasks

  void deployed(TaskAddress task) {
    tasks.put(task.task(), task);
  }

  /** The task's address, or null if it is not deployed (or was released and stopped). */
  TaskAddress address(TaskId task) {
    return tasks.get(task);
  }

  /** Every deployed task, in deployment order. */
  Set<TaskId> ids() {
    return tasks.keySet();
  }

  /** Every deployed task's address, in deployment order. */
  List<TaskAddress> addresses() {
    return new ArrayList<>(tasks.values());
  }

  /** The addresses of {@code ids} that are deployed, in their order. */
  List<TaskAddress> addresses(List<TaskId> ids) {
    List<TaskAddress> out = new ArrayList<>();
    for (TaskId t : ids) {
      TaskAddress a = tasks.get(t);
      if (a != null) {
        out.add(a);
      }
    }
    return out;
  }

  boolean isEmpty() {
    return tasks.isEmpty();
  }

  void finished(TaskId task) {
    finished.add(task);
  }

  boolean hasFinished(TaskId task) {
    return finished.contains(task);
  }

  /** Whether every deployed task has finished. */
  boolean allFinished() {
    return finished.containsAll(tasks.keySet());
  }

  /** Marks retired holder {@code task} released; false if it was already. */
  boolean release(TaskId task) {
    return released.add(task);
  }

  boolean isReleased(TaskId task) {
    return released.contains(task);
  }

  /** A released holder has stopped: it is no longer one of the attempt's tasks. */
  void stopped(TaskId task) {
    tasks.remove(task);
    finished.remove(task);
  }

  /** Worker {@code worker} is deploying {@code ids}. */
  void deploying(int worker, List<TaskId> ids) {
    pendingWorkers.put(worker, ids);
  }

  /** Worker {@code worker} has deployed its tasks. */
  void deployedOn(int worker) {
    pendingWorkers.remove(worker);
  }

  /** The tasks worker {@code worker} is still deploying (empty if none). */
  List<TaskId> deployingOn(int worker) {
    return pendingWorkers.getOrDefault(worker, List.of());
  }

  /** Whether some worker is still deploying tasks of the attempt. */
  boolean deploying() {
    return !pendingWorkers.isEmpty();
  }

  /** The workers a deployment waits for, with their tasks, for error messages. */
  String describePending() {
    StringBuilder b = new StringBuilder("workers");
    String sep = " ";
    for (Map.Entry<Integer, List<TaskId>> e : pendingWorkers.entrySet()) {
      b.append(sep).append(e.getKey()).append(" (tasks ").append(e.getValue()).append(')');
      sep = ", ";
    }
    return b.toString();
  }

  /** A rollback: the attempt's tasks are gone. */
  void clear() {
    tasks.clear();
    pendingWorkers.clear();
    finished.clear();
    released.clear();
  }
}
