package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.CheckpointMessage;
import io.koala.protocol.EpochMessage;
import io.koala.routing.PartitionPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The job core without a host: inputs in, effects out, in milliseconds. What each test checks is
 * what the core decides — what it deploys, starts, asks, tells and answers — as its host would see
 * it.
 */
class JobCoreTest {
  private static final JobSetup.Checkpointing CHECKPOINTS = JobSetups.CHECKPOINTS;

  private static ExecutionPlan plan() {
    return plan(2);
  }

  private static ExecutionPlan plan(int parallelism) {
    return JobSetups.plan(parallelism);
  }

  private static JobSetup setup(
      JobSetup.Checkpointing checkpointing, List<JobReply.StatusChanged> events) {
    return setup(checkpointing, events, plan(), List.of());
  }

  private static JobSetup setup(
      JobSetup.Checkpointing checkpointing,
      List<JobReply.StatusChanged> events,
      ExecutionPlan plan,
      List<String> scaleOnJoin) {
    return setup(checkpointing, events, plan, scaleOnJoin, false);
  }

  private static JobSetup setup(
      JobSetup.Checkpointing checkpointing,
      List<JobReply.StatusChanged> events,
      ExecutionPlan plan,
      List<String> scaleOnJoin,
      boolean sharded) {
    return JobSetups.setup(checkpointing, events::add, plan, scaleOnJoin, sharded);
  }

  /** {@code core} takes {@code input}; the replies among its effects are sent, as a host does. */
  private static List<JobEffect> on(JobCore core, JobInput input, long now) {
    List<JobEffect> effects = core.on(input, now);
    JobSetups.sendReplies(effects);
    return effects;
  }

  private static <T> List<T> of(Class<T> type, List<JobEffect> effects) {
    return JobSetups.of(type, effects);
  }

  /** Every worker reports its tasks deployed, as attempt {@code attempt}; returns the effects. */
  private static List<JobEffect> deployAll(JobCore core, List<JobEffect> effects, int attempt) {
    List<JobEffect> out = new ArrayList<>();
    for (JobEffect.Deploy d : of(JobEffect.Deploy.class, effects)) {
      out.addAll(
          on(
              core,
              new JobInput.FromAttempt(
                  attempt, new JobInput.TasksDeployed(d.worker(), JobSetups.addresses(d))),
              0));
    }
    return out;
  }

  @Test
  void aJobStartsItsTasksOnlyOnceEveryWorkerHasDeployedThem() {
    List<JobReply.StatusChanged> events = new ArrayList<>();
    JobCore core = new JobCore(setup(null, events), 0);
    List<JobEffect> start = core.start();
    List<JobEffect.Deploy> deploys = of(JobEffect.Deploy.class, start);
    assertThat(deploys).extracting(JobEffect.Deploy::worker).containsExactly(0, 1);
    int tasks = deploys.stream().mapToInt(d -> d.setups().size()).sum();

    JobEffect.Deploy first = deploys.get(0);
    List<TaskAddress> firstTasks = JobSetups.addresses(first);
    List<JobEffect> afterFirst =
        on(core, new JobInput.FromAttempt(0, new JobInput.TasksDeployed(0, firstTasks)), 0);
    assertThat(of(JobEffect.StartTasks.class, afterFirst)).isEmpty();
    assertThat(core.status()).isEqualTo(JobStatus.DEPLOYING);

    JobEffect.Deploy second = deploys.get(1);
    List<TaskAddress> secondTasks = JobSetups.addresses(second);
    List<JobEffect> afterAll =
        on(core, new JobInput.FromAttempt(0, new JobInput.TasksDeployed(1, secondTasks)), 0);
    List<JobEffect.StartTasks> starts = of(JobEffect.StartTasks.class, afterAll);
    assertThat(starts).hasSize(1);
    assertThat(starts.get(0).tasks()).hasSize(tasks);
    assertThat(core.status()).isEqualTo(JobStatus.RUNNING);
    List<Object> told = new ArrayList<>();
    for (JobEffect e : afterAll) {
      if (e instanceof JobEffect.Reply<?> r) {
        told.add(r.message());
      }
    }
    assertThat(told).containsExactly(new JobReply.StatusChanged(JobStatus.RUNNING, null));
  }

