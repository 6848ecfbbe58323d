package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every branch of {@link Departure#next}: what a leaving worker needs next, from the job's tasks on
 * it, the migrations already asked for, and the other workers.
 */
class DepartureTest {
  private static final TaskId N0 = t("n", 0);
  private static final TaskId COUNT0 = t("count", 0);
  private static final TaskId COUNT2 = t("count", 2);
  private static final TaskId RECOUNT1 = t("recount", 1);
  private static final TaskId HOLDER = t("count", 1);

  private static TaskId t(String op, int i) {
    return new TaskId(new OperatorId(op), i);
  }

  private static Departure.Hosted hosted(
      List<TaskId> owners, List<TaskId> unmovable, List<TaskId> holders) {
    return new Departure.Hosted(owners, unmovable, holders);
  }

  private static Map<String, int[]> load(Object... operatorAndTasksPerWorker) {
    Map<String, int[]> load = new HashMap<>();
    for (int i = 0; i < operatorAndTasksPerWorker.length; i += 2) {
      load.put((String) operatorAndTasksPerWorker[i], (int[]) operatorAndTasksPerWorker[i + 1]);
    }
    return load;
  }

  /** Three workers, worker 2 leaving. */
  private static final WorkerPool POOL = WorkerPool.of(3).leavingOne(2);

  @Test
  void nothingLeftOnTheWorkerIsDone() {
    Departure.Step step =
        Departure.next(
            2, hosted(List.of(), List.of(), List.of()), Set.of(), null, false, POOL, load());
    assertThat(step).isInstanceOf(Departure.Done.class);
  }

  @Test
  void aDeploymentOrRecoveryUnderWayHoldsEverythingBack() {
    Departure.Step step =
        Departure.next(
            2,
            hosted(List.of(COUNT0), List.of(N0), List.of()),
            Set.of(),
            "a recovery under way",
            true,
            POOL,
            load("count", new int[] {1, 1, 1}));
    assertThat(step).isEqualTo(new Departure.Wait("a recovery under way"));
    // while tasks are being deployed, an empty worker is not done yet: they may land there
    assertThat(
            Departure.next(
                2,
                hosted(List.of(), List.of(), List.of()),
                Set.of(),
                "tasks being deployed on worker 2",
                true,
                POOL,
                load()))
        .isInstanceOf(Departure.Wait.class);
  }

  @Test
  void ownersMigrateToTheLeastLoadedPlaceableWorkersOfTheirOperatorBalanced() {
    // count: worker 0 has 1, worker 1 has 1, leaving worker 2 has 2 (count#0, count#2);
    // recount: worker 0 has 2, worker 1 none
    Map<String, int[]> load = load("count", new int[] {1, 1, 2}, "recount", new int[] {2, 0, 1});
    Departure.Step step =
        Departure.next(
            2,
            hosted(List.of(COUNT0, COUNT2, RECOUNT1), List.of(), List.of()),
            Set.of(),
            null,
            false,
            POOL,
            load);
    assertThat(step)
        .isEqualTo(
            new Departure.Migrate(
                List.of(
                    // a tie in count goes to the worker with fewer of the job's tasks (1 has 1,
                    // 0 has 3), the next count task to the other, recount to its emptier worker
                    new Change.Migrate("count", 0, 1),
                    new Change.Migrate("count", 2, 0),
                    new Change.Migrate("recount", 1, 1))));
  }

  @Test
  void anOperatorNotInTheLoadStartsFromNoTasksAnywhere() {
    Departure.Step step =
        Departure.next(
            2, hosted(List.of(COUNT0), List.of(), List.of()), Set.of(), null, false, POOL, load());
    assertThat(step).isEqualTo(new Departure.Migrate(List.of(new Change.Migrate("count", 0, 0))));
  }

  @Test
  void ownersWhoseMigrationIsAskedForAreNotAskedAgain() {
    Departure.Step step =
        Departure.next(
            2,
            hosted(List.of(COUNT0, COUNT2), List.of(), List.of()),
            Set.of(COUNT0),
            null,
            false,
            POOL,
            load("count", new int[] {0, 1, 2}));
    assertThat(step).isEqualTo(new Departure.Migrate(List.of(new Change.Migrate("count", 2, 0))));

    Departure.Step waiting =
        Departure.next(
            2,
            hosted(List.of(COUNT0, COUNT2), List.of(), List.of(HOLDER)),
            Set.of(COUNT0, COUNT2),
            null,
            false,
            POOL,
            load("count", new int[] {0, 1, 2}));
    assertThat(waiting).isInstanceOf(Departure.Wait.class);
    assertThat(((Departure.Wait) waiting).why()).contains("migrations of [count#0, count#2]");
  }

  @Test
  void retiringHoldersAreWaitedFor() {
    Departure.Step step =
        Departure.next(
            2, hosted(List.of(), List.of(), List.of(HOLDER)), Set.of(), null, false, POOL, load());
    assertThat(step).isInstanceOf(Departure.Wait.class);
    assertThat(((Departure.Wait) step).why()).contains("retiring holders [count#1]");
  }

  @Test
  void unmovableTasksWithCheckpointsRelocateEveryTaskOfTheWorkerWithoutMigratingFirst() {
    Departure.Step step =
        Departure.next(
            2,
            hosted(List.of(COUNT0), List.of(N0), List.of(HOLDER)),
            Set.of(),
            null,
            true,
            POOL,
            load("count", new int[] {1, 1, 1}));
    assertThat(step).isEqualTo(new Departure.Relocate(List.of(COUNT0, N0, HOLDER)));
  }

  @Test
  void unmovableTasksWithoutCheckpointsFailNamingThemAndTheSetting() {
    Departure.Step step =
        Departure.next(
            2,
            hosted(List.of(COUNT0), List.of(N0), List.of()),
            Set.of(),
            null,
            false,
            POOL,
            load("count", new int[] {1, 1, 1}));
    assertThat(step).isInstanceOf(Departure.Fail.class);
    assertThat(((Departure.Fail) step).reason())
        .contains("tasks [n#0] on worker 2")
        .contains("koala.checkpoint.interval")
        .doesNotContain("count#0");
  }

  @Test
  void withNoOtherPlaceableWorkerTheDepartureFailsNamingEveryTask() {
    WorkerPool pool = WorkerPool.of(3).without(0).leavingOne(1).leavingOne(2);
    Departure.Step step =
        Departure.next(
            2,
            hosted(List.of(COUNT0), List.of(N0), List.of(HOLDER)),
            Set.of(),
            null,
            true,
            pool,
            load("count", new int[] {0, 0, 1}));
    assertThat(step).isInstanceOf(Departure.Fail.class);
    assertThat(((Departure.Fail) step).reason())
        .contains("no other worker can take the tasks [count#0, n#0, count#1] of worker 2")
        .contains("lost [0]")
        .contains("leaving [1, 2]");
    // with nothing on it, a worker is done even if nothing could take tasks
    assertThat(
            Departure.next(
                2, hosted(List.of(), List.of(), List.of()), Set.of(), null, true, pool, load()))
        .isInstanceOf(Departure.Done.class);
  }
}
