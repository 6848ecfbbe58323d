package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.CHECKPOINTS;
import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.CheckpointStats;
import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.plan.OperatorNode;
import io.koala.plan.TaskId;
import io.koala.protocol.CheckpointMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The job's checkpoints on their own: when one is triggered, when it commits, who hears of it, and
 * what a rollback or the job's end does to them, with the rest of the job a recording stand-in
 * ({@link JobCheckpoints.Parts}).
 */
class JobCheckpointsTest {
  /** The rest of the job as the checkpoints see it, and what it is told, in order. */
  private static final class Job implements JobCheckpoints.Parts {
    JobStatus status = JobStatus.RUNNING;
    boolean epochRunning;
    final List<String> told = new ArrayList<>();
    ErrorInfo failure;

    @Override
    public JobStatus status() {
      return status;
    }

    @Override
    public void fail(ErrorInfo error) {
      failure = error;
      status = JobStatus.FAILED;
    }

    @Override
    public void failed(ErrorInfo error) {
      failure = error;
      told.add("failed");
    }

    @Override
    public void stopped() {
      told.add("stopped");
    }

    @Override
    public boolean epochRunning() {
      return epochRunning;
    }

    @Override
    public long lastEpoch() {
      return 0;
    }

    @Override
    public int reports() {
      return 0;
    }

    @Override
    public int takenRequests() {
      return 0;
    }

    @Override
    public void triggered(long id) {
      told.add("triggered " + id);
    }

    @Override
    public void committed(long id) {
      told.add("committed " + id);
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
    public void checkpointDone() {
      told.add("checkpointDone");
    }

    @Override
    public void inputsResumed() {
      told.add("inputsResumed");
    }

    @Override
    public void cut(TaskId task, long id) {}

    @Override
    public boolean uncut(TaskId task) {
      return false;
    }

    @Override
    public void publish(long id) {
      told.add("publish " + id);
    }

    @Override
    public void finished() {
      told.add("finished");
    }

    @Override
    public void releaseHolder(TaskId task) {
      told.add("releaseHolder " + task);
    }

    @Override
    public void crashPoint() {}

    @Override
    public void crashPointAfterCommit() {}
  }

  private final Job job = new Job();
  private final Attempts attempts = new Attempts();
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(JobCheckpointsTest.class), roster, 0);
  private final JobSetup setup =
      JobSetups.setup(CHECKPOINTS, null, JobSetups.plan(2), List.of(), false);
  private final JobState state = JobState.initial(setup);
  private final JobCheckpoints checkpoints =
      new JobCheckpoints(setup, out, state, attempts, roster, job);
  private final List<Object> answers = new ArrayList<>();

  JobCheckpointsTest() {
    for (TaskId t : state.deployment().setups().keySet()) {
      roster.deployed(new JobSetups.Address(t));
    }
  }

  private List<TaskId> sources() {
    return roster.ids().stream()
        .filter(t -> setup.plan().vertex(t.operator()).head().kind() == OperatorNode.Kind.SOURCE)
        .toList();
  }

  /**
   * Every task reports its snapshot of checkpoint {@code id} and its barrier reaches the client.
   */
  private void complete(long id) {
    complete(checkpoints, id);
  }

  /** {@link #complete(long)} on {@code c}. */
  private void complete(JobCheckpoints c, long id) {
    for (TaskId t : roster.ids()) {
      c.onSnapshotTaken(new JobInput.SnapshotTaken(t, id, "/cp/" + id + "/" + t, 10));
      c.clientBarrier(t, id);
    }
  }

  /** The messages of the replies among {@code effects}, sent as a host sends them. */
  private List<Object> replies(List<JobEffect> effects) {
    List<Object> sent = new ArrayList<>();
    for (JobEffect e : effects) {
      if (e instanceof JobEffect.Reply<?> r) {
        sent.add(r.message());
      }
    }
    return sent;
  }

