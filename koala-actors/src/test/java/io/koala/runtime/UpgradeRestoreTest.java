package io.koala.runtime;

import static io.koala.runtime.LiveReconfigurationTest.KEYS;
import static io.koala.runtime.LiveReconfigurationTest.RECORDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Aggregates;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint of one version of a dataflow restored into the next: its keyed state split among a
 * new parallelism, a stateless stage added, a stateful operator dropped, under another job id — the
 * output of both runs together exactly the counts of an uninterrupted run.
 */
class UpgradeRestoreTest {
  private static final Duration WAIT = Duration.ofSeconds(90);

  /** Version 1: counts per key, and counts of the counts. */
  private static Dataflow v1(double rate) {
    DataflowBuilder b = Dataflow.builder("upgrade").parallelism(2);
    var counts = numbers(b, rate).keyBy(x -> x, Long.class).count("count");
    counts.sink(SinkSpec.collecting("counts"));
    counts.keyBy(KeyValue::key).count("recount").sink(SinkSpec.collecting("recounts"));
    return b.build();
  }

  /**
   * Version 2: a stage before the keyBy, the counts renamed (keeping their uid) and at parallelism
   * 5, no recount.
   */
  private static Dataflow v2(double rate) {
    DataflowBuilder b = Dataflow.builder("upgrade-v2").parallelism(5);
    numbers(b, rate)
        .map("checked", (Long x) -> x)
        .keyBy(x -> x, Long.class)
        .count("count-per-key")
        .uid("count")
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  /**
   * Version 3: its {@code count} keeps its count as a rolling aggregate, whose accumulator is a
   * value of any class, where version 1 declared a {@code Long}.
   */
  private static Dataflow v3() {
    DataflowBuilder b = Dataflow.builder("upgrade-v3").parallelism(2);
    numbers(b, 20_000)
        .keyBy(x -> x, Long.class)
        .aggregate("count", Aggregates.<Long>count())
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  private static Stage<Long> numbers(DataflowBuilder b, double rate) {
    return b.source(
        SourceSpec.generator("n", (i, seed) -> (i * 7919) % KEYS)
            .partitions(2)
            .count(RECORDS)
            .rate(RateSchedule.constant(rate)));
  }

  @Test
  void aCheckpointTakenRightAfterARescaleCarriesOverIntoTheNextVersion(@TempDir Path dir)
      throws Exception {
    Path first = dir.resolve("first");
    List<KeyValue<Long, Long>> counts = new ArrayList<>();
    Path chk;
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(CheckpointRecoveryTest.config(first, Duration.ofHours(1)))) {
      JobHandle job = runtime.submit(v1(4_000));
      LiveReconfigurationTest.awaitProgress(job, 2_000);
      // keys of the moved buckets are at their new owner or still at their holder
      LiveReconfigurationTest.done(job.rescale("count", 3));
      long c = job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      counts.addAll(job.<KeyValue<Long, Long>>collected("counts"));
      chk = first.resolve("checkpoints").resolve(job.id()).resolve("chk-" + c);
    }
    Path savepoint = dir.resolve("elsewhere").resolve("v1");
    Files.createDirectories(savepoint);
    try (Stream<Path> files = Files.list(chk)) {
      for (Path f : files.toList()) {
        Files.copy(f, savepoint.resolve(f.getFileName()));
      }
    }
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(
            CheckpointRecoveryTest.config(dir.resolve("second"), Duration.ofHours(1)))) {
      SubmitOptions restore = SubmitOptions.restoreFrom(savepoint).withJobId("orders");
      assertThatThrownBy(() -> runtime.submit(v2(20_000), restore))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("cannot restore job orders (dataflow 'upgrade-v2') from checkpoint")
          .hasMessageContaining(
              "operator 'recount' is not in the new dataflow: its keyed state in the checkpoint"
                  + " would be lost");
      // the state's declarations came along: a version that declares it otherwise fails at open
      JobHandle v3 =
          runtime.submit(v3(), restore.withJobId("orders-v3").allowDroppingState("recount"));
      assertThatThrownBy(() -> v3.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasStackTraceContaining(
              "operator 'count' state 'accumulator': its value class changed from"
                  + " java.lang.Long to");
      JobHandle job = runtime.submit(v2(20_000), restore.allowDroppingState("recount"));
      assertThat(job.id()).isEqualTo("orders");
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      counts.addAll(job.<KeyValue<Long, Long>>collected("counts"));
    }
    Map<String, List<KeyValue<Long, Long>>> outputs = new TreeMap<>();
    outputs.put("counts", counts);
    LiveReconfigurationTest.assertExactCounts(outputs);
  }
}
