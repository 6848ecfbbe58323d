package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobMetrics;
import io.koala.job.TaskMetricsSnapshot;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fast source into a slow sink: credit-based flow control holds the data between them to a bound
 * set by the credit windows, whatever the source could produce, and the source falls behind its log
 * (lag) instead of filling memory.
 */
class BoundedInFlightTest {

  /** A sink that takes 20 ms per batch. */
  static SinkSpec<String> slowSink() {
    return new SinkSpec<>() {
      @Override
      public String name() {
        return "slow";
      }

      @Override
      public SinkWriter<String> open(io.koala.connector.SinkContext ctx) {
        return new SinkWriter<>() {
          @Override
          public void write(String value, long timestamp) {}

          @Override
          public void flush() throws InterruptedException {
            TimeUnit.MILLISECONDS.sleep(20);
          }
        };
      }
    };
  }

  @ParameterizedTest(name = "separate systems: {0}")
  @ValueSource(booleans = {false, true})
  void inFlightRecordsStayWithinTheCreditWindows(boolean separate) {
    int batch = 256;
    int credits = 4;
    KoalaConfig config =
        KoalaConfig.load()
            .withWorkers(2)
            .withSeparateSystems(separate)
            .with("koala.batch.max-records", batch)
            .with("koala.channel.credits", credits);
    String payload = "x".repeat(200);
    DataflowBuilder b = Dataflow.builder("slow-sink").parallelism(2);
    b.source(
            SourceSpec.generator("fast", (i, s) -> payload + i)
                .partitions(2)
                .rate(RateSchedule.constant(2_000_000)))
        .keyBy(v -> v.length())
        .reduce("identity", (previous, v) -> v)
        .sink(slowSink());
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(b.build());
      Eventually.await(
          "the source to fall behind",
          Duration.ofSeconds(30),
          () -> job.metrics().sourceLagRecords() > 100_000);
      JobMetrics m = job.metrics();
      long read = m.tasksOf("fast").stream().mapToLong(TaskMetricsSnapshot::recordsIn).sum();
      long consumed =
          m.tasksOf("identity").stream().mapToLong(TaskMetricsSnapshot::recordsIn).sum();
      // Between the two: per channel (2 sources × 2 receivers) the credit window plus the batch
      // being built; per source one poll beyond its credit; plus two batches for the few
      // milliseconds between the sources' and the receivers' metric snapshots.
      long bound = 4L * (credits + 1) * batch + 2L * batch + 2L * batch;
      assertThat(read - consumed).isLessThanOrEqualTo(bound);
      assertThat(read).isLessThan(m.sourceLagRecords());
      job.cancel().toCompletableFuture().join();
    }
  }
}
