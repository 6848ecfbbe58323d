package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.TaskSetup;
import io.koala.routing.PartitionPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The running reconfiguration on its own: when the next request starts as an epoch, what is
 * answered at once, and a stalled epoch; with the rest of the job a recording stand-in ({@link
 * EpochRunner.Parts}) and a real {@link RequestQueue}.
 */
class EpochRunnerTest {
  private final List<String> told = new ArrayList<>();
  private final List<Object> outcomes = new ArrayList<>();
  private boolean held;
  private boolean finishing;
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(EpochRunnerTest.class), roster, 0);
  private final JobSetup setup = JobSetups.setup(null, null, JobSetups.plan(2), List.of(), false);
  private final JobState state = JobState.initial(setup);
  private final RequestQueue requests =
      new RequestQueue(
          setup,
          out,
          state,
          () -> JobStatus.RUNNING,
          new RequestQueue.Parts() {
            @Override
            public void startNextEpoch() {}

            @Override
            public WorkerPool pool() {
              return setup.workers().pool();
            }

            @Override
            public void replan() {}

            @Override
            public void migrated(Change.Migrate migration) {}

            @Override
            public void migrationRejected(
                Change.Migrate migration,
                int worker,
                ReconfigurationException.Reason kind,
                String reason) {}
          });
  private final EpochRunner epochs =
      new EpochRunner(
          setup,
          out,
          state,
          new Attempts(),
          roster,
          () -> JobStatus.RUNNING,
          requests,
          new EpochRunner.Parts() {
            @Override
            public boolean epochsHeld() {
              return held;
            }

            @Override
            public void epochStarted() {
              told.add("epochStarted");
            }

            @Override
            public boolean finishing() {
              return finishing;
            }

            @Override
            public TaskId firstEnded() {
              return new TaskId(new OperatorId("n"), 0);
            }

            @Override
            public void inputEnded(EpochMessage.InputEnded report) {}

            @Override
            public void releaseInputs() {}

            @Override
            public void references(EpochMessage.References report) {}

            @Override
            public WorkerPool pool() {
              return setup.workers().pool();
            }

            @Override
            public void replan() {}

            @Override
            public void epochEnded() {}

            @Override
            public void deploying(TaskSetup s) {
              told.add("deploying " + s.task());
            }

            @Override
            public void tasksStarted(List<TaskAddress> started, List<TaskAddress> book) {}

            @Override
            public void failed(ErrorInfo error) {
              told.add("failed " + error.describe());
            }

            @Override
            public void crashPoint() {}
          });

  EpochRunnerTest() {
    for (TaskId t : state.deployment().setups().keySet()) {
      roster.deployed(new JobSetups.Address(t));
    }
  }

  private void request(int parallelism) {
    requests.on(
        new JobInput.Reconfigure(
            new Change.Rescale("count", parallelism, PartitionPolicy.even()), outcomes::add));
  }

  /** Sends the replies among the effects so far, as a host does; returns the other effects. */
  private List<JobEffect> drain() {
    return JobSetups.sendReplies(out.drain());
  }

  @Test
  void aRescaleStartsAsAnEpochThatDeploysItsNewTaskOnlyWhenTheTurnsAllow() {
    request(3);
    held = true;
    epochs.startNext();
    assertThat(epochs.running()).isFalse();

    held = false;
    epochs.startNext();
    assertThat(epochs.running()).isTrue();
    assertThat(epochs.runningEpoch()).isEqualTo(1);
    assertThat(told).containsExactly("epochStarted", "deploying count#2");
    assertThat(of(JobEffect.Deploy.class, drain()))
        .singleElement()
        .satisfies(
            d ->
                assertThat(d.setups())
                    .extracting(TaskSetup::task)
                    .containsExactly(new TaskId(new OperatorId("count"), 2)));
    assertThat(epochs.deploying()).isTrue();
  }

  @Test
  void aRescaleThatChangesNothingIsAnsweredAtOnceAndOneOfAFinishingJobRefused() {
    request(2);
    epochs.startNext();
    drain();
    assertThat(epochs.running()).isFalse();
    assertThat(outcomes).singleElement().isInstanceOf(JobReply.Completed.class);

    finishing = true;
    request(3);
    epochs.startNext();
    drain();
    assertThat(outcomes).hasSize(2);
    assertThat(((JobReply.Rejected) outcomes.get(1)).reason())
        .contains("is finishing: source task n#0 has read all its input");
  }

  @Test
  void anEpochWithoutProgressForTheStepTimeoutFailsAndItsRequestIsAnsweredAsStalled() {
    request(3);
    epochs.startNext();
    drain();
    epochs.on(new JobInput.EpochStalled(7)); // another epoch's timer
    assertThat(told).noneMatch(t -> t.startsWith("failed"));
    epochs.on(new JobInput.EpochStalled(1));
    assertThat(told)
        .last()
        .asString()
        .startsWith("failed ")
        .contains("made no progress for 30 s in phase DEPLOYING");
    drain();
    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o ->
                assertThat(((JobReply.Rejected) o).kind())
                    .isEqualTo(ReconfigurationException.Reason.STALLED));
    assertThat(epochs.running()).isFalse();
  }
}
