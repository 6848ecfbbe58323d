package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Cancelling, closing and the metrics of a running job. */
class JobLifecycleTest {

  static Dataflow endless() {
    DataflowBuilder b = Dataflow.builder("endless").parallelism(2);
    b.source(
            SourceSpec.generator("ticks", (i, s) -> i % 1000)
                .partitions(2)
                .rate(RateSchedule.constant(20_000)))
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.discarding("out"));
    return b.build();
  }

  @Test
  void cancelStopsARunningJobAndDeletesItsState() {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(endless());
      Eventually.await(
          "records counted", Duration.ofSeconds(20), () -> job.metrics().recordsIn("count") > 1000);
      JobMetrics m = job.metrics();
      assertThat(m.status()).isEqualTo(JobStatus.RUNNING);
      assertThat(m.recordsInPerSecond("count") + m.recordsIn("count")).isPositive();
      assertThat(m.stateEntries()).isBetween(1L, 1000L);
      assertThat(m.batchLatency("count").count()).isPositive();
      assertThat(job.cancel().toCompletableFuture().join()).isEqualTo(JobStatus.CANCELLED);
      assertThat(job.await(Duration.ofSeconds(10))).isEqualTo(JobStatus.CANCELLED);
      Path jobDir = runtime.dataDir().resolve("worker-0").resolve(job.id());
      Eventually.await("job state deleted", Duration.ofSeconds(10), () -> !Files.exists(jobDir));
    }
  }

  @Test
  void closingTheRuntimeEndsItsJobs() {
    KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load());
    JobHandle job = runtime.submit(endless());
    Eventually.await(
        "job running", Duration.ofSeconds(20), () -> job.status() == JobStatus.RUNNING);
    runtime.close();
    assertThat(job.await(Duration.ofSeconds(5))).isEqualTo(JobStatus.CANCELLED);
    assertThat(Files.exists(runtime.dataDir())).isFalse();
  }

  @Test
  void finishedJobKeepsItsFinalMetrics() {
    DataflowBuilder b = Dataflow.builder("bounded");
    b.source(SourceSpec.generator("n", (i, s) -> i).count(3_000))
        .keyBy(x -> x % 10)
        .count("count")
        .sink(SinkSpec.discarding("out"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      JobMetrics m = job.metrics();
      assertThat(m.status()).isEqualTo(JobStatus.FINISHED);
      assertThat(m.recordsIn("n")).isEqualTo(3_000);
      assertThat(m.recordsIn("count")).isEqualTo(3_000);
      assertThat(m.tasksOf("count").get(0).recordsOut()).isZero(); // chained sink, no channel
    }
  }

  @Test
  void eachOperatorOfAChainIsCountedAChainedSinkIncluded() {
    DataflowBuilder b = Dataflow.builder("chained");
    b.source(SourceSpec.generator("n", (i, s) -> i).count(3_000))
        .map("map", (Long x) -> x * 7 % 100)
        .filter("filter", (Long x) -> x < 30)
        .sink(SinkSpec.discarding("sink"));
    long passing = 0;
    for (long i = 0; i < 3_000; i++) {
      if (i * 7 % 100 < 30) {
        passing++;
      }
    }
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      JobMetrics m = job.metrics();
      assertThat(m.tasks()).as("one task runs the whole chain").hasSize(1);
      assertThat(m.tasksOf("sink")).as("a chained operator heads no task").isEmpty();
      assertThat(m.operators()).containsExactly("n", "map", "filter", "sink");
      assertThat(m.recordsIn("n")).isEqualTo(3_000);
      assertThat(m.recordsIn("map")).isEqualTo(3_000);
      assertThat(m.recordsIn("filter")).isEqualTo(3_000);
      assertThat(m.recordsOut("filter")).isEqualTo(passing);
      assertThat(m.recordsIn("sink")).isEqualTo(passing);
      assertThat(m.recordsOut("sink")).isZero();
      assertThat(m.lateRecords("filter")).isZero();
    }
  }
}
