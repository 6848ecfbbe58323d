package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.CHECKPOINTS;
import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.TaskSetup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Recovery on its own: the deployment attempts, rollbacks and redeployments it decides, with the
 * rest of the job a recording stand-in for what it asks and tells ({@link Recovery.Parts}).
 */
class RecoveryTest {
  private static final TaskId COUNT_0 = new TaskId(new OperatorId("count"), 0);

  /** The rest of the job as recovery sees it: a status, checkpoints, workers; what it is told. */
  private static final class Job implements Recovery.Parts {
    JobStatus status = JobStatus.DEPLOYING;
    boolean checkpointsOn;
    Optional<Checkpoints.Completed<Path, CoordinatorState>> latest = Optional.empty();
    // the retained checkpoint before the latest: what dropping the latest falls back to
    Optional<Checkpoints.Completed<Path, CoordinatorState>> before = Optional.empty();
    final WorkerPool pool = WorkerPool.of(2);
    final List<String> told = new ArrayList<>();
    ErrorInfo failure;

    Job(boolean checkpointsOn) {
      this.checkpointsOn = checkpointsOn;
    }

    @Override
    public JobStatus status() {
      return status;
    }

    @Override
    public void fail(ErrorInfo error) {
      failure = error;
      status = JobStatus.FAILED;
      told.add("fail");
    }

    @Override
    public void started() {
      if (status == JobStatus.DEPLOYING) {
        status = JobStatus.RUNNING;
      }
      told.add("started");
    }

    @Override
    public void endedBefore(JobStatus ended, String error) {
      status = ended;
      told.add("endedBefore " + ended);
    }

    @Override
    public Optional<Checkpoints.Completed<Path, CoordinatorState>> latestCheckpoint() {
      return latest;
    }

    @Override
    public void checkpointsRecovered(
        List<Checkpoints.Completed<Path, CoordinatorState>> completed, long lastId) {
      latest = completed.isEmpty() ? Optional.empty() : Optional.of(completed.get(0));
      told.add("checkpointsRecovered " + lastId);
    }

    @Override
    public void checkpointUnusable(long id) {
      latest = before;
      before = Optional.empty();
      told.add("checkpointUnusable " + id);
    }

    @Override
    public void requestsRecovered(JobInput.RecoveredJournal journal) {
      told.add("requestsRecovered");
    }

    @Override
    public WorkerPool pool() {
      return pool;
    }

    @Override
    public void workerLost(int worker) {
      told.add("workerLost " + worker);
    }

    @Override
    public void deploying(TaskSetup setup) {}

    @Override
    public void epochTasksDeployed(JobInput.TasksDeployed m) {
      told.add("epochTasksDeployed");
    }

    @Override
    public void tasksStarted(List<TaskAddress> started, List<TaskAddress> book) {
      assertThat(started).isEqualTo(book);
      told.add("tasksStarted " + book.size());
    }

    @Override
    public void resumedWith(Set<TaskId> holders) {
      told.add("resumedWith " + holders);
    }

    @Override
    public long lastEpoch() {
      return 0;
    }

    @Override
    public void running() {
      told.add("running");
    }

    @Override
    public void rolledBack() {
      told.add("rolledBack");
    }

    @Override
    public void redeploying(Optional<Checkpoints.Completed<Path, CoordinatorState>> from) {
      told.add("redeploying " + from.map(c -> "checkpoint " + c.id()).orElse("start"));
    }
  }

