package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where the tasks of lost workers go, and which workers requests may name. */
class WorkerPoolTest {

  private static TaskId t(String op, int i) {
    return new TaskId(new OperatorId(op), i);
  }

  /** {@code n} tasks per operator of {@code ops}, round-robin over {@code workers}. */
  private static Map<TaskId, Integer> roundRobin(int workers, int n, String... ops) {
    Map<TaskId, Integer> placement = new LinkedHashMap<>();
    int next = 0;
    for (String op : ops) {
      for (int i = 0; i < n; i++) {
        placement.put(t(op, i), next++ % workers);
      }
    }
    return placement;
  }

  @Test
  void theTasksOfALostWorkerGoToTheLeastLoadedSurvivorsInOrder() {
    Map<TaskId, Integer> placement = roundRobin(3, 2, "n", "count", "recount");
    // worker 0: n#0 count#1; worker 1: n#1 recount#0; worker 2: count#0 recount#1
    WorkerPool pool = WorkerPool.of(3).without(1);
    Map<TaskId, Integer> moves = pool.replacements(placement);
    // both survivors have 2: n#1 goes to the lower index, recount#0 then to the other
    assertThat(moves).containsExactly(Map.entry(t("n", 1), 0), Map.entry(t("recount", 0), 2));
  }

  @Test
  void theResultIsBalancedAndNeverNamesALostWorker() {
    Map<TaskId, Integer> placement = roundRobin(5, 8, "a", "b", "c");
    WorkerPool pool = WorkerPool.of(5).without(3).without(0);
    Map<TaskId, Integer> moves = pool.replacements(placement);
    Map<TaskId, Integer> after = new LinkedHashMap<>(placement);
    after.putAll(moves);
    int[] load = new int[5];
    after.values().forEach(w -> load[w]++);
    assertThat(after.values()).doesNotContain(0, 3);
    assertThat(load[1] + load[2] + load[4]).isEqualTo(24);
    for (int w : pool.survivors()) {
      assertThat(load[w]).as("worker %d", w).isEqualTo(8);
    }
    // only the tasks of lost workers move
    moves.keySet().forEach(task -> assertThat(placement.get(task)).isIn(0, 3));
    assertThat(moves).hasSize(10);
  }

  @Test
  void anUnevenStartIsEvenedOut() {
    Map<TaskId, Integer> placement = new LinkedHashMap<>();
    placement.put(t("a", 0), 0);
    placement.put(t("a", 1), 0);
    placement.put(t("a", 2), 0);
    placement.put(t("a", 3), 1);
    placement.put(t("a", 4), 1);
    placement.put(t("a", 5), 1);
    placement.put(t("a", 6), 1);
    placement.put(t("a", 7), 2);
    Map<TaskId, Integer> moves = WorkerPool.of(3).without(1).replacements(placement);
    // worker 0 has 3, worker 2 has 1: the first two go to 2, then they alternate from the lower
    assertThat(moves)
        .containsExactly(
            Map.entry(t("a", 3), 2),
            Map.entry(t("a", 4), 2),
            Map.entry(t("a", 5), 0),
            Map.entry(t("a", 6), 2));
  }

  @Test
  void nothingMovesWhenNoWorkerIsLost() {
    assertThat(WorkerPool.of(2).replacements(roundRobin(2, 3, "a"))).isEmpty();
    assertThat(WorkerPool.of(3).without(2).replacements(roundRobin(2, 3, "a"))).isEmpty();
  }

