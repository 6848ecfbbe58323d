package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.CHECKPOINTS;
import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.JobStatus;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Who goes next among epochs, checkpoints and the ends of the sources, on its own. */
class TurnsTest {
  private static final TaskId SOURCE = new TaskId(new OperatorId("n"), 0);

  /** The checkpoints and epochs as the turns see them; what they are told. */
  private static final class Job implements Turns.Parts {
    boolean inProgress;
    boolean wanted;
    boolean epochRunning;
    boolean sinkOutputUnpublished;
    final List<String> told = new ArrayList<>();

    @Override
    public boolean checkpointInProgress() {
      return inProgress;
    }

    @Override
    public boolean checkpointWanted() {
      return wanted;
    }

    @Override
    public boolean stoppingWithSavepoint() {
      return false;
    }

    @Override
    public boolean retiredSinkOutputUnpublished() {
      return sinkOutputUnpublished;
    }

    @Override
    public void maybeCheckpoint() {
      told.add("maybeCheckpoint");
    }

    @Override
    public boolean epochRunning() {
      return epochRunning;
    }

    @Override
    public long lastEpoch() {
      return 3;
    }

    @Override
    public void startNextEpoch() {
      told.add("startNextEpoch");
    }
  }

  private final Job job = new Job();
  private final Attempts attempts = new Attempts();
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(TurnsTest.class), roster, 0);
  private final Turns turns =
      new Turns(
          JobSetups.setup(CHECKPOINTS, null, JobSetups.plan(2), List.of(), false),
          out,
          attempts,
          () -> JobStatus.RUNNING,
          job);

  @Test
  void epochsWaitForACheckpointInProgressOrDueButGoFirstRightAfterACommit() {
    assertThat(turns.epochsHeld()).isFalse();
    job.wanted = true;
    assertThat(turns.epochsHeld()).isTrue();
    job.inProgress = true;
    assertThat(turns.epochsHeld()).isTrue();

    job.inProgress = false;
    turns.checkpointCommitted(); // another is already due: the epoch goes first all the same
    assertThat(turns.epochsHeld()).isFalse();
    turns.epochStarted();
    assertThat(turns.epochsHeld()).isTrue();

    job.wanted = false;
    assertThat(turns.epochsHeld()).isFalse();
    attempts.rollingBack();
    assertThat(turns.epochsHeld()).isTrue(); // recovering
  }

  @Test
  void aSourceThatReadAllItsInputEndsOnlyWhileNeitherAnEpochNorACheckpointRuns() {
    roster.deployed(new JobSetups.Address(SOURCE));
    turns.onInputEnded(new EpochMessage.InputEnded(SOURCE));
    assertThat(job.told).containsExactly("startNextEpoch");
    assertThat(turns.finishing()).isTrue();
    assertThat(turns.firstEnded()).isEqualTo(SOURCE);

    job.epochRunning = true;
    turns.releaseInputs();
    job.epochRunning = false;
    job.inProgress = true;
    turns.releaseInputs();
    assertThat(out.drain()).isEmpty();

    job.inProgress = false;
    turns.releaseInputs();
    assertThat(of(JobEffect.ToTask.class, out.drain()))
        .extracting(JobEffect.ToTask::message)
        .containsExactly(new EpochMessage.EndInput(3));
  }

  @Test
  void aRetiredSinksUnpublishedOutputGetsOneLastCheckpointBeforeTheSourcesEnd() {
    roster.deployed(new JobSetups.Address(SOURCE));
    turns.onInputEnded(new EpochMessage.InputEnded(SOURCE));
    job.sinkOutputUnpublished = true;
    turns.releaseInputs();
    assertThat(job.told).endsWith("maybeCheckpoint");
    assertThat(out.drain()).isEmpty();
  }
}
