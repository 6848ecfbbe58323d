package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints and reconfigurations take turns when both wait (DESIGN §8): a checkpoint that takes
 * longer than the checkpoint interval is due again as soon as it commits, and must not hold a
 * queued reconfiguration back until the input has ended.
 */
class CheckpointTurnsTest {

  @Test
  void checkpointsLongerThanTheirIntervalDoNotStarveARescale(@TempDir Path dir) throws Exception {
    // every checkpoint takes longer than 1 ms: one is always due when the previous one commits
    KoalaConfig config = CheckpointRecoveryTest.config(dir, Duration.ofMillis(1));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(LiveReconfigurationTest.dataflow(4_000));
      CheckpointRecoveryTest.checkpoint(job);
      // refused once the input has ended (JOB_ENDING) if checkpoints hold it back until then
      ReconfigurationReport report = LiveReconfigurationTest.done(job.rescale("count", 4));
      assertThat(report.tasksAfter()).containsExactly(0, 1, 2, 3);
      assertThat(job.await(LiveReconfigurationTest.WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
    }
  }
}