  @Test
  void whatAnOlderAttemptSaysIsDropped() {
    JobCore core = new JobCore(setup(null, new ArrayList<>()), 0);
    deployAll(core, core.start(), 0);
    TaskId task = new TaskId(new OperatorId("count"), 0);
    ErrorInfo error = ErrorInfo.of("count", task, null, new IllegalStateException("boom"));
    assertThat(on(core, new JobInput.FromAttempt(-1, new JobInput.TaskFailed(task, error)), 1))
        .isEmpty();
    assertThat(core.status()).isEqualTo(JobStatus.RUNNING);
  }

  @Test
  void withoutCheckpointsATaskFailureFailsTheJobAndCancelsEveryTask() {
    List<JobReply.StatusChanged> events = new ArrayList<>();
    JobCore core = new JobCore(setup(null, events), 0);
    deployAll(core, core.start(), 0);
    TaskId task = new TaskId(new OperatorId("count"), 1);
    ErrorInfo error = ErrorInfo.of("count", task, "k", new IllegalStateException("boom"));
    List<JobEffect> effects =
        on(core, new JobInput.FromAttempt(0, new JobInput.TaskFailed(task, error)), 5);
    assertThat(core.status()).isEqualTo(JobStatus.FAILED);
    assertThat(of(JobEffect.CancelTasks.class, effects)).hasSize(1);
    assertThat(of(JobEffect.StopJob.class, effects)).hasSize(1);
    assertThat(events).last().isEqualTo(new JobReply.StatusChanged(JobStatus.FAILED, error));
  }

  @Test
  void withCheckpointsATaskFailureRollsBackToANewAttemptRedeployedAfterTheBackoff() {
    JobCore core = new JobCore(setup(CHECKPOINTS, new ArrayList<>()), 0);
    List<JobEffect> start = core.start();
    assertThat(of(JobEffect.RecoverJournal.class, start)).hasSize(1);
    assertThat(of(JobEffect.Deploy.class, start)).as("not before the journal answered").isEmpty();
    List<JobEffect> recovered =
        on(
            core,
            new JobInput.Recovered(
                new JobInput.RecoveredJournal(0, null, null, List.of(), 0, List.of(), 0, null),
                null),
            1);
    deployAll(core, recovered, 0);
    assertThat(core.status()).isEqualTo(JobStatus.RUNNING);

    TaskId task = new TaskId(new OperatorId("count"), 0);
    ErrorInfo error = ErrorInfo.of("count", task, null, new IllegalStateException("boom"));
    List<JobEffect> rollback =
        on(core, new JobInput.FromAttempt(0, new JobInput.TaskFailed(task, error)), 10);
    assertThat(core.status()).isEqualTo(JobStatus.RUNNING);
    assertThat(core.attempt()).isEqualTo(1);
    assertThat(of(JobEffect.OpenAttempt.class, rollback))
        .extracting(JobEffect.OpenAttempt::attempt)
        .containsExactly(1);
    assertThat(of(JobEffect.StopAttemptsBefore.class, rollback))
        .extracting(JobEffect.StopAttemptsBefore::attempt)
        .containsExactly(1);
    assertThat(of(JobEffect.Deploy.class, rollback)).as("only after the backoff").isEmpty();
    JobEffect.StartTimer backoff =
        of(JobEffect.StartTimer.class, rollback).stream()
            .filter(t -> t.input() instanceof JobInput.Redeploy)
            .findFirst()
            .orElseThrow();
    assertThat(backoff.delay())
        .isEqualTo(CHECKPOINTS.restarts().delay("count", 1, 1))
        .isBetween(
            CHECKPOINTS.restarts().backoff().multipliedBy(9).dividedBy(10),
            CHECKPOINTS.restarts().backoff().multipliedBy(11).dividedBy(10));

    List<JobEffect> redeploy = on(core, backoff.input(), 60);
    assertThat(of(JobEffect.Deploy.class, redeploy))
        .as("no checkpoint yet: the initial deployment, as attempt 1")
        .isNotEmpty()
        .allMatch(d -> d.attempt() == 1 && d.restores().isEmpty());
    deployAll(core, redeploy, 1);
    assertThat(core.rollbacks()).isEqualTo(1);
  }

