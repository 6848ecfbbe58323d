package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.CheckpointStats;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job's metrics count its committed checkpoints, with the latest one's id, duration and size. */
class CheckpointStatsTest {

  @Test
  void aCommittedCheckpointShowsInTheJobsMetrics(@TempDir Path dir) {
    KoalaConfig config =
        KoalaConfig.load()
            .withWorkers(1)
            .withDataDir(dir)
            .withCheckpointInterval(Duration.ofHours(1)); // only those asked for
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      DataflowBuilder b = Dataflow.builder("stats");
      b.source(
              SourceSpec.generator("n", (i, s) -> i % 50)
                  .count(10_000)
                  .rate(RateSchedule.constant(2_000)))
          .keyBy(x -> x)
          .count("count")
          .sink(SinkSpec.discarding("out"));
      JobHandle job = runtime.submit(b.build());
      assertThat(job.metrics().checkpoints()).isEqualTo(CheckpointStats.NONE);

      long first = job.checkpoint().toCompletableFuture().join();
      long second = job.checkpoint().toCompletableFuture().join();
      CheckpointStats stats = job.metrics().checkpoints();
      assertThat(stats.completed()).isEqualTo(2);
      assertThat(stats.lastId()).isEqualTo(second).isGreaterThan(first);
      assertThat(stats.lastBytes()).as("snapshot files of the count tasks' stores").isPositive();
      assertThat(stats.lastDurationMillis()).isNotNegative();
      job.cancel().toCompletableFuture().join();
    }
  }
}