  @Test
  void aCheckpointATaskAsksForStartsBeforeItIsDueAndOnceTheOneInProgressCommits() {
    TaskId sink = roster.ids().iterator().next();
    out.at(1);
    checkpoints.on(new JobInput.CheckpointWanted(sink, "its log is large"));
    assertThat(checkpoints.inProgress()).as("long before the interval").isTrue();
    assertThat(job.told).containsExactly("triggered 1");

    checkpoints.on(new JobInput.CheckpointWanted(sink, "still large"));
    assertThat(job.told).as("one in progress: the next waits for it").hasSize(1);
    complete(1);
    checkpoints.onJournaled(new JobInput.Journaled(0, 1, null));
    assertThat(job.told).contains("committed 1", "triggered 2");
    complete(2);
    checkpoints.onJournaled(new JobInput.Journaled(0, 2, null));
    checkpoints.maybeCheckpoint();
    assertThat(job.told).as("asked once, taken once").doesNotContain("triggered 3");
  }

  @Test
  void aCheckpointIsTriggeredOnceDueWhileTheJobRunsAndNoEpochRuns() {
    out.at(CHECKPOINTS.interval().toMillis() - 1);
    checkpoints.maybeCheckpoint();
    assertThat(checkpoints.inProgress()).isFalse();

    out.at(CHECKPOINTS.interval().toMillis());
    job.epochRunning = true;
    checkpoints.maybeCheckpoint();
    assertThat(checkpoints.inProgress()).isFalse();
    job.status = JobStatus.DEPLOYING;
    job.epochRunning = false;
    checkpoints.maybeCheckpoint();
    assertThat(checkpoints.inProgress()).isFalse();

    job.status = JobStatus.RUNNING;
    checkpoints.maybeCheckpoint();
    assertThat(checkpoints.inProgress()).isTrue();
    assertThat(job.told).containsExactly("triggered 1");
    List<JobEffect.ToTask> told = of(JobEffect.ToTask.class, out.drain());
    assertThat(told)
        .extracting(t -> t.task().task())
        .containsExactlyElementsOf(sources())
        .isNotEmpty();
    assertThat(told)
        .extracting(JobEffect.ToTask::message)
        .containsOnly(new CheckpointMessage.TriggerCheckpoint(1, false));
  }

  @Test
  void aCheckpointNotCommittedWithinItsTimeoutFailsTheAttemptNamingWhatItWaitedFor() {
    long start = CHECKPOINTS.interval().toMillis();
    out.at(start);
    checkpoints.maybeCheckpoint();
    assertThat(checkpoints.inProgress()).isTrue();
    List<TaskId> tasks = List.copyOf(roster.ids());
    TaskId stuck = tasks.get(tasks.size() - 1);
    for (TaskId t : tasks.subList(0, tasks.size() - 1)) {
      checkpoints.onSnapshotTaken(new JobInput.SnapshotTaken(t, 1, "/cp/1/" + t, 10));
      checkpoints.clientBarrier(t, 1);
    }
    long timeout = CHECKPOINTS.timeout().toMillis();

    out.at(start + timeout - 1);
    checkpoints.on(JobInput.CheckpointTick.INSTANCE);
    assertThat(job.failure).isNull();
    CheckpointStats.Pending pending = checkpoints.stats().pending();
    assertThat(pending.id()).isEqualTo(1);
    assertThat(pending.millis()).isEqualTo(timeout - 1);
    assertThat(pending.waitingFor()).contains(stuck.toString());

    out.at(start + timeout);
    checkpoints.on(JobInput.CheckpointTick.INSTANCE);
    assertThat(job.told).contains("failed");
    assertThat(job.failure.message())
        .contains("checkpoint 1", "koala.checkpoint.timeout", stuck.toString(), "snapshot");
  }