  /** A job with checkpoints, its (empty) journal recovered and its tasks deployed: running. */
  private static JobCore runningWithCheckpoints() {
    JobCore core = new JobCore(setup(CHECKPOINTS, new ArrayList<>()), 0);
    core.start();
    deployAll(
        core,
        on(
            core,
            new JobInput.Recovered(
                new JobInput.RecoveredJournal(0, null, null, List.of(), 0, List.of(), 0, null),
                null),
            1),
        0);
    return core;
  }

  @Test
  void aRequestIsJournaledBeforeItsEpochStarts() {
    JobCore core = runningWithCheckpoints();
    List<JobReply.Outcome> outcomes = new ArrayList<>();
    List<JobEffect> asked =
        on(
            core,
            new JobInput.Reconfigure(
                new Change.Rescale("count", 3, PartitionPolicy.even()), outcomes::add),
            2);
    JobEffect.JournalRequest journaled = of(JobEffect.JournalRequest.class, asked).get(0);
    assertThat(of(JobEffect.Deploy.class, asked)).as("no epoch before it is durable").isEmpty();
    assertThat(core.reconfiguring()).isTrue();

    List<JobEffect> durable = on(core, new JobInput.RequestJournaled(journaled.seq(), null), 3);
    assertThat(core.runningEpoch()).isEqualTo(1);
    assertThat(of(JobEffect.Deploy.class, durable))
        .as("the new task of the rescale")
        .singleElement()
        .satisfies(d -> assertThat(d.setups()).hasSize(1));
    assertThat(outcomes).isEmpty();
  }

