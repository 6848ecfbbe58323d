package io.koala.coordinator;

import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a worker whose node leaves gracefully needs next (DESIGN §9, hazard C6). Pure: the
 * coordinator classifies the job's tasks on the worker and carries out the step.
 *
 * <ol>
 *   <li>Tasks an epoch can move — of keyed operators, and of stages without keyed input that read
 *       no forward edge — are <b>migrated</b> to the least-loaded placeable worker (a migrate
 *       request each, as {@code JobHandle.migrate} makes): the old task retires, and every owner
 *       that references it drains it with a forced full transfer (§6.5).
 *   <li>Retiring holders on the worker — those just retired and any left by earlier
 *       reconfigurations — are <b>waited</b> for: they stop once no owner references them (C5).
 *   <li>Tasks that no epoch can move (sources, and stages reading a forward edge) move only by
 *       restoring a checkpoint: with checkpoints, one is taken and the job rolls back to it with
 *       the worker's tasks <b>relocated</b> elsewhere (that moves every task on the worker, so no
 *       migration is started first); without, the departure <b>fails</b>, naming them.
 *   <li>When the worker hosts nothing of the job, it is <b>done</b>.
 * </ol>
 */
public final class Departure {
  private Departure() {}

  /** The job's tasks on the leaving worker, by what can move them. */
  public record Hosted(List<TaskId> owners, List<TaskId> unmovable, List<TaskId> holders) {
    public Hosted {
      owners = List.copyOf(owners);
      unmovable = List.copyOf(unmovable);
      holders = List.copyOf(holders);
    }

    public boolean isEmpty() {
      return owners.isEmpty() && unmovable.isEmpty() && holders.isEmpty();
    }
  }

  /** What to do next. */
  public sealed interface Step {}

  /** Nothing of the job is left on the worker. */
  public record Done() implements Step {}

  /** Nothing to start: migrations, holders or a deployment are under way. */
  public record Wait(String why) implements Step {}

  /** Request these migrations (each a task off the worker, to the worker named). */
  public record Migrate(List<Change.Migrate> requests) implements Step {}

  /** Take a checkpoint and roll back to it with the worker's tasks placed elsewhere. */
  public record Relocate(List<TaskId> tasks) implements Step {}

  /** The worker's tasks cannot be moved off. */
  public record Fail(String reason) implements Step {}

  /**
   * The next step for worker {@code worker} (already leaving in {@code pool}).
   *
   * @param hosted the job's tasks on the worker
   * @param migrating tasks whose migration off the worker is already requested
   * @param busy why nothing may start now (a deployment or recovery under way), or null
   * @param checkpoints whether the job takes checkpoints
   * @param load the live tasks of each operator per worker (operator name → tasks per worker); a
   *     task goes to the placeable worker with the fewest of its operator's, then of the job's
   */
  public static Step next(
      int worker,
      Hosted hosted,
      Set<TaskId> migrating,
      String busy,
      boolean checkpoints,
      WorkerPool pool,
      Map<String, int[]> load) {
    if (busy != null) {
      return new Wait(busy);
    }
    if (hosted.isEmpty()) {
      return new Done();
    }
    if (pool.placeable().isEmpty()) {
      return new Fail(
          "no other worker can take the tasks "
              + all(hosted)
              + " of worker "
              + worker
              + " (lost "
              + pool.lost()
              + ", leaving "
              + pool.leaving()
              + ")");
    }
    if (!hosted.unmovable().isEmpty()) {
      if (!checkpoints) {
        return new Fail(
            "tasks "
                + hosted.unmovable()
                + " on worker "
                + worker
                + " cannot be reconfigured live (sources, and stages reading a forward edge); they"
                + " move only by restoring a checkpoint, and checkpoints are off"
                + " (koala.checkpoint.interval)");
      }
      return new Relocate(all(hosted));
    }
    int[] total = new int[pool.size()];
    for (int[] l : load.values()) {
      for (int w = 0; w < l.length; w++) {
        total[w] += l[w];
      }
    }
    List<Change.Migrate> requests = new ArrayList<>();
    for (TaskId t : hosted.owners()) {
      if (migrating.contains(t)) {
        continue;
      }
      int[] l = load.computeIfAbsent(t.operator().name(), k -> new int[pool.size()]);
      // fewest tasks of the operator, then fewest tasks of the job, then the lowest index
      int to = -1;
      for (int c : pool.placeable()) {
        if (to < 0 || l[c] < l[to] || (l[c] == l[to] && total[c] < total[to])) {
          to = c;
        }
      }
      l[to]++;
      total[to]++;
      requests.add(new Change.Migrate(t.operator().name(), t.index(), to));
    }
    if (!requests.isEmpty()) {
      return new Migrate(requests);
    }
    return new Wait(
        hosted.owners().isEmpty()
            ? "retiring holders " + hosted.holders() + " to be drained"
            : "migrations of " + hosted.owners());
  }

  private static List<TaskId> all(Hosted h) {
    List<TaskId> out = new ArrayList<>(h.owners());
    out.addAll(h.unmovable());
    out.addAll(h.holders());
    return out;
  }
}
