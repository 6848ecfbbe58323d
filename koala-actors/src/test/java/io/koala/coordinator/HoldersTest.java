package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.CHECKPOINTS;
import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.JobStatus;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Finished tasks and retired holders on their own: when a holder stops, and the job's end. */
class HoldersTest {
  /** The rest of the job as the holders see it; what it is told. */
  private static final class Job implements Holders.Parts {
    boolean epochDeploying;
    final List<String> told = new ArrayList<>();

    @Override
    public void taskFinished(TaskId task) {
      told.add("taskFinished " + task);
    }

    @Override
    public void holderUnreferenced(TaskId task) {
      told.add("holderUnreferenced " + task);
    }

    @Override
    public boolean epochDeploying() {
      return epochDeploying;
    }

    @Override
    public void allTasksFinished() {
      told.add("allTasksFinished");
    }

    @Override
    public void releasedMetrics(TaskId task, TaskMetricsSnapshot metrics) {
      told.add("releasedMetrics");
    }

    @Override
    public void holderStopped() {
      told.add("holderStopped");
    }
  }

  private final Job job = new Job();
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(HoldersTest.class), roster, 0);

  private Holders holders(JobSetup.Checkpointing checkpointing) {
    JobSetup setup = JobSetups.setup(checkpointing, null, JobSetups.plan(2), List.of(), false);
    JobState state = JobState.initial(setup);
    for (TaskId t : state.deployment().setups().keySet()) {
      roster.deployed(new JobSetups.Address(t));
    }
    return new Holders(setup, out, state, new Attempts(), roster, () -> JobStatus.RUNNING, job);
  }

  @Test
  void withoutCheckpointsAnUnreferencedHolderIsReleasedOnceAndStopsWithItsMetricsKept() {
    Holders holders = holders(null);
    TaskId holder = roster.ids().iterator().next();
    holders.unreferenced(holder);
    holders.unreferenced(holder);
    assertThat(of(JobEffect.AskReleasedMetrics.class, out.drain())).hasSize(1);
    assertThat(roster.isReleased(holder)).isTrue();

    holders.onReleased(new JobInput.HolderReleased(holder, null)); // it did not answer
    assertThat(of(JobEffect.StopTask.class, out.drain()))
        .extracting(JobEffect.StopTask::task)
        .containsExactly(holder);
    assertThat(job.told).containsExactly("releasedMetrics", "holderStopped");
  }

  @Test
  void withCheckpointsAnUnreferencedHolderWaitsForTheCheckpointsThatIncludeIt() {
    Holders holders = holders(CHECKPOINTS);
    TaskId holder = roster.ids().iterator().next();
    holders.unreferenced(holder);
    assertThat(job.told).containsExactly("holderUnreferenced " + holder);
    assertThat(out.drain()).isEmpty();
  }

  @Test
  void theJobEndsWhenEveryTaskFinishedAndNoEpochIsDeployingTasks() {
    Holders holders = holders(CHECKPOINTS);
    List<TaskId> tasks = List.copyOf(roster.ids());
    job.epochDeploying = true;
    for (TaskId t : tasks) {
      holders.onTaskFinished(new JobInput.TaskFinished(t));
    }
    assertThat(job.told).doesNotContain("allTasksFinished").hasSize(tasks.size());
    job.epochDeploying = false;
    holders.onTaskFinished(new JobInput.TaskFinished(tasks.get(0)));
    assertThat(job.told).endsWith("allTasksFinished");
  }
}
