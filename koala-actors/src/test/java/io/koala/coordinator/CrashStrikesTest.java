package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.JobStatus;
import io.koala.plan.TaskId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Crashes planned for testing, struck on their own: when one may strike, and at whom. */
class CrashStrikesTest {
  private JobStatus status = JobStatus.RUNNING;
  private EpochDriver.Phase phase;
  private final Attempts attempts = new Attempts();
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(CrashStrikesTest.class), roster, 0);
  private final JobSetup setup = JobSetups.setup(null, null, JobSetups.plan(2), List.of(), false);
  private final JobState state = JobState.initial(setup);
  private final CrashStrikes crashes =
      new CrashStrikes(
          out,
          state,
          attempts,
          roster,
          () -> status,
          new CrashStrikes.Parts() {
            @Override
            public EpochDriver.Phase epochPhase() {
              return phase;
            }

            @Override
            public long runningEpoch() {
              return phase == null ? 0 : 4;
            }

            @Override
            public boolean checkpointInProgress() {
              return false;
            }

            @Override
            public long pendingCheckpoint() {
              return -1;
            }

            @Override
            public int snapshotsTaken() {
              return 0;
            }

            @Override
            public boolean finishing() {
              return false;
            }

            @Override
            public long sinceStart() {
              return 0;
            }
          });

  CrashStrikesTest() {
    for (TaskId t : state.deployment().setups().keySet()) {
      roster.deployed(new JobSetups.Address(t));
    }
  }

  @Test
  void aCrashPlannedInAPhaseStrikesOneTaskOnceTheEpochReachesItAndOnlyWhileTheJobRuns() {
    crashes.on(
        new JobInput.PlanCrashes(
            3, List.of(new PlannedCrash.InPhase(EpochDriver.Phase.SWITCHING))));
    assertThat(out.drain()).isEmpty();
    phase = EpochDriver.Phase.SWITCHING;
    attempts.rollingBack(); // recovering
    crashes.maybeCrash();
    assertThat(out.drain()).isEmpty();
    attempts.resumed();
    status = JobStatus.DEPLOYING;
    crashes.maybeCrash();
    assertThat(out.drain()).isEmpty();

    status = JobStatus.RUNNING;
    crashes.maybeCrash();
    List<JobEffect.CrashTask> struck = of(JobEffect.CrashTask.class, out.drain());
    assertThat(struck).hasSize(1);
    assertThat(roster.ids()).contains(struck.get(0).task().task());
    assertThat(crashes.injected())
        .singleElement()
        .satisfies(i -> assertThat(i.during()).isEqualTo("epoch 4 SWITCHING"));
    crashes.maybeCrash();
    assertThat(out.drain()).isEmpty(); // struck once
  }
}
