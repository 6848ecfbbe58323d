package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.CHECKPOINTS;
import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The job's status on its own: who hears of it, and that the job ends exactly once. */
class JobLifecycleTest {
  private final List<JobReply.StatusChanged> heard = new ArrayList<>();
  private final List<String> ended = new ArrayList<>();
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(JobLifecycleTest.class), roster, 0);

  private final JobLifecycle.Parts parts =
      new JobLifecycle.Parts() {
        @Override
        public void ended(JobStatus terminal, String reason) {
          ended.add(terminal + ": " + reason);
        }

        @Override
        public List<Integer> survivors() {
          return List.of(0, 1);
        }

        @Override
        public void stopRequested() {
          ended.add("stop requested");
        }
      };

  private JobLifecycle lifecycle(boolean sharded) {
    JobSetup setup =
        JobSetups.setup(CHECKPOINTS, heard::add, JobSetups.plan(2), List.of(), sharded);
    roster.deployed(new JobSetups.Address(new TaskId(new OperatorId("count"), 0)));
    return new JobLifecycle(setup, out, roster, parts);
  }

  @Test
  void theListenerHearsTheJobRunOnceAndEndOnce() {
    JobLifecycle lifecycle = lifecycle(false);
    lifecycle.started();
    lifecycle.started();
    JobSetups.sendReplies(out.drain());
    assertThat(heard).containsExactly(new JobReply.StatusChanged(JobStatus.RUNNING, null));

    ErrorInfo error =
        ErrorInfo.of("count", new TaskId(new OperatorId("count"), 0), null, new Exception("x"));
    lifecycle.fail(error);
    List<JobEffect> effects = out.drain();
    assertThat(of(JobEffect.CancelTasks.class, effects)).hasSize(1);
    assertThat(of(JobEffect.StopJob.class, effects))
        .extracting(JobEffect.StopJob::workers)
        .containsExactly(List.of(0, 1));
    assertThat(ended).singleElement().asString().startsWith("FAILED: job count is FAILED: ");
    JobSetups.sendReplies(effects);
    assertThat(heard).endsWith(new JobReply.StatusChanged(JobStatus.FAILED, error));

    lifecycle.fail(error);
    lifecycle.onCancel(new JobInput.Cancel(s -> {}));
    assertThat(ended).hasSize(1);
    assertThat(lifecycle.status()).isEqualTo(JobStatus.FAILED);
  }

  @Test
  void aShardedJobJournalsItsEndBeforeItsCheckpointsAreForgotten() {
    JobLifecycle lifecycle = lifecycle(true);
    lifecycle.end(JobStatus.FINISHED, null);
    assertThat(out.drain()).contains(new JobEffect.JournalEnd(JobStatus.FINISHED, null));
    assertThat(ended).containsExactly("FINISHED: job count is FINISHED");
  }

  @Test
  void aSubmissionOfAShardedJobThatEndedBeforeIsToldItDoesNotRunAgain() {
    JobLifecycle lifecycle = lifecycle(true);
    lifecycle.endedBefore(JobStatus.FINISHED, null);
    out.drain();
    List<JobReply.StatusChanged> submitter = new ArrayList<>();
    lifecycle.onSubscribe(new JobInput.Subscribe(submitter::add, true));
    JobSetups.sendReplies(out.drain());
    assertFailed(submitter.get(submitter.size() - 1), "submit the dataflow under another name");
    assertThat(submitter).hasSize(1);
  }

  /** {@code changed} says the job FAILED, its error naming each of {@code saying}. */
  private static void assertFailed(JobReply.StatusChanged changed, String... saying) {
    assertThat(changed.status()).isEqualTo(JobStatus.FAILED);
    assertThat(changed.error().describe()).contains(saying);
  }

  @Test
  void aSubmissionThatStartedTheCoordinatorOfAJobThatEndedBeforeIsToldItDoesNotRunAgain() {
    JobLifecycle lifecycle = lifecycle(true);
    List<JobReply.StatusChanged> submitter = new ArrayList<>();
    lifecycle.onSubscribe(new JobInput.Subscribe(submitter::add, true)); // before the journal
    lifecycle.endedBefore(JobStatus.FAILED, "a crash");
    JobSetups.sendReplies(out.drain());
    assertFailed(
        submitter.get(submitter.size() - 1), "ran on this cluster before and ended FAILED");
    assertFailed(heard.get(heard.size() - 1), "a crash"); // the other listeners hear its end
  }

  @Test
  void aSubmissionThatAsksForARestoreIsRefusedByACoordinatorItDidNotStart() {
    JobLifecycle lifecycle = lifecycle(true);
    lifecycle.started();
    List<JobReply.StatusChanged> submitter = new ArrayList<>();
    lifecycle.onSubscribe(new JobInput.Subscribe(submitter::add, true, "/checkpoints/a/chk-4"));
    JobSetups.sendReplies(out.drain());
    assertThat(submitter).hasSize(1);
    assertFailed(submitter.get(0), "cannot start from /checkpoints/a/chk-4", "under another name");
    assertThat(lifecycle.status()).as("the job runs on").isEqualTo(JobStatus.RUNNING);
  }

  @Test
  void aStopWithASavepointGathersTheFinalMetricsBeforeTheJobEnds() {
    JobLifecycle lifecycle = lifecycle(false);
    lifecycle.started();
    lifecycle.stopped();
    assertThat(ended).containsExactly("stop requested");
    assertThat(lifecycle.status()).isEqualTo(JobStatus.RUNNING);
    lifecycle.stopNow();
    assertThat(lifecycle.status()).isEqualTo(JobStatus.STOPPED);
    assertThat(of(JobEffect.CancelTasks.class, out.drain())).hasSize(1);
  }
}
