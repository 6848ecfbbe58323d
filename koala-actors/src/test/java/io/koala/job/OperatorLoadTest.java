package io.koala.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link JobMetrics#load}: an operator's live tasks' loads, summed and indexed by bucket. */
class OperatorLoadTest {
  static final OperatorId COUNT = new OperatorId("count");

  static TaskMetricsSnapshot task(
      int index, String status, double perSecond, double busy, BucketLoads buckets) {
    return TaskSnapshots.of(new TaskId(COUNT, index))
        .status(status)
        .load(perSecond, busy)
        .buckets(buckets)
        .build();
  }

  static JobMetrics job(List<TaskMetricsSnapshot> tasks, List<Integer> placed) {
    Map<TaskId, Integer> placement = new LinkedHashMap<>();
    placed.forEach(i -> placement.put(new TaskId(COUNT, i), 0));
    return new JobMetrics(
        "j", JobStatus.RUNNING, 0, tasks, List.of(), placement, 0, CheckpointStats.NONE, null);
  }

  @Test
  void bucketsAreIndexedByBucketWithTheirOwnerAndTheTasksSummed() {
    JobMetrics m =
        job(
            List.of(
                task(
                    1,
                    "RUNNING",
                    300,
                    0.3,
                    new BucketLoads(
                        4, new int[] {2, 3}, new double[] {100, 200}, new double[] {0.1, 0.2})),
                task(
                    0,
                    "RUNNING",
                    500,
                    0.25,
                    new BucketLoads(
                        4, new int[] {0, 1}, new double[] {450, 50}, new double[] {0.2, 0.05})),
                // a retired holder: placed, owns no bucket, its rates still decaying
                task(
                    2,
                    "RUNNING",
                    40,
                    0.1,
                    new BucketLoads(4, new int[0], new double[0], new double[0])),
                // released: not live
                task(3, "RELEASED", 0, 0, BucketLoads.NONE)),
            List.of(0, 1, 2, 3));
    OperatorLoad load = m.load("count");
    assertThat(load.operator()).isEqualTo("count");
    assertThat(load.tasks())
        .extracting(t -> t.task().index())
        .as("live tasks, by index")
        .containsExactly(0, 1);
    assertThat(load.recordsPerSecond()).isEqualTo(800);
    assertThat(load.busyFraction()).isCloseTo(0.55, within(1e-12));
    assertThat(load.processingRate()).isCloseTo(800 / 0.55, within(1e-9));
    assertThat(load.tasks().get(0).processingRate()).isEqualTo(2_000);
    assertThat(load.bucketCount()).isEqualTo(4);
    assertThat(load.bucketRecordsPerSecond()).containsExactly(450, 50, 100, 200);
    assertThat(load.bucketBusyFraction()).containsExactly(0.2, 0.05, 0.1, 0.2);
    assertThat(load.bucketOwners()).containsExactly(0, 0, 1, 1);
  }

  @Test
  void aBucketSeenAtTwoTasksWhileItMovesIsSummedAndOwnedByTheBusierOne() {
    JobMetrics m =
        job(
            List.of(
                task(
                    0,
                    "RUNNING",
                    10,
                    0.1,
                    new BucketLoads(
                        2, new int[] {0, 1}, new double[] {90, 10}, new double[] {0.09, 0.01})),
                task(
                    1,
                    "RUNNING",
                    0,
                    0,
                    new BucketLoads(2, new int[] {0}, new double[] {0}, new double[] {0}))),
            List.of(0, 1));
    OperatorLoad load = m.load("count");
    assertThat(load.bucketRecordsPerSecond()).containsExactly(90, 10);
    assertThat(load.bucketOwners()).containsExactly(0, 0);
    assertThat(load.tasks().get(1).processingRate()).isNaN();
  }

  @Test
  void unplacedAndUnknownOperatorsHaveNoLoad() {
    JobMetrics m = job(List.of(task(0, "RUNNING", 10, 0.1, BucketLoads.NONE)), List.of());
    assertThat(m.load("count").tasks()).isEmpty();
    assertThat(m.load("nope").bucketCount()).isZero();
    assertThat(m.load("nope").processingRate()).isNaN();
  }

  @Test
  void bucketLoadsAreChecked() {
    assertThatThrownBy(() -> new BucketLoads(4, new int[] {1}, new double[0], new double[] {0}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one rate per bucket");
    assertThatThrownBy(() -> new BucketLoads(4, new int[] {4}, new double[] {1}, new double[] {0}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bucket 4 is out of range [0, 4)");
    int[] ids = {1};
    BucketLoads l = new BucketLoads(4, ids, new double[] {1}, new double[] {0});
    ids[0] = 3;
    assertThat(l.buckets()).as("a copy").containsExactly(1);
  }

  /** Issue 48: the tasks running an operator now, not its retired holders. */
  @Test
  void parallelismCountsTheCurrentTasksNotTheRetiredOnes() {
    JobMetrics m =
        job(
            List.of(
                task(0, "RUNNING", 0, 0, BucketLoads.NONE),
                task(1, "RUNNING", 0, 0, BucketLoads.NONE),
                task(2, TaskMetricsSnapshot.RETIRED, 0, 0, BucketLoads.NONE),
                task(3, TaskMetricsSnapshot.RELEASED, 0, 0, BucketLoads.NONE)),
            List.of(0, 1, 2));
    assertThat(m.parallelism("count")).isEqualTo(2);
    assertThat(m.parallelism("sink")).as("no such operator").isZero();
    assertThat(m.placement())
        .as("where the retired holder still runs")
        .containsKey(new TaskId(COUNT, 2));
  }
}