  @Test
  void withTolerableFailuresATimedOutCheckpointIsAbandonedAndOnlyTheNextTimeoutInARowRollsBack() {
    JobSetup.Checkpointing tolerant =
        new JobSetup.Checkpointing(
            CHECKPOINTS.interval(),
            CHECKPOINTS.retained(),
            CHECKPOINTS.restarts(),
            CHECKPOINTS.redeployTimeout(),
            CHECKPOINTS.timeout(),
            1);
    JobCheckpoints c =
        new JobCheckpoints(
            JobSetups.setup(tolerant, null, JobSetups.plan(2), List.of(), false),
            out,
            state,
            attempts,
            roster,
            job);
    long interval = CHECKPOINTS.interval().toMillis();
    long timeout = CHECKPOINTS.timeout().toMillis();
    List<TaskId> tasks = List.copyOf(roster.ids());
    TaskId reported = tasks.get(0);
    out.at(interval);
    c.onTake(new JobInput.TakeCheckpoint(answers::add));
    c.onSnapshotTaken(new JobInput.SnapshotTaken(reported, 1, "/cp/1/" + reported, 10));
    out.drain();

    out.at(interval + timeout);
    c.on(JobInput.CheckpointTick.INSTANCE);
    assertThat(job.failure).as("the first timeout is tolerated").isNull();
    assertThat(c.stats().timedOut()).isEqualTo(1);
    List<JobEffect> effects = out.drain();
    assertThat(of(JobEffect.ToTask.class, effects))
        .filteredOn(t -> t.message() instanceof CheckpointMessage.AbortCheckpoint)
        .extracting(t -> t.task().task())
        .as("every task its barrier reaches drops them")
        .containsExactlyInAnyOrderElementsOf(tasks);
    assertThat(of(JobEffect.DiscardCheckpoint.class, effects))
        .containsExactly(
            new JobEffect.DiscardCheckpoint(
                1, List.of(java.nio.file.Path.of("/cp/1/" + reported))));
    assertThat(job.told).contains("checkpointDone", "triggered 2");
    assertThat(answers).as("who asked for it waits for the next").isEmpty();

    TaskId late = tasks.get(1);
    c.onSnapshotTaken(new JobInput.SnapshotTaken(late, 1, "/cp/1/" + late, 10));
    assertThat(out.drain())
        .as("a late snapshot of the abandoned checkpoint")
        .containsExactly(new JobEffect.DeleteSnapshot(java.nio.file.Path.of("/cp/1/" + late)));
    complete(c, 2);
    c.onJournaled(new JobInput.Journaled(0, 2, null));
    assertThat(job.told).contains("publish 2", "committed 2");
    assertThat(replies(out.drain())).containsExactly(new JobReply.CheckpointOutcome(2, null));

    long third = interval + timeout + 2 * interval;
    out.at(third);
    c.maybeCheckpoint();
    out.at(third + timeout);
    c.on(JobInput.CheckpointTick.INSTANCE);
    assertThat(job.failure).as("a commit started the count again").isNull();
    out.at(third + timeout + interval);
    c.maybeCheckpoint();
    assertThat(job.told).contains("triggered 4");
    out.at(third + 2 * timeout + interval);
    c.on(JobInput.CheckpointTick.INSTANCE);
    assertThat(job.told).contains("failed");
    assertThat(job.failure.message())
        .contains("checkpoint 4", "koala.checkpoint.timeout", "after 1 abandoned in a row");
    assertThat(c.stats().timedOut()).isEqualTo(3);
  }

