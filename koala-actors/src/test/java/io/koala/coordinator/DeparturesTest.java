package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.CHECKPOINTS;
import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The workers as the job sees them, on their own: a loss, a join, a leave; with the rest of the job
 * a recording stand-in ({@link Departures.Parts}). {@link DepartureTest} covers how a leaving
 * worker's tasks move.
 */
class DeparturesTest {
  private final List<String> told = new ArrayList<>();
  private JobStatus status = JobStatus.RUNNING;
  private final Attempts attempts = new Attempts();
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(DeparturesTest.class), roster, 0);
  private JobState state;

  private Departures departures(JobSetup.Checkpointing checkpointing, List<String> scaleOnJoin) {
    JobSetup setup = JobSetups.setup(checkpointing, null, JobSetups.plan(2), scaleOnJoin, false);
    state = JobState.initial(setup);
    for (TaskId t : state.deployment().setups().keySet()) {
      roster.deployed(new JobSetups.Address(t));
    }
    return new Departures(
        setup,
        out,
        state,
        attempts,
        roster,
        () -> status,
        new Departures.Parts() {
          @Override
          public void fail(ErrorInfo error) {
            told.add("fail " + error.describe());
          }

          @Override
          public void failed(ErrorInfo error) {
            told.add("failed " + error.describe());
          }

          @Override
          public void rollback(String cause) {
            told.add("rollback " + cause);
          }

          @Override
          public void refuseUnplaceable() {
            told.add("refuseUnplaceable");
          }

          @Override
          public void reconfigure(JobInput.Reconfigure request) {
            told.add("reconfigure " + request.change());
          }

          @Override
          public void migrate(Change.Migrate migration, int from) {
            told.add("migrate " + migration);
          }

          @Override
          public void startNextEpoch() {
            told.add("startNextEpoch");
          }

          @Override
          public boolean epochDeployingOn(int w) {
            return false;
          }

          @Override
          public boolean finishing() {
            return false;
          }

          @Override
          public TaskId firstEnded() {
            return null;
          }

          @Override
          public void askRelocationCheckpoint() {
            told.add("askRelocationCheckpoint");
          }
        });
  }

  @Test
  void aLostWorkerWithTasksOfTheJobIsAFailureNamingThemAndIsNeverUsedAgain() {
    Departures departures = departures(CHECKPOINTS, List.of());
    departures.onWorkerLost(new JobInput.WorkerLost(1));
    assertThat(departures.pool().available(1)).isFalse();
    assertThat(told).hasSize(2).first().isEqualTo("refuseUnplaceable");
    assertThat(told.get(1))
        .startsWith("failed ")
        .contains("worker 1 is lost")
        .contains("workers left: [0]");
    departures.onWorkerLost(new JobInput.WorkerLost(1)); // heard twice: once is enough
    assertThat(told).hasSize(2);
  }

  @Test
  void aWorkerLostWhileRecoveringRollsBackAgainAndTheLastOneLostFailsTheJob() {
    Departures departures = departures(CHECKPOINTS, List.of());
    attempts.rollingBack();
    departures.onWorkerLost(new JobInput.WorkerLost(0));
    assertThat(told).last().asString().startsWith("rollback ");
    departures.onWorkerLost(new JobInput.WorkerLost(1));
    assertThat(told)
        .last()
        .asString()
        .startsWith("fail ")
        .contains("every worker of job count is lost");
  }

  @Test
  void aWorkerThatJoinsIsWatchedAndTheScaleOnJoinOperatorsGrowOntoIt() {
    Departures departures = departures(CHECKPOINTS, List.of("count"));
    departures.onWorkerJoined(new JobInput.WorkerJoined(2, new WorkerAddress() {}));
    assertThat(of(JobEffect.WatchWorker.class, out.drain()))
        .extracting(JobEffect.WatchWorker::worker)
        .containsExactly(2);
    assertThat(told)
        .singleElement()
        .asString()
        .startsWith("reconfigure Rescale[operator=count, parallelism=3");
    assertThat(departures.pool().placeable()).contains(2);
  }

  @Test
  void aLeaveOfAWorkerTheJobDoesNotHaveIsRefusedAndOneOfAnEndedJobAnsweredAtOnce() {
    Departures departures = departures(CHECKPOINTS, List.of());
    List<JobReply.WorkerDrained> answers = new ArrayList<>();
    departures.onDrainWorker(new JobInput.DrainWorker(5, answers::add));
    status = JobStatus.FINISHED;
    departures.onDrainWorker(new JobInput.DrainWorker(1, answers::add));
    JobSetups.sendReplies(out.drain());
    assertThat(answers)
        .containsExactly(
            new JobReply.WorkerDrained("count", 5, "job count has no worker 5"),
            new JobReply.WorkerDrained("count", 1, null));
  }
}
