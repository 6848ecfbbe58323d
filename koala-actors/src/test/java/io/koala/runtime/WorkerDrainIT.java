package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.coordinator.PlannedCrash;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.plan.TaskId;
import io.koala.runtime.testing.TaskCrashes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A worker drained while a job runs, as when its node leaves a cluster gracefully (DESIGN §9,
 * hazard C6): its keyed tasks and its sources migrate live and the retired holders are drained; its
 * sinks reading a forward edge (which cannot be reconfigured live) move by a checkpoint and a
 * restore, or, without checkpoints, the drain says why they cannot. The running counts of {@link
 * LiveReconfigurationTest} judge exactly-once against the reference run.
 *
 * <p>The job has eight tasks: sources n#0 and n#1, count#0 and count#1, the sink's counts#0 and
 * counts#1 (not chained: count has two consumers), recount#0 and recount#1 (their sink chained).
 * Round-robin over three workers every worker runs a source or a sink, and one runs both; over
 * four, workers 2 and 3 run only keyed tasks (count#0 and recount#0, count#1 and recount#1).
 */
class WorkerDrainIT {
  static final Duration WAIT = Duration.ofSeconds(60);
  static final Set<String> KEYED = Set.of("count", "recount");

  /** {@link WorkerLossRecoveryIT#config} with {@code workers} workers. */
  static KoalaConfig config(Path dir, Duration interval, boolean separate, int workers) {
    return WorkerLossRecoveryIT.config(dir, interval, separate).withWorkers(workers);
  }

  static List<String> drain(KoalaRuntime runtime, int worker) throws Exception {
    return runtime
        .drainWorker(worker)
        .toCompletableFuture()
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /** The tasks of the current deployment per worker. */
  static Map<Integer, List<TaskId>> byWorker(JobHandle job) {
    Map<Integer, List<TaskId>> out = new TreeMap<>();
    job.metrics()
        .placement()
        .forEach((t, w) -> out.computeIfAbsent(w, k -> new java.util.ArrayList<>()).add(t));
    return out;
  }

  /** A worker that runs only keyed tasks of the job. */
  static int keyedOnlyWorker(JobHandle job) {
    Map<Integer, List<TaskId>> placed = byWorker(job);
    return placed.entrySet().stream()
        .filter(e -> e.getValue().stream().allMatch(t -> KEYED.contains(t.operator().name())))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no worker runs only keyed tasks: " + placed));
  }

  /**
   * A worker that runs a task of the sink "counts", which reads a forward edge: not movable live.
   */
  static int sinkWorker(JobHandle job) {
    return workerRunning(job, "counts", true);
  }

  /** A worker that runs a source task and no task of the sink "counts". */
  static int sourceWorkerWithoutSink(JobHandle job) {
    return workerRunning(job, "n", false);
  }

  private static int workerRunning(JobHandle job, String operator, boolean withSink) {
    Map<Integer, List<TaskId>> placed = byWorker(job);
    return placed.entrySet().stream()
        .filter(e -> e.getValue().stream().anyMatch(t -> t.operator().name().equals(operator)))
        .filter(
            e ->
                withSink
                    || e.getValue().stream().noneMatch(t -> t.operator().name().equals("counts")))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no worker runs '" + operator + "' as wanted: " + placed));
  }

  static void assertNothingOn(JobHandle job, int worker) {
    assertThat(job.metrics().tasksOnWorker(worker))
        .as("tasks of job %s left on worker %d", job.id(), worker)
        .isEmpty();
  }

  static void assertRefusedAsLeaving(JobHandle job, int worker) {
    TaskId count = // the newest task of 'count' is live: a retired holder may still be listed
        job.metrics().placement().keySet().stream()
            .filter(t -> t.operator().name().equals("count"))
            .max(java.util.Comparator.comparingInt(TaskId::index))
            .orElseThrow();
    assertThatThrownBy(
            () ->
                job.migrate("count", count.index(), worker)
                    .toCompletableFuture()
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(ReconfigurationException.class)
        .hasMessageContaining("worker " + worker + " is leaving");
  }

  /**
   * (a) and (d): keyed tasks migrate off while records flow, and nothing is placed there again. In
   * one system without checkpoints; over separate systems with checkpoints, where the holders the
   * migrations retire stop only once no retained checkpoint includes them (C5), with no rollback.
   */
  @ParameterizedTest(name = "separate systems and checkpoints: {0}")
  @ValueSource(booleans = {false, true})
  void drainingAWorkerOfKeyedTasksMigratesThemAndKeepsEveryCount(
      boolean separate, @TempDir Path dir) throws Exception {
    Duration interval = separate ? Duration.ofMillis(100) : null;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, interval, separate, 4))) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(6_000));
      if (separate) {
        WorkerLossRecoveryIT.awaitCommittedResults(job);
      } else {
        LiveReconfigurationTest.awaitProgress(job, 2_000);
      }
      int w = keyedOnlyWorker(job);
      List<TaskId> before = job.metrics().tasksOnWorker(w);

      assertThat(drain(runtime, w)).as("problems").isEmpty();
      assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
      assertNothingOn(job, w);
      JobMetrics drained = job.metrics();
      assertThat(drained.reconfigurations())
          .as("one migration per keyed task of worker %d", w)
          .hasSize(before.size())
          .allSatisfy(r -> assertThat(r.kind()).isEqualTo("migrate"));
      for (TaskId t : before) {
        assertThat(drained.releasedTasks(t.operator().name())).as("released").contains(t);
      }
      assertRefusedAsLeaving(job, w);
      assertThat(drain(runtime, w)).as("problems of a second drain").isEmpty();

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
      assertNothingOn(job, w);
      assertThat(job.metrics().rollbacks()).isZero();
    }
  }

  /**
   * A scale-in running when the drain starts retires a task of the worker (count#1, on worker 3)
   * after the drain asked for its migration: that migration is void (nothing to migrate), not a
   * reason to give up; the retired task is drained like any holder.
   */
  @Test
  void aTaskRetiredByARescaleBeforeItsMigrationIsDrainedAsAHolder(@TempDir Path dir)
      throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, null, false, 4))) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(6_000));
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      int w = 3;
      TaskId last = new TaskId(new io.koala.plan.OperatorId("count"), 1);
      assertThat(job.metrics().tasksOnWorker(w)).as("keyed only").contains(last).hasSize(2);
      assertThat(keyedOnlyWorker(job)).isIn(2, 3);
      var rescale = job.rescale("count", 1); // retires count#1; its epoch starts at once
      var drained = runtime.drainWorker(w); // arrives while that epoch runs

      assertThat(LiveReconfigurationTest.done(rescale).tasksAfter()).containsExactly(0);
      assertThat(drained.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("problems")
          .isEmpty();
      assertNothingOn(job, w);
      assertThat(job.metrics().releasedTasks("count")).contains(last);

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
      assertNothingOn(job, w);
    }
  }

  /**
   * (c), and two workers leaving at once: worker 2's migrations are queued towards another worker
   * when that one starts leaving too. It runs a task of the sink "counts" and checkpoints are off,
   * so its drain says why it cannot; worker 2's migrations go elsewhere instead, and its drain
   * completes.
   */
  @Test
  void twoWorkersLeavingAtOnceWithoutCheckpoints(@TempDir Path dir) throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, null, false, 4))) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(6_000));
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      int keyed = keyedOnlyWorker(job);
      int source = sinkWorker(job);
      List<TaskId> unmovable =
          job.metrics().tasksOnWorker(source).stream()
              .filter(t -> t.operator().name().equals("counts"))
              .toList();
      assertThat(unmovable).isNotEmpty();

      var keyedDrained = runtime.drainWorker(keyed).toCompletableFuture();
      List<String> problems = drain(runtime, source);
      assertThat(problems).hasSize(1);
      assertThat(problems.get(0))
          .contains("job " + job.id())
          .contains("tasks " + unmovable + " on worker " + source)
          .contains("koala.checkpoint.interval");
      assertThat(keyedDrained.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("problems").isEmpty();
      assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
      assertNothingOn(job, keyed);
      assertThat(job.metrics().tasksOnWorker(source)).containsAll(unmovable); // still running
      assertRefusedAsLeaving(job, source);
      assertRefusedAsLeaving(job, keyed);
      // a job submitted now places nothing on either
      JobHandle next = runtime.submit(LiveReconfigurationTest.dataflow(6_000));
      Eventually.await("the next job to run", WAIT, () -> next.status() == JobStatus.RUNNING);
      assertThat(next.metrics().placement().values()).doesNotContain(keyed, source).isNotEmpty();
      next.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
      assertNothingOn(job, keyed);
      assertThat(job.metrics().rollbacks()).isZero();
    }
  }

  /**
   * (b) and (d): a worker running a source task and keyed tasks leaves, and they all migrate live;
   * then a worker running a task of the sink "counts" leaves, and its tasks move by one checkpoint
   * and one rollback; the output is exactly-once.
   */
  @ParameterizedTest(name = "separate systems: {0}")
  @ValueSource(booleans = {false, true})
  void drainingWorkersMovesSourcesLiveAndRelocatesAForwardSinkFromACheckpoint(
      boolean separate, @TempDir Path dir) throws Exception {
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(WorkerLossRecoveryIT.config(dir, Duration.ofMillis(100), separate))) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(8_000));
      WorkerLossRecoveryIT.awaitCommittedResults(job);
      int live = sourceWorkerWithoutSink(job);
      assertThat(drain(runtime, live)).as("problems").isEmpty();
      assertNothingOn(job, live);
      assertThat(job.metrics().rollbacks()).as("rollbacks").isZero();
      assertThat(job.metrics().reconfigurations())
          .as("the source task migrated live")
          .anySatisfy(
              r -> {
                assertThat(r.operator()).isEqualTo("n");
                assertThat(r.kind()).isEqualTo("migrate");
              });

      int w = sinkWorker(job);
      List<TaskId> before = job.metrics().tasksOnWorker(w);
      assertThat(drain(runtime, w)).as("problems").isEmpty();
      assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
      assertNothingOn(job, w);
      JobMetrics drained = job.metrics();
      assertThat(drained.rollbacks()).as("rollbacks").isEqualTo(1);
      assertThat(drained.placement().keySet()).containsAll(before); // restored elsewhere
      assertRefusedAsLeaving(job, w);

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
      JobMetrics end = job.metrics();
      assertNothingOn(job, w);
      assertThat(end.rollbacks()).as("rollbacks").isEqualTo(1);
    }
  }

  /**
   * The last placeable worker leaving: its drain fails (nowhere to go) and the tasks stay where
   * they run; a rescale that needs a worker for its new tasks is refused, and a rollback restores
   * every task there rather than nowhere.
   */
  @Test
  void whenNoWorkerCanTakeTasksTheyStayAndTheJobGoesOn(@TempDir Path dir) throws Exception {
    long seed = System.nanoTime();
    System.out.println("WorkerDrainIT crash seed: " + seed);
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(config(dir, Duration.ofMillis(100), false, 2))) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(6_000));
      WorkerLossRecoveryIT.awaitCommittedResults(job);
      assertThat(drain(runtime, 0)).as("problems").isEmpty(); // everything relocates to worker 1
      List<TaskId> all = job.metrics().tasksOnWorker(1);

      List<String> problems = drain(runtime, 1);
      assertThat(problems).hasSize(1);
      assertThat(problems.get(0)).contains("no other worker can take the tasks");
      assertThatThrownBy(
              () -> job.rescale("count", 3).toCompletableFuture().get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(ReconfigurationException.class)
          .hasMessageContaining("no worker can take the new tasks of 'count'");

      TaskCrashes.plan(job, seed, List.of(new PlannedCrash.At(0)));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(TaskCrashes.injected(job)).as("crashes (seed %d)", seed).hasSize(1);
      LiveReconfigurationTest.assertExactCounts(job);
      JobMetrics end = job.metrics();
      assertThat(end.rollbacks()).as("the relocation and the crash").isEqualTo(2);
      // every task still runs; which leaving worker hosts it depends on whether the crash rolled
      // back to the relocation's own checkpoint (placed before the relocation) or a later one
      assertThat(end.placement().keySet()).containsExactlyInAnyOrderElementsOf(all);
    }
  }
}
