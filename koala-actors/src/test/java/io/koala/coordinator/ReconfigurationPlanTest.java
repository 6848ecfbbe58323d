package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.protocol.BucketMove;
import io.koala.routing.PartitionPolicy;
import io.koala.routing.RoutingTable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReconfigurationPlanTest {
  static final int B = 128;

  static Map<Integer, Integer> load(RoutingTable t) {
    Map<Integer, Integer> m = new HashMap<>();
    for (int b = 0; b < t.buckets(); b++) {
      m.merge(t.owner(b), 1, Integer::sum);
    }
    return m;
  }

  static void assertBalanced(RoutingTable t, int[] tasks) {
    Map<Integer, Integer> load = load(t);
    assertThat(load.keySet())
        .containsExactlyInAnyOrder(Arrays.stream(tasks).boxed().toArray(Integer[]::new));
    for (int task : tasks) {
      assertThat(load.get(task))
          .as("task %d", task)
          .isBetween(B / tasks.length, (B + tasks.length - 1) / tasks.length);
    }
  }

  @Test
  void evenRescaleFourToEightToTwelveToNineToSix() {
    PartitionPolicy even = PartitionPolicy.even();
    RoutingTable t = even.assign(null, new int[] {0, 1, 2, 3}, B);
    int[] tasks = {0, 1, 2, 3};
    int highest = 3;
    for (int p : new int[] {8, 12, 9, 6}) {
      ReconfigurationPlan plan = ReconfigurationPlan.rescale(t, tasks, p, highest, even);
      assertBalanced(plan.after(), plan.tasksAfter());
      int[] added = plan.added();
      int[] removed = plan.removed();
      for (BucketMove m : plan.moves()) {
        if (p > tasks.length) {
          // scale-out: buckets only go to new tasks
          assertThat(added).contains(m.to());
        } else {
          // scale-in: only the removed tasks' buckets move
          assertThat(removed).contains(m.from());
        }
      }
      if (p > tasks.length) {
        assertThat(removed).isEmpty();
        assertThat(added).hasSize(p - tasks.length);
        assertThat(Arrays.stream(added).min().getAsInt()).isEqualTo(highest + 1);
        highest = Arrays.stream(added).max().getAsInt();
      } else {
        assertThat(added).isEmpty();
        assertThat(removed).hasSize(tasks.length - p);
        // the removed tasks' buckets all moved
        int moved = plan.moves().size();
        int owned = 0;
        for (int r : removed) {
          owned += load(t).get(r);
        }
        assertThat(moved).isEqualTo(owned);
      }
      t = plan.after();
      tasks = plan.tasksAfter();
    }
    assertThat(tasks).containsExactly(0, 1, 2, 3, 4, 5);
  }

  @Test
  void fourToEightMovesHalfTheBucketsAllToNewTasks() {
    RoutingTable t = RoutingTable.even(B, 4);
    ReconfigurationPlan plan =
        ReconfigurationPlan.rescale(t, new int[] {0, 1, 2, 3}, 8, 3, PartitionPolicy.even());
    assertThat(plan.moves()).hasSize(64);
    assertThat(plan.senders()).containsExactly(0, 1, 2, 3);
    assertThat(plan.receivers()).containsExactly(4, 5, 6, 7);
    for (int s : plan.senders()) {
      assertThat(plan.movesFrom(s)).hasSize(16);
    }
  }

  @Test
  void indicesAreNeverReused() {
    RoutingTable t = RoutingTable.even(B, 4);
    PartitionPolicy even = PartitionPolicy.even();
    ReconfigurationPlan in = ReconfigurationPlan.rescale(t, new int[] {0, 1, 2, 3}, 2, 3, even);
    ReconfigurationPlan out = ReconfigurationPlan.rescale(in.after(), in.tasksAfter(), 4, 3, even);
    assertThat(out.added()).containsExactly(4, 5);
  }

  @Test
  void migrationMovesExactlyTheTasksBucketsToItsReplacement() {
    RoutingTable t = RoutingTable.even(B, 4);
    ReconfigurationPlan plan = ReconfigurationPlan.migrate(t, new int[] {0, 1, 2, 3}, 2, 3);
    assertThat(plan.added()).containsExactly(4);
    assertThat(plan.removed()).containsExactly(2);
    assertThat(plan.moves()).hasSize(32).allMatch(m -> m.from() == 2 && m.to() == 4);
    assertThat(plan.tasksAfter()).containsExactly(0, 1, 3, 4);
  }

  @ParameterizedTest(name = "{0} → {0}+1 tasks")
  @ValueSource(ints = {1, 3, 7, 15})
  void consistentHashingMovesBucketsOnlyToTheNewTask(int n) {
    PartitionPolicy ring = PartitionPolicy.consistentHashing();
    int[] before = java.util.stream.IntStream.range(0, n).toArray();
    RoutingTable t = ring.assign(null, before, B);
    ReconfigurationPlan plan = ReconfigurationPlan.rescale(t, before, n + 1, n - 1, ring);
    assertThat(plan.moves()).allMatch(m -> m.to() == n);
    assertThat(load(plan.after()).keySet()).hasSizeLessThanOrEqualTo(n + 1);
    assertThat(ring.assign(null, before, B)).as("deterministic").isEqualTo(t);
  }

  @Test
  void explicitMapsAreValidated() {
    int[] owners = new int[B];
    Arrays.fill(owners, 1);
    owners[5] = 7;
    assertThatThrownBy(() -> PartitionPolicy.explicit(owners).assign(null, new int[] {0, 1}, B))
        .hasMessageContaining("bucket 5")
        .hasMessageContaining("task 7");
    assertThatThrownBy(() -> PartitionPolicy.explicit(new int[3]).assign(null, new int[] {0}, B))
        .hasMessageContaining("3 buckets");
  }

  @Test
  void explicitRebalanceMovesExactlyTheChangedBuckets() {
    RoutingTable t = RoutingTable.even(B, 4);
    int[] owners = t.toArray();
    owners[0] = 3;
    owners[127] = 0;
    ReconfigurationPlan plan =
        ReconfigurationPlan.of(
            t, new int[] {0, 1, 2, 3}, new int[] {0, 1, 2, 3}, PartitionPolicy.explicit(owners));
    assertThat(plan.moves()).containsExactly(new BucketMove(0, 0, 3), new BucketMove(127, 3, 0));
    assertThat(plan.added()).isEmpty();
    assertThat(plan.removed()).isEmpty();
  }

  /**
   * A staged protocol's steps: each moves at most the bound, together exactly the plan's moves,
   * each step starts where the previous ended, added tasks join first, and a removed task leaves in
   * the step that takes its last bucket.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 3, 8, 64, 200})
  void stepsComposeToThePlan(int perStep) {
    PartitionPolicy even = PartitionPolicy.even();
    RoutingTable four = even.assign(null, new int[] {0, 1, 2, 3}, B);
    for (ReconfigurationPlan plan :
        java.util.List.of(
            ReconfigurationPlan.rescale(four, new int[] {0, 1, 2, 3}, 8, 3, even),
            ReconfigurationPlan.rescale(four, new int[] {0, 1, 2, 3}, 2, 3, even))) {
      java.util.List<ReconfigurationPlan> steps = plan.inSteps(perStep);
      assertThat(steps.size()).isEqualTo((plan.moves().size() + perStep - 1) / perStep);
      assertThat(steps.get(0).before()).isEqualTo(plan.before());
      assertThat(steps.get(0).tasksBefore()).isEqualTo(plan.tasksBefore());
      assertThat(steps.get(0).added()).isEqualTo(plan.added());
      ReconfigurationPlan last = steps.get(steps.size() - 1);
      assertThat(last.after()).isEqualTo(plan.after());
      assertThat(last.tasksAfter()).isEqualTo(plan.tasksAfter());
      java.util.Set<Integer> moved = new java.util.HashSet<>();
      for (int i = 0; i < steps.size(); i++) {
        ReconfigurationPlan step = steps.get(i);
        assertThat(step.moves().size()).isBetween(1, perStep);
        step.moves().forEach(m -> assertThat(moved.add(m.bucket())).isTrue());
        if (i > 0) {
          assertThat(step.before()).isEqualTo(steps.get(i - 1).after());
          assertThat(step.tasksBefore()).isEqualTo(steps.get(i - 1).tasksAfter());
          assertThat(step.added()).isEmpty();
        }
        for (int r : step.removed()) {
          assertThat(step.after().bucketsOf(r)).as("a task leaves with its last bucket").isEmpty();
          assertThat(step.before().bucketsOf(r)).isNotEmpty();
        }
      }
      assertThat(moved).hasSize(plan.moves().size());
    }
  }

  @Test
  void aStepHoldsAtLeastOneBucket() {
    RoutingTable t = PartitionPolicy.even().assign(null, new int[] {0, 1}, B);
    assertThatThrownBy(
            () ->
                ReconfigurationPlan.rescale(t, new int[] {0, 1}, 4, 1, PartitionPolicy.even())
                    .inSteps(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
  }
}