  @Test
  void aCheckpointCommitsOnlyOnceTheJournalRecordedItThenPublishesTellsAndAnswers() {
    checkpoints.onTake(new JobInput.TakeCheckpoint(answers::add));
    assertThat(job.told).containsExactly("triggered 1");
    out.drain();

    complete(1);
    List<JobEffect> completed = out.drain();
    assertThat(of(JobEffect.JournalCheckpoint.class, completed))
        .extracting(j -> j.checkpoint().id(), JobEffect.JournalCheckpoint::attempt)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, 0));
    assertThat(of(JobEffect.WriteMetadata.class, completed)).isEmpty();
    assertThat(job.told).containsExactly("triggered 1");
    assertThat(checkpoints.latest()).isEmpty();

    checkpoints.onJournaled(new JobInput.Journaled(0, 1, null));
    List<JobEffect> committed = out.drain();
    assertThat(job.told)
        .containsExactly("triggered 1", "publish 1", "committed 1", "checkpointDone");
    assertThat(of(JobEffect.WriteMetadata.class, committed)).hasSize(1);
    assertThat(of(JobEffect.ToTask.class, committed))
        .extracting(JobEffect.ToTask::message)
        .containsOnly(new CheckpointMessage.CheckpointCommitted(1, 1))
        .hasSize(roster.ids().size());
    assertThat(replies(committed)).containsExactly(new JobReply.CheckpointOutcome(1, null));
    assertThat(checkpoints.latest()).hasValueSatisfying(c -> assertThat(c.id()).isEqualTo(1));
    assertThat(checkpoints.committedCount()).isEqualTo(1);
    assertThat(checkpoints.stats().lastBytes()).isEqualTo(10L * roster.ids().size());
  }

  @Test
  void aJournalThatCannotRecordTheCheckpointFailsTheAttemptAndForgetsTheRecord() {
    checkpoints.onTake(new JobInput.TakeCheckpoint(answers::add));
    complete(1);
    out.drain();
    checkpoints.onJournaled(new JobInput.Journaled(0, 1, "disk full"));
    assertThat(job.failure.describe()).contains("cannot record checkpoint 1").contains("disk full");
    assertThat(job.status).as("a rollback, not the job's end").isEqualTo(JobStatus.RUNNING);
    assertThat(job.told).contains("failed").doesNotContain("publish 1");
    assertThat(of(JobEffect.JournalDiscard.class, out.drain()))
        .extracting(JobEffect.JournalDiscard::checkpointId)
        .containsExactly(1L);
  }

  @Test
  void aCheckpointRecordedAfterARollbackAbandonedItIsForgottenAndPublishesNothing() {
    checkpoints.onTake(new JobInput.TakeCheckpoint(answers::add));
    complete(1);
    attempts.rollingBack();
    checkpoints.rolledBack();
    out.drain();
    checkpoints.onJournaled(new JobInput.Journaled(0, 1, null));
    assertThat(out.drain()).containsExactly(new JobEffect.JournalDiscard(1));
    assertThat(job.told).doesNotContain("publish 1");
  }

  @Test
  void aRollbackFailsASavepointsWaiterAndAsksAgainForAPlainCheckpoint() {
    List<Object> savepoints = new ArrayList<>();
    job.epochRunning = true; // both wait for the epoch, then for the same checkpoint
    checkpoints.onTake(new JobInput.TakeCheckpoint(answers::add));
    checkpoints.onTakeSavepoint(new JobInput.TakeSavepoint("/sp", false, savepoints::add));
    job.epochRunning = false;
    checkpoints.maybeCheckpoint();
    assertThat(job.told).containsExactly("triggered 1");
    attempts.rollingBack();
    checkpoints.rolledBack();
    List<Object> told = replies(out.drain());
    assertThat(told).hasSize(1);
    JobReply.SavepointOutcome failed = (JobReply.SavepointOutcome) told.get(0);
    assertThat(failed.checkpointId()).isEqualTo(-1);
    assertThat(failed.error()).contains("rolled back").contains("the job goes on");

    attempts.resumed();
    checkpoints.maybeCheckpoint(); // asked for: not waiting for the interval
    assertThat(job.told).containsExactly("triggered 1", "triggered 2");
    complete(2);
    checkpoints.onJournaled(new JobInput.Journaled(1, 2, null));
    assertThat(replies(out.drain())).containsExactly(new JobReply.CheckpointOutcome(2, null));
  }

  @Test
  void aFinishedJobForgetsItsCheckpointsOnceNoSavepointIsBeingWrittenFromThem() {
    List<Object> savepoints = new ArrayList<>();
    checkpoints.onTakeSavepoint(new JobInput.TakeSavepoint("/sp", false, savepoints::add));
    complete(1);
    checkpoints.onJournaled(new JobInput.Journaled(0, 1, null));
    List<JobEffect.WriteSavepoint> writes = of(JobEffect.WriteSavepoint.class, out.drain());
    assertThat(writes).hasSize(1);

    checkpoints.jobEnded(JobStatus.FINISHED);
    List<JobEffect> ended = out.drain();
    assertThat(ended).contains(new JobEffect.JournalDiscard(1));
    assertThat(of(JobEffect.DeleteCheckpoints.class, ended)).isEmpty(); // the savepoint links them
    assertThat(job.told).endsWith("finished");

    checkpoints.on(
        new JobInput.SavepointWritten(1, 0, "/sp", false, null, writes.get(0).replyTo()));
    List<JobEffect> written = out.drain();
    assertThat(of(JobEffect.DeleteCheckpoints.class, written)).hasSize(1);
    assertThat(replies(written)).containsExactly(new JobReply.SavepointOutcome("/sp", 1, 0, null));
  }
}
