package io.koala.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link PartitionPolicy#loadAware(double[])}: balanced by measured load, with few moves. */
class LoadAwarePolicyTest {
  private static final int BUCKETS = 64;

  private static double[] uniform() {
    double[] l = new double[BUCKETS];
    Arrays.fill(l, 1);
    return l;
  }

  private static double[] taskLoads(RoutingTable t, int[] tasks, double[] loads) {
    double[] out = new double[tasks.length];
    for (int b = 0; b < loads.length; b++) {
      out[Arrays.binarySearch(tasks, t.owner(b))] += loads[b];
    }
    return out;
  }

  private static int moved(RoutingTable a, RoutingTable b) {
    int n = 0;
    for (int i = 0; i < a.buckets(); i++) {
      n += a.owner(i) != b.owner(i) ? 1 : 0;
    }
    return n;
  }

  @Test
  void balancedLoadMovesNothing() {
    RoutingTable even = RoutingTable.even(BUCKETS, 4);
    int[] tasks = {0, 1, 2, 3};
    assertThat(PartitionPolicy.loadAware(uniform()).assign(even, tasks, BUCKETS)).isEqualTo(even);
  }

  @Test
  void aHotTaskGivesBucketsToTheOthersAndOnlyItLosesAny() {
    RoutingTable even = RoutingTable.even(BUCKETS, 4); // task 0 owns buckets 0..15
    double[] loads = uniform();
    for (int b = 0; b < 16; b++) {
      loads[b] = 5; // task 0 carries 80 of 128
    }
    int[] tasks = {0, 1, 2, 3};
    RoutingTable after = PartitionPolicy.loadAware(loads).assign(even, tasks, BUCKETS);
    double[] per = taskLoads(after, tasks, loads);
    double mean = Arrays.stream(loads).sum() / 4;
    assertThat(Arrays.stream(per).max().orElseThrow()).isLessThanOrEqualTo(mean + 5);
    for (int b = 0; b < BUCKETS; b++) {
      if (after.owner(b) != even.owner(b)) {
        assertThat(even.owner(b)).as("bucket %d moved from a task that was not hot", b).isZero();
      }
    }
  }

  @Test
  void aScaleOutFeedsOnlyTheNewTasks() {
    RoutingTable two = RoutingTable.even(BUCKETS, 2);
    int[] tasks = {0, 1, 2, 3};
    RoutingTable after = PartitionPolicy.loadAware(uniform()).assign(two, tasks, BUCKETS);
    assertThat(taskLoads(after, tasks, uniform())).containsOnly(16.0);
    for (int b = 0; b < BUCKETS; b++) {
      if (after.owner(b) != two.owner(b)) {
        assertThat(after.owner(b)).isIn(2, 3);
      }
    }
    assertThat(moved(two, after)).isEqualTo(32);
  }

  @Test
  void aScaleInPlacesTheRemovedTasksBucketsHeaviestFirst() {
    RoutingTable four = RoutingTable.even(BUCKETS, 4);
    double[] loads = uniform();
    loads[63] = 9; // on task 3, which goes
    int[] tasks = {0, 1, 2};
    RoutingTable after = PartitionPolicy.loadAware(loads).assign(four, tasks, BUCKETS);
    double[] per = taskLoads(after, tasks, loads);
    double mean = Arrays.stream(loads).sum() / 3;
    assertThat(Arrays.stream(per).max().orElseThrow()).isLessThanOrEqualTo(mean + 9);
    assertThat(after.owner(63)).as("the heaviest orphan, to the first least loaded").isZero();
    assertThat(moved(four, after))
        .as("task 3's 16 buckets, and one to even it out")
        .isLessThanOrEqualTo(17);
  }

  @Test
  void everyTaskGetsABucketEvenWhenOneBucketCarriesAllTheLoad() {
    double[] loads = new double[BUCKETS];
    loads[5] = 100;
    int[] tasks = {0, 1, 2, 3, 4};
    RoutingTable after =
        PartitionPolicy.loadAware(loads).assign(RoutingTable.even(BUCKETS, 2), tasks, BUCKETS);
    for (int t : tasks) {
      assertThat(after.bucketsOf(t)).as("task %d", t).isNotEmpty();
    }
  }

  @Test
  void withNoLoadMeasuredItIsTheEvenPolicy() {
    RoutingTable two = RoutingTable.even(BUCKETS, 2);
    int[] tasks = {0, 1, 5};
    assertThat(PartitionPolicy.loadAware(new double[BUCKETS]).assign(two, tasks, BUCKETS))
        .isEqualTo(PartitionPolicy.even().assign(two, tasks, BUCKETS));
  }

  @Test
  void refusesLoadsOfAnotherNumberOfBucketsAndNegativeLoads() {
    assertThatThrownBy(
            () ->
                PartitionPolicy.loadAware(new double[8])
                    .assign(RoutingTable.even(BUCKETS, 2), new int[] {0, 1}, BUCKETS))
        .hasMessageContaining("loads of 8 buckets, the job 64");
    assertThatThrownBy(() -> PartitionPolicy.loadAware(new double[] {1, -1}))
        .hasMessageContaining("bucket 1");
  }

  /**
   * On random loads and starting tables, the busiest task ends within the mean plus the heaviest
   * bucket (or 1% above the mean), and every task has a bucket.
   */
  @Test
  void randomLoadsEndWithinTheMeanPlusOneBucket() {
    long seed = System.nanoTime();
    System.out.println("LoadAwarePolicyTest seed " + seed);
    Random r = new Random(seed);
    for (int run = 0; run < 200; run++) {
      double[] loads = new double[BUCKETS];
      for (int b = 0; b < BUCKETS; b++) {
        loads[b] = r.nextInt(4) == 0 ? 0 : Math.pow(r.nextDouble(), 3) * 100;
      }
      int before = 1 + r.nextInt(8);
      int after = 1 + r.nextInt(8);
      int[] tasks = new int[after];
      for (int i = 0; i < after; i++) {
        tasks[i] = i * 2; // some shared with before, some new
      }
      int[] owners = new int[BUCKETS];
      for (int b = 0; b < BUCKETS; b++) {
        owners[b] = r.nextInt(before);
      }
      RoutingTable start = RoutingTable.of(owners);
      RoutingTable result = PartitionPolicy.loadAware(loads).assign(start, tasks, BUCKETS);
      double total = Arrays.stream(loads).sum();
      if (total == 0) {
        continue;
      }
      double mean = total / after;
      double heaviest = Arrays.stream(loads).max().orElseThrow();
      double busiest = Arrays.stream(taskLoads(result, tasks, loads)).max().orElseThrow();
      assertThat(busiest)
          .as("seed %d run %d", seed, run)
          .isLessThanOrEqualTo(Math.max(mean * 1.01, mean + heaviest) + 1e-6);
      for (int t : tasks) {
        assertThat(result.bucketsOf(t)).as("seed %d run %d task %d", seed, run, t).isNotEmpty();
      }
    }
  }
}
