package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.coordinator.EpochDriver.Phase;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskSnapshots;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The running reconfiguration's work left (its holders' state) and its time left. */
class ProgressEstimatorTest {
  private static final OperatorId COUNT = new OperatorId("count");
  private static final OperatorId SINK = new OperatorId("sink");

  private static TaskMetricsSnapshot task(OperatorId op, int index, long stateBytes) {
    return TaskSnapshots.of(new TaskId(op, index)).stateBytes(stateBytes).build();
  }

  /** count#0 and count#1 retire (holding 600 and 400 bytes now), count#2 owns; sink#1 is apart. */
  private static List<TaskMetricsSnapshot> tasks(long holder0, long holder1) {
    return List.of(
        task(COUNT, 0, holder0),
        task(COUNT, 1, holder1),
        task(COUNT, 2, 5_000),
        task(SINK, 1, 7_000));
  }

  private static ReconfigurationProgress at(
      ProgressEstimator e, long epoch, Phase phase, List<TaskMetricsSnapshot> tasks, long now) {
    return e.estimate("rescale", COUNT, epoch, phase, 100, 2, Set.of(0, 1), tasks, now);
  }

  @Test
  void theWorkLeftIsTheRetiringHoldersStateAndTheTimeLeftFollowsItsShrinking() {
    ProgressEstimator e = new ProgressEstimator();
    ReconfigurationProgress first = at(e, 3, Phase.HANDING_OVER, tasks(600, 400), 1_000);
    assertThat(first.holderBytes()).isEqualTo(1_000);
    assertThat(first.etaSeconds()).as("not draining yet").isNaN();
    assertThat(first.operator()).isEqualTo("count");
    assertThat(first.phase()).isEqualTo("HANDING_OVER");
    assertThat(first.queued()).isEqualTo(2);

    assertThat(at(e, 3, Phase.DRAINING, tasks(600, 400), 2_000).etaSeconds())
        .as("no shrinking seen yet")
        .isNaN();
    // 1000 → 800 bytes in 2 s: 100 B/s, 8 s left
    assertThat(at(e, 3, Phase.DRAINING, tasks(500, 300), 4_000).etaSeconds()).isEqualTo(8.0);
    assertThat(at(e, 3, Phase.DRAINING, tasks(0, 0), 5_000).etaSeconds()).isZero();
  }

  @Test
  void aSampleOfAnotherEpochGivesNoRate() {
    ProgressEstimator e = new ProgressEstimator();
    at(e, 3, Phase.DRAINING, tasks(600, 400), 1_000);
    assertThat(at(e, 4, Phase.DRAINING, tasks(100, 100), 2_000).etaSeconds()).isNaN();
  }
}
