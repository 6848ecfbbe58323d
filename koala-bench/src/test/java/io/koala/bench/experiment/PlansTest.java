package io.koala.bench.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.routing.Buckets;
import io.koala.runtime.KoalaConfig;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlansTest {

  static RescaleSettings settings(String workload, int from, int to) {
    return new RescaleSettings(
        workload, "koala", from, to, 4, 20_000, 2_000, 2048, 6_000, 6_000, 0, 3, 4, 1, 20, 42);
  }

  @Test
  void balanceGivesEveryBucketToATaskAndKeepsTheLargestLoadWithinTheBound() {
    long seed = new Random().nextLong();
    System.out.println("seed " + seed);
    Random random = new Random(seed);
    double[] loads = new double[Buckets.DEFAULT_BUCKETS];
    for (int b = 0; b < loads.length; b++) {
      loads[b] = 1_000 / Math.pow(b + 1, 1.1) + random.nextInt(10) + random.nextDouble();
    }
    for (int tasks = 1; tasks <= 8; tasks++) {
      int[] owners = Plans.balance(loads, tasks);
      assertThat(owners).hasSize(loads.length);
      double[] shares = Plans.shares(loads, owners, tasks);
      assertThat(Arrays.stream(shares).sum())
          .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
      double total = Arrays.stream(loads).sum();
      double heaviest = Arrays.stream(loads).max().orElseThrow();
      // no schedule beats max(total / tasks, heaviest bucket); the rule is within 4/3 of the best
      double lowerBound = Math.max(total / tasks, heaviest) / total;
      assertThat(Arrays.stream(shares).max().orElseThrow())
          .as("seed %d, %d tasks", seed, tasks)
          .isLessThanOrEqualTo(lowerBound * 4 / 3 + 1e-9);
      for (int t = 0; t < tasks; t++) {
        assertThat(shares[t]).as("task %d has load", t).isPositive();
      }
    }
  }

  @Test
  void theEvenMapIsTheFirstDeployments() {
    int[] owners = Plans.evenOwners(4);
    assertThat(owners).hasSize(Buckets.DEFAULT_BUCKETS);
    assertThat(Arrays.stream(owners).boxed().collect(java.util.stream.Collectors.toSet()))
        .containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  @Test
  void bucketLoadsCountEveryRecordOnce() {
    RescaleSettings s = settings(RescaleWorkload.TAXI, 4, 4);
    double[] loads = Plans.bucketLoads(s, s.keys(), s.keys() + 10_000);
    assertThat(Arrays.stream(loads).sum()).isEqualTo(10_000);
    // the warm-up touches every key once: its loads are the keys per bucket
    assertThat(Arrays.stream(Plans.bucketLoads(s, 0, s.keys())).sum()).isEqualTo(s.keys());
  }

  @Test
  void repeatedRescalesInOrderWithTheRateLeadingEachLaterStep() {
    RescaleSettings s = settings(RescaleWorkload.Q6STAR, 4, 8);
    RescaleExperiment.Plan plan = Plans.repeated(s, List.of(12, 9, 6), 10);
    assertThat(plan.steps())
        .extracting(RescaleExperiment.Step::atSecond)
        .containsExactly(
            s.rescaleAtSecond(),
            s.rescaleAtSecond() + 10,
            s.rescaleAtSecond() + 20,
            s.rescaleAtSecond() + 30);
    assertThat(plan.steps().get(1).description()).contains("8 -> 12");
    assertThat(plan.steps().get(3).description()).contains("9 -> 6");
    assertThat(plan.releases()).as("tasks the scale-ins retire").isEqualTo(6);
    int lead = Plans.REPEATED_LEAD_SECONDS;
    long at = (s.rescaleAtSecond() + 10 - lead) * 1000L;
    double perSecond = Plans.REPEATED_UTILISATION * 12 * s.taskCapacity();
    // over the second after the rise, the schedule makes 12 tasks' share of records available
    assertThat(plan.schedule().available(at + 1000) - plan.schedule().available(at))
        .isCloseTo((long) perSecond, org.assertj.core.data.Offset.offset(2L));
    assertThatThrownBy(() -> Plans.repeated(s, List.of(12), lead))
        .hasMessageContaining("--step-seconds");
  }

  @Test
  void migrateMovesEveryTaskOfTheTargetToAnotherWorkerAndAwaitsTheirRelease() {
    RescaleSettings s = settings(RescaleWorkload.Q6STAR, 4, 4);
    RescaleExperiment.Plan plan = Plans.migrate(s, KoalaConfig.load());
    assertThat(plan.steps()).hasSize(4);
    assertThat(plan.releases()).isEqualTo(4);
    Set<String> tasks = new HashSet<>();
    for (RescaleExperiment.Step step : plan.steps()) {
      String[] words = step.description().split(" ");
      // "migrate q6-average-price#i from worker w to w'"
      tasks.add(words[1]);
      assertThat(words[4]).isNotEqualTo(words[6]);
    }
    assertThat(tasks).hasSize(4);
  }

  @Test
  void allTargetsRescalesEachKeyedStageAtOnce() {
    RescaleSettings s = settings(RescaleWorkload.TWITCH_PIPELINE, 4, 8);
    RescaleExperiment.Plan plan = Plans.allTargets(s);
    assertThat(plan.steps())
        .extracting(RescaleExperiment.Step::atSecond)
        .containsOnly(s.rescaleAtSecond());
    assertThat(plan.steps())
        .extracting(RescaleExperiment.Step::description)
        .containsExactly("rescale viewer-loyalty 4 -> 8", "rescale retention-analyser 4 -> 8");
  }
}
