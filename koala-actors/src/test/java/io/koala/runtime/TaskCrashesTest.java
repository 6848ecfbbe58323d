package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.coordinator.EpochDriver;
import io.koala.coordinator.PlannedCrash;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.testing.TaskCrashes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes injected by the coordinator ({@link TaskCrashes}) at a time, in a phase of a live
 * rescale's epoch and during a checkpoint each stop a task's actor and roll the job back once, and
 * the output is still exactly once.
 */
class TaskCrashesTest {

  @Test
  void plannedCrashesEachRollTheJobBackOnceAndTheOutputStaysExactlyOnce(@TempDir Path dir)
      throws Exception {
    KoalaConfig config = CheckpointRecoveryTest.config(dir, Duration.ofMillis(100));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      // about 10 s of input: a rollback to the job's start does not shorten it (the sources keep
      // their rate from the job's first start), so the rescale runs before the input ends
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(4_000));
      TaskCrashes.plan(
          job,
          42,
          List.of(
              new PlannedCrash.At(200),
              new PlannedCrash.InCheckpoint(1),
              new PlannedCrash.InPhase(EpochDriver.Phase.HANDING_OVER)));
      // queued until the job runs; re-run after each rollback that undoes it
      ReconfigurationReport report = LiveReconfigurationTest.done(job.rescale("count", 4));
      assertThat(report.tasksAfter()).containsExactly(0, 1, 2, 3);
      assertThat(job.await(LiveReconfigurationTest.WAIT)).isEqualTo(JobStatus.FINISHED);
      List<PlannedCrash.Injected> injected = TaskCrashes.injected(job);
      assertThat(injected)
          .extracting(PlannedCrash.Injected::crash)
          .containsExactlyInAnyOrder(
              new PlannedCrash.At(200),
              new PlannedCrash.InCheckpoint(1),
              new PlannedCrash.InPhase(EpochDriver.Phase.HANDING_OVER));
      assertThat(injected)
          .filteredOn(i -> i.crash() instanceof PlannedCrash.InPhase)
          .extracting(PlannedCrash.Injected::during)
          .singleElement()
          .asString()
          .endsWith("HANDING_OVER");
      assertThat(injected)
          .filteredOn(i -> i.crash() instanceof PlannedCrash.InCheckpoint)
          .extracting(PlannedCrash.Injected::during)
          .singleElement()
          .asString()
          .startsWith("checkpoint ");
      assertThat(job.metrics().rollbacks()).as("one rollback per crash").isEqualTo(3);
      LiveReconfigurationTest.assertExactCounts(job);
    }
  }
}