  @Test
  void aStalledReconfigurationIsRejectedAndTheRollbackDoesNotRunItAgain() {
    JobCore core = runningWithCheckpoints();
    List<JobReply.Outcome> outcomes = new ArrayList<>();
    List<JobEffect> asked =
        on(
            core,
            new JobInput.Reconfigure(
                new Change.Rescale("count", 3, PartitionPolicy.even()), outcomes::add),
            2);
    JobEffect.JournalRequest journaled = of(JobEffect.JournalRequest.class, asked).get(0);
    deployAll(core, on(core, new JobInput.RequestJournaled(journaled.seq(), null), 3), 0);
    assertThat(core.runningEpoch()).isEqualTo(1);

    // no task answers the prepare: the step timer fires
    List<JobEffect> stalled = on(core, new JobInput.EpochStalled(1), 30_000);
    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              JobReply.Rejected r = (JobReply.Rejected) o;
              assertThat(r.kind()).isEqualTo(ReconfigurationException.Reason.STALLED);
              assertThat(r.reason())
                  .contains("made no progress", "PREPARING", "koala.reconfiguration.step-timeout");
            });
    assertThat(of(JobEffect.JournalRequestDone.class, stalled))
        .as("a restart from the journal does not run it either")
        .extracting(JobEffect.JournalRequestDone::seq)
        .containsExactly(journaled.seq());
    assertThat(core.status()).isEqualTo(JobStatus.RUNNING);
    assertThat(core.attempt()).as("rolled back").isEqualTo(1);
    JobEffect.StartTimer backoff =
        of(JobEffect.StartTimer.class, stalled).stream()
            .filter(t -> t.input() instanceof JobInput.Redeploy)
            .findFirst()
            .orElseThrow();
    deployAll(core, on(core, backoff.input(), 31_000), 1);
    assertThat(core.reconfiguring()).as("the stalled request is not run again").isFalse();
    assertThat(outcomes).hasSize(1);
  }

  @Test
  void aQueuedRescaleIsReplacedByANewerOneAndBothCallersGetItsOutcome() {
    JobCore core = new JobCore(setup(null, new ArrayList<>()), 0);
    deployAll(core, core.start(), 0);
    List<JobReply.Outcome> first = new ArrayList<>();
    List<JobReply.Outcome> second = new ArrayList<>();
    List<JobReply.Outcome> third = new ArrayList<>();
    on(
        core,
        new JobInput.Reconfigure(
            new Change.Rescale("count", 3, PartitionPolicy.even()), first::add),
        1);
    assertThat(core.runningEpoch()).as("the first starts at once").isEqualTo(1);
    on(
        core,
        new JobInput.Reconfigure(
            new Change.Rescale("count", 4, PartitionPolicy.even()), second::add),
        2);
    on(
        core,
        new JobInput.Reconfigure(
            new Change.Rescale("count", 1, PartitionPolicy.even()), third::add),
        3);
    assertThat(second).isEmpty();
    assertThat(third).isEmpty();
    assertThat(core.waitingFor()).contains("1 requests not started");
    // the job is cancelled: the running epoch and the one queued request (the coalesced third)
    // are answered, both callers of the queued one with the same outcome
    on(core, new JobInput.Cancel(status -> {}), 4);
    assertThat(first).singleElement().isInstanceOf(JobReply.Rejected.class);
    assertThat(second).singleElement().isEqualTo(third.get(0));
    assertThat(((JobReply.Rejected) second.get(0)).kind())
        .isEqualTo(ReconfigurationException.Reason.JOB_ENDING);
  }

  @Test
  void aSourceThatReadAllItsInputEndsOnlyOnceNoEpochRuns() {
    JobCore core = new JobCore(setup(null, new ArrayList<>()), 0);
    deployAll(core, core.start(), 0);
    on(
        core,
        new JobInput.Reconfigure(new Change.Rescale("count", 3, PartitionPolicy.even()), o -> {}),
        1);
    TaskId source = new TaskId(new OperatorId("n"), 0);
    List<JobEffect> ended =
        on(
            core,
            new JobInput.FromAttempt(
                0, new JobInput.EpochReported(new EpochMessage.InputEnded(source))),
            2);
    assertThat(of(JobEffect.ToTask.class, ended))
        .as("held while the epoch runs")
        .noneMatch(t -> t.message() instanceof EpochMessage.EndInput);

    JobCore idle = new JobCore(setup(null, new ArrayList<>()), 0);
    deployAll(idle, idle.start(), 0);
    List<JobEffect> endedIdle =
        on(
            idle,
            new JobInput.FromAttempt(
                0, new JobInput.EpochReported(new EpochMessage.InputEnded(source))),
            2);
    assertThat(of(JobEffect.ToTask.class, endedIdle))
        .as("at once when no epoch runs")
        .anyMatch(
            t -> t.task().task().equals(source) && t.message() instanceof EpochMessage.EndInput);
  }

  @Test
  void aCheckpointIsRecordedInTheJournalBeforeItsFilesAreKeptAndItsResultsPublished() {
    JobCore core = new JobCore(setup(CHECKPOINTS, new ArrayList<>()), 0);
    core.start();
    deployAll(
        core,
        on(
            core,
            new JobInput.Recovered(
                new JobInput.RecoveredJournal(0, null, null, List.of(), 0, List.of(), 0, null),
                null),
            0),
        0);
    List<JobEffect> trigger = on(core, JobInput.CheckpointTick.INSTANCE, 150);
    assertThat(core.checkpointInProgress()).isTrue();
    assertThat(of(JobEffect.ToTask.class, trigger))
        .as("the sources get the barrier")
        .isNotEmpty()
        .allMatch(t -> t.task().task().operator().name().equals("n"));
    assertThat(of(JobEffect.JournalCheckpoint.class, trigger)).isEmpty();
  }

  @Test
  void aStopWithASavepointAbandonedByARollbackFailsAndTheJobGoesOn() {
    JobCore core = new JobCore(setup(CHECKPOINTS, new ArrayList<>()), 0);
    core.start();
    deployAll(
        core,
        on(
            core,
            new JobInput.Recovered(
                new JobInput.RecoveredJournal(0, null, null, List.of(), 0, List.of(), 0, null),
                null),
            0),
        0);
    List<JobReply.SavepointOutcome> replies = new ArrayList<>();
    List<JobEffect> trigger =
        on(core, new JobInput.TakeSavepoint("/savepoints/count/sp", true, replies::add), 10);
    assertThat(of(JobEffect.ToTask.class, trigger))
        .as("the sources stop at the savepoint's barrier")
        .isNotEmpty()
        .allMatch(t -> t.message().equals(new CheckpointMessage.TriggerCheckpoint(1, true)));

    TaskId task = new TaskId(new OperatorId("count"), 0);
    ErrorInfo error = ErrorInfo.of("count", task, null, new IllegalStateException("boom"));
    on(core, new JobInput.FromAttempt(0, new JobInput.TaskFailed(task, error)), 20);
    assertThat(replies)
        .singleElement()
        .satisfies(r -> assertThat(r.error()).contains("rolled back").contains("goes on"));
    assertThat(core.status()).isEqualTo(JobStatus.RUNNING);
    assertThat(core.checkpointInProgress()).isFalse();

    on(core, new JobInput.TakeSavepoint("/savepoints/count/sp", false, replies::add), 30);
    on(core, new JobInput.Cancel(status -> {}), 40);
    assertThat(replies).hasSize(2);
    assertThat(replies.get(1).error()).isEqualTo("job count is CANCELLED");
  }

  /** A worker address as a host would hand it out. */
  private record Joined(int worker) implements WorkerAddress {}

  @Test
  void aWorkerThatJoinsGetsTheNewTasksOfTheOperatorsScaledOntoIt() {
    // count's 3 tasks on 2 workers are 2 + 1: the least-loaded rule would give worker 1 one
    JobCore core = new JobCore(setup(null, new ArrayList<>(), plan(3), List.of("count")), 0);
    deployAll(core, core.start(), 0);
    List<JobEffect> joined = on(core, new JobInput.WorkerJoined(2, new Joined(2)), 1);
    List<JobEffect.Deploy> deploys = of(JobEffect.Deploy.class, joined);
    assertThat(deploys).extracting(JobEffect.Deploy::worker).containsExactly(2);
    assertThat(deploys.get(0).setups())
        .extracting(s -> s.task().toString())
        .containsExactly("count#3", "count#4");
  }

  @Test
  void aWorkerLostWhileATakeoverDeploysRestartsTheRecoveryInsteadOfFailingTheJob() {
    List<JobReply.StatusChanged> events = new ArrayList<>();
    JobCore core = new JobCore(setup(CHECKPOINTS, events, plan(), List.of(), true), 0);
    core.start();
    // a coordinator of this job ran before (its node was downed): this one takes over
    List<JobEffect> recovered =
        on(
            core,
            new JobInput.Recovered(
                new JobInput.RecoveredJournal(2, null, null, List.of(), 0, List.of(), 0, null),
                null),
            1);
    JobEffect.StartTimer backoff =
        of(JobEffect.StartTimer.class, recovered).stream()
            .filter(t -> t.input() instanceof JobInput.Redeploy)
            .findFirst()
            .orElseThrow();
    List<JobEffect> deploying = on(core, backoff.input(), 60);
    assertThat(of(JobEffect.Deploy.class, deploying))
        .extracting(JobEffect.Deploy::worker)
        .containsExactly(0, 1);
    int attempt = core.attempt();

    // the downed node's worker is known lost only now, while the takeover deploys onto it
    List<JobEffect> lost = on(core, new JobInput.WorkerLost(1), 61);
    assertThat(core.status()).as("%s", events).isEqualTo(JobStatus.DEPLOYING);
    assertThat(core.attempt()).isEqualTo(attempt + 1);
    JobEffect.StartTimer again =
        of(JobEffect.StartTimer.class, lost).stream()
            .filter(t -> t.input() instanceof JobInput.Redeploy)
            .findFirst()
            .orElseThrow();
    List<JobEffect> redeploy = on(core, again.input(), 120);
    assertThat(of(JobEffect.Deploy.class, redeploy))
        .as("every task on the worker left")
        .extracting(JobEffect.Deploy::worker)
        .containsExactly(0);
    deployAll(core, redeploy, attempt + 1);
    assertThat(core.status()).isEqualTo(JobStatus.RUNNING);
  }

  /**
   * Every input but the attempt's stamp belongs to exactly one part's group, so that routing it
   * never falls through (the groups are nested in {@link JobInput}).
   */
  @Test
  void everyInputBelongsToExactlyOnePartsGroup() {
    List<Class<?>> groups = new ArrayList<>();
    List<Class<?>> inputs = new ArrayList<>();
    for (Class<?> c : JobInput.class.getDeclaredClasses()) {
      if (!JobInput.class.isAssignableFrom(c) || c == JobInput.OfAttempt.class) {
        continue;
      }
      (c.isInterface() ? groups : inputs).add(c);
    }
    assertThat(groups).hasSize(13);
    for (Class<?> input : inputs) {
      if (input == JobInput.FromAttempt.class) {
        continue;
      }
      assertThat(groups.stream().filter(g -> g.isAssignableFrom(input)))
          .as("the groups of %s", input.getSimpleName())
          .hasSize(1);
    }
  }
}