  private final Attempts attempts = new Attempts();
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(RecoveryTest.class), roster, 0);
  private JobState state;

  private Recovery recovery(Job job, boolean sharded) {
    return recovery(job, sharded, CHECKPOINTS);
  }

  private Recovery recovery(Job job, boolean sharded, JobSetup.Checkpointing checkpoints) {
    JobSetup setup =
        JobSetups.setup(
            job.checkpointsOn ? checkpoints : null, null, JobSetups.plan(2), List.of(), sharded);
    state = JobState.initial(setup);
    return new Recovery(setup, out, state, attempts, roster, job);
  }

  private static JobInput.RecoveredJournal journal(int incarnations) {
    return new JobInput.RecoveredJournal(
        incarnations,
        null,
        null,
        List.of(),
        0,
        List.of(),
        0,
        new JobInput.Decoded<>(0, null, null));
  }

  /** Every worker of {@code effects}' deployments reports its tasks deployed; their effects. */
  private List<JobEffect> deployAll(Recovery recovery, List<JobEffect> effects) {
    List<JobEffect> after = new ArrayList<>();
    for (JobEffect.Deploy d : of(JobEffect.Deploy.class, effects)) {
      recovery.onTasksDeployed(new JobInput.TasksDeployed(d.worker(), JobSetups.addresses(d)));
      after.addAll(out.drain());
    }
    return after;
  }

  /** A job with checkpoints on that the journal started afresh and that runs. */
  private Recovery running(Job job) {
    return running(job, CHECKPOINTS);
  }

  private Recovery running(Job job, JobSetup.Checkpointing checkpoints) {
    Recovery recovery = recovery(job, false, checkpoints);
    recovery.start();
    assertThat(of(JobEffect.RecoverJournal.class, out.drain())).hasSize(1);
    recovery.onRecovered(new JobInput.Recovered(journal(1), null));
    deployAll(recovery, out.drain());
    assertThat(job.status).isEqualTo(JobStatus.RUNNING);
    job.told.clear();
    return recovery;
  }

  /** A completed checkpoint of the deployment as it is, with a snapshot of every task. */
  private Checkpoints.Completed<Path, CoordinatorState> checkpoint(long id) {
    Map<TaskId, Path> snapshots = new LinkedHashMap<>();
    for (TaskId t : state.deployment().setups().keySet()) {
      snapshots.put(t, Path.of("/checkpoints/" + id + "/" + t));
    }
    return new Checkpoints.Completed<>(id, 0, snapshots, Set.of(), state.checkpoint(0, 0));
  }

  @Test
  void withoutCheckpointsTheTasksDeployAtOnceAndStartOnlyOnceEveryWorkerHasDeployedThem() {
    Job job = new Job(false);
    Recovery recovery = recovery(job, false);
    recovery.start();
    List<JobEffect.Deploy> deploys = of(JobEffect.Deploy.class, out.drain());
    assertThat(deploys).extracting(JobEffect.Deploy::worker).containsExactly(0, 1);
    assertThat(deploys).allSatisfy(d -> assertThat(d.attempt()).isZero());
    int tasks = deploys.stream().mapToInt(d -> d.setups().size()).sum();

    recovery.onTasksDeployed(new JobInput.TasksDeployed(0, JobSetups.addresses(deploys.get(0))));
    assertThat(job.told).isEmpty();
    recovery.onTasksDeployed(new JobInput.TasksDeployed(1, JobSetups.addresses(deploys.get(1))));
    assertThat(job.told).containsExactly("tasksStarted " + tasks, "started", "running");
    assertThat(attempts.recovering()).isFalse();
  }

  @Test
  void aFailureRollsBackToAFencedNewAttemptThatRedeploysTheLatestCheckpointAfterTheBackoff() {
    Job job = new Job(true);
    Recovery recovery = running(job);
    Checkpoints.Completed<Path, CoordinatorState> latest = checkpoint(4);
    job.latest = Optional.of(latest);

    recovery.failed(ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("boom")));
    List<JobEffect> effects = out.drain();
    assertThat(attempts.current()).isEqualTo(1);
    assertThat(attempts.recovering()).isTrue();
    assertThat(attempts.restarts()).isEqualTo(1);
    assertThat(job.told).containsExactly("rolledBack");
    assertThat(of(JobEffect.OpenAttempt.class, effects))
        .extracting(JobEffect.OpenAttempt::attempt)
        .containsExactly(1);
    assertThat(of(JobEffect.StopAttemptsBefore.class, effects))
        .extracting(JobEffect.StopAttemptsBefore::attempt)
        .containsExactly(1);
    assertThat(of(JobEffect.StartTimer.class, effects))
        .extracting(JobEffect.StartTimer::input, JobEffect.StartTimer::delay)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                new JobInput.Redeploy(1), CHECKPOINTS.restarts().delay("count", 1, 1)));
    assertThat(roster.ids()).isEmpty();

    recovery.onRedeploy(new JobInput.Redeploy(0)); // an older attempt's timer
    assertThat(out.drain()).isEmpty();
    recovery.onRedeploy(new JobInput.Redeploy(1));
    List<JobEffect.Deploy> deploys = of(JobEffect.Deploy.class, out.drain());
    assertThat(job.told).containsExactly("rolledBack", "redeploying checkpoint 4");
    assertThat(deploys).allSatisfy(d -> assertThat(d.attempt()).isEqualTo(1));
    assertThat(deploys.stream().flatMap(d -> d.restores().values().stream()))
        .hasSize(latest.snapshots().size())
        .allSatisfy(r -> assertThat(r.checkpointId()).isEqualTo(4));

    job.told.clear();
    deployAll(recovery, List.copyOf(deploys));
    assertThat(job.told)
        .containsExactly(
            "tasksStarted " + latest.snapshots().size(), "started", "resumedWith []", "running");
    assertThat(attempts.recovering()).isFalse();
  }

  @Test
  void aFailureWithNoRestartLeftFailsTheJob() {
    Job job = new Job(true);
    Recovery recovery = running(job);
    for (int i = 0; i < CHECKPOINTS.restarts().maxRestarts(); i++) {
      recovery.failed(ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("" + i)));
    }
    assertThat(attempts.current()).isEqualTo(CHECKPOINTS.restarts().maxRestarts());
    assertThat(job.failure).isNull();
    ErrorInfo last = ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("last"));
    recovery.failed(last);
    assertThat(job.failure).isSameAs(last);
    assertThat(attempts.current()).isEqualTo(CHECKPOINTS.restarts().maxRestarts());
  }

  /** The wait before the redeployment that the latest rollback asked for. */
  private java.time.Duration lastBackoff() {
    return of(JobEffect.StartTimer.class, out.drain()).stream()
        .filter(s -> s.input() instanceof JobInput.Redeploy)
        .reduce((a, b) -> b)
        .orElseThrow()
        .delay();
  }

  @Test
  void theWaitBeforeARedeploymentDoublesWithEachRollbackOfAPeriod() {
    Job job = new Job(true);
    Recovery recovery = running(job);
    long backoff = CHECKPOINTS.restarts().backoff().toMillis();
    for (int restart = 1; restart <= CHECKPOINTS.restarts().maxRestarts(); restart++) {
      recovery.failed(ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("x")));
      long expected = backoff << (restart - 1);
      assertThat(lastBackoff().toMillis())
          .as("rollback %d of the period", restart)
          .isBetween(expected * 9 / 10, expected * 11 / 10);
    }
  }

  @Test
  void failuresFurtherApartThanTheResetKeepTheJobAliveWithTheShortestWait() {
    Job job = new Job(true);
    Recovery recovery = running(job);
    long apart = CHECKPOINTS.restarts().resetAfter().toMillis() + 1;
    long backoff = CHECKPOINTS.restarts().backoff().toMillis();
    for (int i = 1; i <= 10; i++) { // more than maxRestarts, each a period of its own
      out.at(i * apart);
      recovery.failed(ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("" + i)));
      assertThat(job.failure).as("failure %d", i).isNull();
      assertThat(attempts.restarts()).isEqualTo(1);
      assertThat(lastBackoff().toMillis()).isBetween(backoff * 9 / 10, backoff * 11 / 10);
    }
    assertThat(attempts.current()).isEqualTo(10);
  }

  @Test
  void byFailureRateOnlyTheRollbacksWithinTheIntervalCountAndEveryWaitIsTheBackoff() {
    JobSetup.Checkpointing byRate =
        new JobSetup.Checkpointing(
            CHECKPOINTS.interval(),
            CHECKPOINTS.retained(),
            new RestartPolicy(
                3,
                java.time.Duration.ofMillis(50),
                java.time.Duration.ofSeconds(1),
                java.time.Duration.ofMinutes(1),
                java.time.Duration.ofMinutes(10)),
            CHECKPOINTS.redeployTimeout(),
            CHECKPOINTS.timeout(),
            CHECKPOINTS.tolerableFailures());
    Job job = new Job(true);
    Recovery recovery = running(job, byRate);
    long minute = 60_000;
    // three failures a minute apart: more than the reset's minute apart, yet all in one interval
    for (int i = 1; i <= 3; i++) {
      out.at(i * minute + 1);
      recovery.failed(ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("" + i)));
      assertThat(job.failure).as("failure %d", i).isNull();
      assertThat(lastBackoff().toMillis()).as("no doubling").isBetween(45L, 55L);
    }
    // over ten minutes after the first, it has left the interval: a fourth is allowed
    out.at(11 * minute + 2);
    recovery.failed(ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("4")));
    assertThat(job.failure).isNull();
    // a fifth a moment later would make four within ten minutes
    out.at(11 * minute + 3);
    ErrorInfo fifth = ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("5"));
    recovery.failed(fifth);
    assertThat(job.failure).isSameAs(fifth);
    assertThat(attempts.current()).isEqualTo(4);
  }

  @Test
  void aFirstDeploymentThatFailsHasNothingToRollBackTo() {
    Job job = new Job(true);
    Recovery recovery = recovery(job, false);
    recovery.start();
    recovery.onRecovered(new JobInput.Recovered(journal(1), null));
    out.drain();
    ErrorInfo error = ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("no"));
    recovery.failed(error);
    assertThat(job.failure).isSameAs(error);
    assertThat(attempts.current()).isZero();
  }

  /**
   * The job, with checkpoint {@code latest} retained (and {@code before}, if given, the one before
   * it), rolled back to it after a task failed; attempt 1 is deploying.
   */
  private Recovery restoring(Job job, long latest, long... before) {
    Recovery recovery = running(job);
    job.latest = Optional.of(checkpoint(latest));
    for (long id : before) {
      job.before = Optional.of(checkpoint(id));
    }
    recovery.failed(ErrorInfo.of("count", COUNT_0, null, new IllegalStateException("boom")));
    recovery.onRedeploy(new JobInput.Redeploy(1));
    out.drain();
    return recovery;
  }

  @Test
  void aCorruptSnapshotQuarantinesItsCheckpointAndRollsBackToTheOneBefore() {
    Job job = new Job(true);
    Recovery recovery = restoring(job, 7, 6);

    recovery.onSnapshotUnusable(
        new JobInput.SnapshotUnusable(0, COUNT_0, 7, "/checkpoints/7/count#0", "checksum"));
    assertThat(job.told).contains("checkpointUnusable 7");
    assertThat(attempts.current()).isEqualTo(2);
    recovery.onRedeploy(new JobInput.Redeploy(2));
    List<JobEffect.Deploy> deploys = of(JobEffect.Deploy.class, out.drain());
    assertThat(job.told).endsWith("redeploying checkpoint 6");
    assertThat(deploys.stream().flatMap(d -> d.restores().values().stream()))
        .allSatisfy(r -> assertThat(r.checkpointId()).isEqualTo(6))
        .isNotEmpty();
    assertThat(job.failure).isNull();
  }

  @Test
  void whenNoCheckpointIsLeftThatIsNotCorruptTheJobFailsNamingThemAndNeverStartsOver() {
    Job job = new Job(true);
    Recovery recovery = restoring(job, 7, 6);
    recovery.onSnapshotUnusable(
        new JobInput.SnapshotUnusable(0, COUNT_0, 7, "/checkpoints/7/count#0", "checksum"));
    recovery.onRedeploy(new JobInput.Redeploy(2));
    out.drain();

    recovery.onSnapshotUnusable(
        new JobInput.SnapshotUnusable(0, COUNT_0, 6, "/checkpoints/6/count#0", "bad magic"));
    assertThat(job.status).isEqualTo(JobStatus.FAILED);
    assertThat(job.failure.message())
        .contains("checkpoint 7", "checksum", "checkpoint 6", "bad magic", "quarantine");
    assertThat(job.told).doesNotContain("redeploying start");
    recovery.onRedeploy(new JobInput.Redeploy(3));
    assertThat(of(JobEffect.Deploy.class, out.drain())).as("nothing deploys").isEmpty();
  }

  @Test
  void anUnreadableSnapshotKeepsItsCheckpointAndRestoresItAgainAfterTheBackoff() {
    Job job = new Job(true);
    Recovery recovery = restoring(job, 7);

    recovery.onSnapshotUnreadable(
        new JobInput.SnapshotUnreadable(
            0, COUNT_0, 7, "/checkpoints/7/count#0", "snapshot file does not exist"));
    assertThat(job.told).doesNotContain("checkpointUnusable 7");
    assertThat(attempts.current()).isEqualTo(2);
    assertThat(attempts.restarts()).as("a restart spent").isEqualTo(2);
    recovery.onRedeploy(new JobInput.Redeploy(2));
    assertThat(job.told).endsWith("redeploying checkpoint 7");
    assertThat(of(JobEffect.Deploy.class, out.drain()))
        .flatExtracting(d -> List.copyOf(d.restores().values()))
        .allSatisfy(r -> assertThat(r.checkpointId()).isEqualTo(7))
        .isNotEmpty();
  }

  @Test
  void anUnreadableSnapshotWithNoRestartLeftFailsTheJobAndKeepsTheCheckpoint() {
    Job job = new Job(true);
    Recovery recovery = restoring(job, 7);
    for (int i = attempts.restarts(); i < CHECKPOINTS.restarts().maxRestarts(); i++) {
      recovery.onSnapshotUnreadable(
          new JobInput.SnapshotUnreadable(
              0, COUNT_0, 7, "/checkpoints/7/count#0", "Input/output error"));
      recovery.onRedeploy(new JobInput.Redeploy(attempts.current()));
      out.drain();
    }
    assertThat(job.failure).isNull();
    recovery.onSnapshotUnreadable(
        new JobInput.SnapshotUnreadable(
            0, COUNT_0, 7, "/checkpoints/7/count#0", "Input/output error"));
    assertThat(job.status).isEqualTo(JobStatus.FAILED);
    assertThat(job.failure.message())
        .contains("/checkpoints/7/count#0", "Input/output error", "the checkpoint is kept");
    assertThat(job.told).doesNotContain("checkpointUnusable 7");
    assertThat(job.latest).map(Checkpoints.Completed::id).contains(7L);
  }

  @Test
  void aTaskThatStoppedIsItsWorkersLossWhenTheWorkerDoesNotAnswerElseAFailure() {
    Job job = new Job(true);
    Recovery recovery = running(job);
    int worker = state.deployment().placement(COUNT_0);

    recovery.onTaskTerminated(new JobInput.TaskTerminated(COUNT_0, 0));
    assertThat(of(JobEffect.CheckWorker.class, out.drain()))
        .extracting(JobEffect.CheckWorker::worker)
        .containsExactly(worker);
    recovery.onTaskStopChecked(new JobInput.TaskStopChecked(COUNT_0, 0, false));
    assertThat(job.told).containsExactly("workerLost " + worker);
    assertThat(attempts.current()).isZero();

    recovery.onTaskStopChecked(new JobInput.TaskStopChecked(COUNT_0, 0, true));
    assertThat(attempts.current()).isEqualTo(1);
    recovery.onTaskStopChecked(new JobInput.TaskStopChecked(COUNT_0, 0, true)); // old attempt
    assertThat(attempts.current()).isEqualTo(1);
  }

  @Test
  void aTakeoverNumbersItsAttemptsAboveItsPredecessorsAndRedeploysAfterTheBackoff() {
    Job job = new Job(true);
    Recovery recovery = recovery(job, true);
    recovery.start();
    out.drain();
    recovery.onRecovered(new JobInput.Recovered(journal(3), null));
    List<JobEffect> effects = out.drain();
    int attempt = 2 * JobCore.ATTEMPTS_PER_INCARNATION;
    assertThat(attempts.current()).isEqualTo(attempt);
    assertThat(attempts.recovering()).isTrue();
    assertThat(attempts.rollbacks()).isEqualTo(1);
    assertThat(of(JobEffect.StopAttemptsBefore.class, effects))
        .extracting(JobEffect.StopAttemptsBefore::attempt)
        .containsExactly(attempt);
    assertThat(of(JobEffect.Deploy.class, effects)).isEmpty();
    recovery.onRedeploy(new JobInput.Redeploy(attempt));
    assertThat(of(JobEffect.Deploy.class, out.drain()))
        .allSatisfy(d -> assertThat(d.attempt()).isEqualTo(attempt))
        .isNotEmpty();
  }
}
