package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.CHECKPOINTS;
import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.routing.PartitionPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The reconfiguration requests on their own: checked, coalesced, journaled before they start. */
class RequestQueueTest {
  private final List<String> told = new ArrayList<>();
  private JobStatus status = JobStatus.RUNNING;
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(RequestQueueTest.class), new TaskRoster(), 0);
  private final List<Object> outcomes = new ArrayList<>();

  private RequestQueue queue(JobSetup.Checkpointing checkpointing) {
    JobSetup setup = JobSetups.setup(checkpointing, null, JobSetups.plan(2), List.of(), false);
    return new RequestQueue(
        setup,
        out,
        JobState.initial(setup),
        () -> status,
        new RequestQueue.Parts() {
          @Override
          public void startNextEpoch() {
            told.add("startNextEpoch");
          }

          @Override
          public WorkerPool pool() {
            return setup.workers().pool();
          }

          @Override
          public void replan() {
            told.add("replan");
          }

          @Override
          public void migrated(Change.Migrate migration) {}

          @Override
          public void migrationRejected(
              Change.Migrate migration,
              int worker,
              ReconfigurationException.Reason kind,
              String reason) {}
        });
  }

  private static JobInput.Reconfigure rescale(
      String operator, int to, ReplyTo<JobReply.Outcome> r) {
    return new JobInput.Reconfigure(new Change.Rescale(operator, to, PartitionPolicy.even()), r);
  }

  /** Sends the replies among the effects so far, as a host does; returns the other effects. */
  private List<JobEffect> drain() {
    return JobSetups.sendReplies(out.drain());
  }

  @Test
  void aRescaleQueuedBehindAnotherOfTheSameOperatorReplacesItAndBothCallersWait() {
    RequestQueue queue = queue(null);
    List<Object> first = new ArrayList<>();
    queue.onReconfigure(rescale("count", 3, first::add));
    queue.onReconfigure(rescale("count", 4, outcomes::add));
    assertThat(queue.size()).isEqualTo(1);
    RequestQueue.Queued q = queue.peekDurable(); // without checkpoints: durable at once
    assertThat(q.change).isEqualTo(new Change.Rescale("count", 4, PartitionPolicy.even()));
    assertThat(q.replyTo).hasSize(2);
    assertThat(told).containsExactly("startNextEpoch");
  }

  @Test
  void requestsNoRetainedCheckpointCanRunAgainAreForgottenAndTheCountGoesOn() {
    RequestQueue queue = queue(null);
    for (int i = 0; i < 5; i++) {
      queue.onReconfigure(rescale("count", i + 2, outcomes::add));
      RequestQueue.Queued q = queue.peekDurable();
      queue.poll();
      queue.taken(q);
    }
    assertThat(queue.takenCount()).isEqualTo(5);
    queue.forgetTakenBefore(3); // the oldest retained checkpoint had taken three
    queue.forgetTakenBefore(2); // an older count changes nothing
    assertThat(queue.takenCount()).as("counted all the same").isEqualTo(5);
    // a rollback to a checkpoint that had taken four runs the fifth again
    queue.requeueTakenAfter(4);
    assertThat(queue.size()).isEqualTo(1);
    assertThat(queue.peekDurable().change)
        .isEqualTo(new Change.Rescale("count", 6, PartitionPolicy.even()));
    assertThat(queue.takenCount()).isEqualTo(4);
  }

  @Test
  void aRequestToAnEndedJobOrOfAnUnknownOperatorIsRejectedAtOnce() {
    RequestQueue queue = queue(null);
    queue.onReconfigure(rescale("nope", 3, outcomes::add));
    status = JobStatus.CANCELLED;
    queue.onReconfigure(rescale("count", 3, outcomes::add));
    drain();
    assertThat(outcomes)
        .extracting(o -> ((JobReply.Rejected) o).kind())
        .containsExactly(
            ReconfigurationException.Reason.INVALID_REQUEST,
            ReconfigurationException.Reason.JOB_ENDING);
    assertThat(queue.isEmpty()).isTrue();
  }

  @Test
  void withCheckpointsARequestMayStartOnlyOnceTheJournalRecordedIt() {
    RequestQueue queue = queue(CHECKPOINTS);
    queue.onReconfigure(rescale("count", 3, outcomes::add));
    assertThat(drain()).isEmpty(); // numbered once the journal has recovered
    queue.recovered(
        new JobInput.RecoveredJournal(
            1, null, null, List.of(), 0, List.of(), 0, new JobInput.Decoded<>(0, null, null)));
    List<JobEffect.JournalRequest> journaled = of(JobEffect.JournalRequest.class, drain());
    assertThat(journaled)
        .singleElement()
        .satisfies(j -> assertThat(j.seq()).isEqualTo(1))
        .satisfies(j -> assertThat(j.request().replyTo()).as("its caller").hasSize(1));
    assertThat(queue.peekDurable()).isNull();
    queue.onJournaled(new JobInput.RequestJournaled(1, null));
    assertThat(queue.peekDurable()).isNotNull();
  }

  /** A journal recovered with open request 7 ({@code change}), whose caller is {@code caller}. */
  private static JobInput.RecoveredJournal openRequest(
      Change change, ReplyTo<JobReply.Outcome> caller) {
    return new JobInput.RecoveredJournal(
        2,
        null,
        null,
        List.of(),
        0,
        List.of(
            new JobInput.Decoded<>(
                7, new JobInput.JournaledRequest(change, List.of(caller)), null)),
        7,
        null);
  }

  @Test
  void aRequestRunAgainByTheNextCoordinatorAnswersTheCallerTheJournalKept() {
    RequestQueue queue = queue(CHECKPOINTS);
    queue.recovered(
        openRequest(new Change.Rescale("count", 3, PartitionPolicy.even()), outcomes::add));
    RequestQueue.Queued q = queue.peekDurable();
    assertThat(q).as("journaled: it may start at once").isNotNull();
    queue.complete(queue.poll(), null);
    drain();
    assertThat(outcomes).singleElement().isInstanceOf(JobReply.Completed.class);
  }

  @Test
  void aJournaledRequestThatCannotRunAgainIsRefusedToItsCaller() {
    RequestQueue queue = queue(CHECKPOINTS);
    queue.recovered(openRequest(new Change.Migrate("count", 0, 9), outcomes::add)); // no worker 9
    drain();
    assertThat(queue.peekDurable()).isNull();
    assertThat(outcomes)
        .singleElement()
        .isInstanceOfSatisfying(
            JobReply.Rejected.class,
            r -> assertThat(r.kind()).isEqualTo(ReconfigurationException.Reason.INVALID_REQUEST));
  }
}
