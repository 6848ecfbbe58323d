package io.koala.runtime;

import static io.koala.runtime.LiveReconfigurationTest.KEYS;
import static io.koala.runtime.LiveReconfigurationTest.RECORDS;
import static io.koala.runtime.LiveReconfigurationTest.WAIT;
import static io.koala.runtime.LiveReconfigurationTest.done;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.plan.TaskId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Live rescales and migrations of a stage without keyed input (a map between a source and a keyed
 * count, fed round-robin): the job never stops, and every key's running count is still 1..n, each
 * exactly once — a record lost in a removed task, or sent both to it and to a new one, shows.
 */
class StatelessRescaleTest {

  /** source "n" (2 tasks) → map "shift" (3 tasks, round-robin) → keyBy → count → sink. */
  static Dataflow dataflow(double rate) {
    DataflowBuilder b = Dataflow.builder("stateless").parallelism(2);
    var counts =
        b.source(
                SourceSpec.generator("n", (i, seed) -> (i * 7919) % KEYS)
                    .partitions(2)
                    .count(RECORDS)
                    .rate(RateSchedule.constant(rate)))
            .map("shift", (Long x) -> x + KEYS)
            .parallelism(3)
            .keyBy(x -> x - KEYS)
            .count("count");
    counts.sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  /**
   * Workers in separate actor systems: every record to and from a new task crosses TCP. Three
   * requests in the 8 s of input, each waiting for the one before.
   */
  @Test
  void aStatelessStageScalesOutInAndMigratesWhileRunning() throws Exception {
    KoalaConfig config = KoalaConfig.load().withWorkers(3).withSeparateSystems(true);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(5_000));
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      ReconfigurationReport out = done(job.rescale("shift", 5));
      assertThat(out.tasksAfter()).hasSize(5);
      assertThat(out.movedBuckets()).isEmpty();
      ReconfigurationReport moved = done(job.migrate("shift", 0, 2));
      assertThat(moved.tasksAfter()).hasSize(5).doesNotContain(0);
      ReconfigurationReport in = done(job.rescale("shift", 1));
      assertThat(in.tasksAfter()).hasSize(1);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
      assertThat(job.metrics().recordsIn("shift")).isEqualTo(RECORDS);
    }
  }

  /**
   * A worker that runs a task of the stage (and no source) leaves: its tasks migrate live, one
   * request each, without a rollback — the stage no longer needs a checkpoint and a restore to
   * move.
   */
  @Test
  void drainingAWorkerMigratesTheStageLive() throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(3))) {
      JobHandle job = runtime.submit(dataflow(8_000));
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      Map<Integer, List<TaskId>> placed = WorkerDrainIT.byWorker(job);
      int w =
          placed.entrySet().stream()
              .filter(e -> e.getValue().stream().noneMatch(t -> t.operator().name().equals("n")))
              .filter(e -> e.getValue().stream().anyMatch(t -> t.operator().name().equals("shift")))
              .map(Map.Entry::getKey)
              .findFirst()
              .orElseThrow(() -> new AssertionError("no worker without a source runs 'shift'"));
      List<TaskId> before = job.metrics().tasksOnWorker(w);

      assertThat(WorkerDrainIT.drain(runtime, w)).as("problems").isEmpty();
      WorkerDrainIT.assertNothingOn(job, w);
      assertThat(job.metrics().reconfigurations())
          .as("one migration per task of worker %d: %s", w, before)
          .hasSize(before.size())
          .allSatisfy(r -> assertThat(r.kind()).isEqualTo("migrate"));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(job.metrics().rollbacks()).as("rollbacks").isZero();
      assertExactCounts(job);
    }
  }

  @Test
  void aRebalanceOfAStatelessStageIsRefusedWithTheReason() throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(dataflow(20_000));
      LiveReconfigurationTest.awaitProgress(job, 1_000);
      LiveReconfigurationTest.assertRefused(
          job.rebalance("shift", io.koala.routing.PartitionPolicy.consistentHashing()),
          "operator 'shift' reads no keyed input, so it owns no buckets to rebalance");
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job);
    }
  }

  private static void assertExactCounts(JobHandle job) {
    List<KeyValue<Long, Long>> counts = job.collected("counts");
    LiveReconfigurationTest.assertExactCounts(Map.of("counts", counts));
  }
}