  @Test
  void withEveryWorkerLostNothingCanBePlaced() {
    WorkerPool none = WorkerPool.of(2).without(0).without(1);
    assertThat(none.exhausted()).isTrue();
    assertThat(none.survivors()).isEmpty();
    assertThatThrownBy(() -> none.replacements(roundRobin(2, 1, "a")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no worker can take tasks");
    assertThat(none.replacements(Map.of())).isEmpty();
  }

  @Test
  void leastLoadedSkipsLostWorkersAndBreaksTiesLow() {
    WorkerPool pool = WorkerPool.of(4).without(1);
    assertThat(pool.leastLoaded(new int[] {3, 0, 2, 2})).isEqualTo(2);
    assertThat(pool.leastLoaded(new int[] {0, 0, 0, 0})).isEqualTo(0);
    assertThatThrownBy(() -> pool.leastLoaded(new int[] {0, 0}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aTieOfTheOperatorsTasksGoesToTheWorkerWithFewerOfTheJobs() {
    WorkerPool pool = WorkerPool.of(3);
    assertThat(pool.leastLoaded(new int[] {1, 1, 1}, new int[] {4, 2, 3})).isEqualTo(1);
    assertThat(pool.leastLoaded(new int[] {1, 0, 1}, new int[] {0, 9, 0})).isEqualTo(1);
    assertThat(pool.leastLoaded(new int[] {1, 1, 1}, new int[] {2, 3, 2})).isEqualTo(0);
  }

  @Test
  void aRequestMayNotNameALostOrUnknownWorker() {
    WorkerPool pool = WorkerPool.of(3).without(2);
    pool.checkTarget(0);
    assertThatThrownBy(() -> pool.checkTarget(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worker 2 is lost")
        .hasMessageContaining("available workers: [0, 1]");
    assertThatThrownBy(() -> pool.checkTarget(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no worker 3; this runtime has workers 0..2");
    assertThat(pool.available(2)).isFalse();
    assertThat(pool.available(-1)).isFalse();
  }

  @Test
  void aPoolIsAValue() {
    WorkerPool pool = WorkerPool.of(3);
    WorkerPool less = pool.without(1);
    assertThat(pool.lost()).isEmpty(); // unchanged
    assertThat(less.lost()).containsExactly(1);
    assertThat(less.without(1)).isEqualTo(less);
    assertThat(new WorkerPool(3, Set.of(1))).isEqualTo(less);
    assertThatThrownBy(() -> new WorkerPool(2, Set.of(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no worker 2");
    assertThatThrownBy(() -> WorkerPool.of(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aLeavingWorkerKeepsRunningButGetsNoTask() {
    WorkerPool pool = WorkerPool.of(3).leavingOne(1);
    assertThat(pool.available(1)).isTrue(); // its tasks still run and are judged as usual
    assertThat(pool.placeable(1)).isFalse();
    assertThat(pool.survivors()).containsExactly(0, 1, 2);
    assertThat(pool.placeable()).containsExactly(0, 2);
    assertThat(pool.leastLoaded(new int[] {5, 0, 4})).isEqualTo(2);
    assertThatThrownBy(() -> pool.checkTarget(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worker 1 is leaving")
        .hasMessageContaining("available workers: [0, 2]");
    // its tasks go, like a lost worker's, to the least loaded of the others
    Map<TaskId, Integer> moves = pool.replacements(roundRobin(3, 3, "a"));
    assertThat(moves).hasSize(1);
    assertThat(moves.values()).allMatch(w -> w == 0 || w == 2);
    // lost while leaving: no longer available either
    assertThat(pool.without(1).available(1)).isFalse();
  }

  @Test
  void aJoinedWorkerTakesTheNextIndexAndTasks() {
    WorkerPool pool = WorkerPool.of(2).without(0).joined(2);
    assertThat(pool.size()).isEqualTo(3);
    assertThat(pool.placeable()).containsExactly(1, 2);
    assertThat(pool.leastLoaded(new int[] {0, 3, 0})).isEqualTo(2);
    pool.checkTarget(2);
    assertThatThrownBy(() -> pool.joined(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already in the pool");
    // an index skipped (a join missed) is unknown, so never placed on
    WorkerPool gap = WorkerPool.of(1).joined(3);
    assertThat(gap.placeable()).containsExactly(0, 3);
    assertThat(gap.lost()).containsExactly(1, 2);
  }

  @Test
  void withEveryOtherWorkerLeavingOrLostNothingCanMove() {
    WorkerPool pool = WorkerPool.of(2).without(0).leavingOne(1);
    assertThat(pool.exhausted()).isFalse(); // worker 1 still runs its tasks
    assertThatThrownBy(() -> pool.replacements(roundRobin(2, 2, "a")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no worker can take tasks")
        .hasMessageContaining("leaving [1]");
  }

  @Test
  void aJoinAddsOneWorkersAverageShareOfTasks() {
    assertThat(WorkerPool.parallelismOnJoin(2, 2, 128)).isEqualTo(3);
    assertThat(WorkerPool.parallelismOnJoin(5, 2, 128)).isEqualTo(8); // 2.5 rounded up
    assertThat(WorkerPool.parallelismOnJoin(6, 3, 7)).isEqualTo(7); // no more tasks than buckets
  }
}
