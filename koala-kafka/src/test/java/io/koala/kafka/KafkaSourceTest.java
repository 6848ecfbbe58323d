package io.koala.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.coordinator.PlannedCrash;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.DeadLetter;
import io.koala.function.KeyValue;
import io.koala.function.RecordErrorPolicy;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.kafka.testing.EmbeddedKafka;
import io.koala.runtime.JobFailedException;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.runtime.testing.TaskCrashes;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KafkaSource} in running jobs against an embedded broker: keyed counts of a preloaded
 * topic, a task crash rolled back to a checkpoint (positions restored, nothing lost or counted
 * twice), a live rescale and a migration of the keyed count while the source reads, partitions
 * added while the job runs, and the named failures of a missing topic, an unreachable broker and a
 * failing deserializer.
 */
class KafkaSourceTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int KEYS = 37;
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  /**
   * Record {@code i} of a test topic: key {@code "k<i mod KEYS>"}, written to partition i mod n.
   */
  private static void produce(String topic, int partitions, int from, int to) {
    kafka.produce(
        topic,
        IntStream.range(from, to).boxed().toList(),
        i -> i % partitions,
        i -> ("k" + (i % KEYS)).getBytes(StandardCharsets.UTF_8),
        i -> 1_000_000L + i);
  }

  private static KafkaSource.Builder<String> source(String topic) {
    return KafkaSource.<String>builder("kafka")
        .bootstrapServers(kafka.bootstrapServers())
        .topic(topic)
        .deserializer(KafkaDeserializer.utf8Values());
  }

  private static Dataflow countWords(String name, KafkaSource<String> source) {
    DataflowBuilder b = Dataflow.builder(name).parallelism(2);
    b.source(source).keyBy((String w) -> w).count("count").sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  /** Each key's running counts must be exactly 1..n, n its number of records in [0, records). */
  private static void assertExactCounts(List<KeyValue<String, Long>> out, int records) {
    Map<String, Long> expected = new TreeMap<>();
    for (int i = 0; i < records; i++) {
      expected.merge("k" + (i % KEYS), 1L, Long::sum);
    }
    Map<String, List<Long>> seen = new TreeMap<>();
    for (KeyValue<String, Long> kv : out) {
      seen.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
    }
    assertThat(seen.keySet()).isEqualTo(expected.keySet());
    expected.forEach(
        (key, n) -> {
          List<Long> want = new ArrayList<>();
          for (long c = 1; c <= n; c++) {
            want.add(c);
          }
          assertThat(seen.get(key))
              .as("counts of %s", key)
              .containsExactlyInAnyOrderElementsOf(want);
        });
    assertThat(out).hasSize(records);
  }

  /** The highest count of each key in {@code out}. */
  private static Map<String, Long> latest(List<KeyValue<String, Long>> out) {
    Map<String, Long> m = new TreeMap<>();
    for (KeyValue<String, Long> kv : out) {
      m.merge(kv.key(), kv.value(), Math::max);
    }
    return m;
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  @Test
  void aPreloadedTopicReadByTwoTasksGivesExactKeyedCounts() {
    String topic = "preloaded";
    int records = 20_000;
    kafka.createTopic(topic, 4);
    produce(topic, 4, 0, records);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      long t0 = System.nanoTime();
      JobHandle job =
          runtime.submit(countWords("preloaded", source(topic).boundedAtEndOffsets().build()));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      System.out.printf(
          "read %,d records from 4 partitions with 2 tasks in %d ms%n",
          records, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      assertExactCounts(job.collected("counts"), records);
    }
  }

  /**
   * Event time from the records' Kafka timestamps: tumbling windows over a topic that stays open
   * fire while the job runs, each with every record of its second. Each task polls before its
   * consumer knows its partitions; it gave the end of the input's watermark then, after which it
   * could give none, and no window downstream fired until the input ended.
   */
  @Test
  void eventTimeWindowsOverAnOpenTopicFireWhileTheJobRuns() {
    String topic = "windows";
    int records = 4_000;
    kafka.createTopic(topic, 4);
    produce(topic, 4, 0, records); // record i at 1,000,000 + i ms: the first 3 seconds close
    DataflowBuilder b = Dataflow.builder("windows").parallelism(2);
    b.source(source(topic).build(), WatermarkStrategy.monotonousTimestamps())
        .keyBy((String w) -> w)
        .window(WindowAssigner.tumbling(Duration.ofSeconds(1)))
        .count("per-second")
        .sink(SinkSpec.collecting("windows"));
    Map<String, Long> expected = new TreeMap<>();
    for (int i = 0; i < 3_000; i++) {
      expected.merge("k" + (i % KEYS) + "@" + (1_000_000 + i) / 1_000 * 1_000, 1L, Long::sum);
    }
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      Map<String, Long> counted = new TreeMap<>();
      await(
          "the windows of the first three seconds",
          () -> {
            counted.clear();
            for (WindowResult<String, Long> w :
                job.<WindowResult<String, Long>>collected("windows")) {
              counted.merge(w.key() + "@" + w.start(), w.value(), Long::sum);
            }
            return counted.size() >= expected.size();
          });
      assertThat(counted).isEqualTo(expected);
      assertThat(job.metrics().lateRecords("per-second")).isZero();
    }
  }

  @Test
  void aTaskCrashRollsBackToTheCheckpointedOffsetsAndCountsEveryRecordOnce(@TempDir Path dir)
      throws Exception {
    String topic = "crash";
    int records = 30_000;
    kafka.createTopic(topic, 4);
    produce(topic, 4, 0, records / 3);
    KoalaConfig config =
        KoalaConfig.load()
            .withWorkers(2)
            .withDataDir(dir)
            .withCheckpointInterval(Duration.ofMillis(100))
            .withRestartBackoff(Duration.ofMillis(50));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(countWords("crash", source(topic).build()));
      long seed = System.nanoTime();
      System.out.println("crash victim seed: " + seed);
      job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      TaskCrashes.plan(job, seed, List.of(new PlannedCrash.At(0)));
      produce(topic, 4, records / 3, 2 * records / 3);
      await("the planned crash", () -> !TaskCrashes.injected(job).isEmpty());
      produce(topic, 4, 2 * records / 3, records);
      Map<String, Long> expected = new TreeMap<>();
      for (int i = 0; i < records; i++) {
        expected.merge("k" + (i % KEYS), 1L, Long::sum);
      }
      await(
          "every record counted and published by a checkpoint",
          () -> {
            job.checkpoint().toCompletableFuture().join();
            return latest(job.collected("counts")).equals(expected);
          });
      assertThat(job.metrics().rollbacks()).isEqualTo(1);
      assertExactCounts(job.collected("counts"), records);
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /**
   * The count and the source itself are rescaled and moved while the job reads: the source's
   * partitions move between its tasks with their offsets (each task opening a new consumer).
   */
  @Test
  void liveRescalesAndMigrationsOfTheCountAndTheSourceLoseAndDuplicateNothing() throws Exception {
    String topic = "live";
    int records = 30_000;
    kafka.createTopic(topic, 4);
    produce(topic, 4, 0, records / 3);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(countWords("live", source(topic).build()));
      await("a first part read", () -> job.metrics().recordsIn("count") > 0);
      ReconfigurationReport rescaled =
          job.rescale("count", 3).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(rescaled.tasksAfter()).containsExactly(0, 1, 2);
      ReconfigurationReport sourceOut =
          job.rescale("kafka", 4).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(sourceOut.tasksAfter()).containsExactly(0, 1, 2, 3);
      produce(topic, 4, records / 3, 2 * records / 3);
      ReconfigurationReport migrated =
          job.migrate("count", 2, 0).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(migrated).isNotNull();
      ReconfigurationReport sourceMoved =
          job.migrate("kafka", 0, 1).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(sourceMoved.tasksAfter()).containsExactly(1, 2, 3, 4);
      produce(topic, 4, 2 * records / 3, records);
      ReconfigurationReport sourceIn =
          job.rescale("kafka", 1).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(sourceIn.tasksAfter()).containsExactly(1);
      Map<String, Long> expected = new TreeMap<>();
      for (int i = 0; i < records; i++) {
        expected.merge("k" + (i % KEYS), 1L, Long::sum);
      }
      await("every record counted", () -> latest(job.collected("counts")).equals(expected));
      assertThat(job.metrics().rollbacks()).as("no rollback: every change ran live").isZero();
      assertExactCounts(job.collected("counts"), records);
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  @Test
  void partitionsAddedWhileTheJobRunsAreRead() {
    String topic = "growing";
    kafka.createTopic(topic, 2);
    produce(topic, 2, 0, 1_000);
    KafkaSource<String> source =
        source(topic).partitionDiscoveryInterval(Duration.ofMillis(200)).build();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(countWords("growing", source));
      await("the first partitions read", () -> job.collected("counts").size() == 1_000);
      kafka.addPartitions(topic, 5);
      // records 1000.. go to all five partitions; partitions 2, 3 and 4 are new
      kafka.produce(
          topic,
          IntStream.range(1_000, 2_000).boxed().toList(),
          i -> i % 5,
          i -> ("k" + (i % KEYS)).getBytes(StandardCharsets.UTF_8),
          i -> 1_000_000L + i);
      await("the new partitions read", () -> job.collected("counts").size() == 2_000);
      assertExactCounts(job.collected("counts"), 2_000);
      job.cancel().toCompletableFuture().join();
    }
  }

  @Test
  void aMissingTopicFailsTheJobNamingTopicAndServers() {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(countWords("missing", source("no-such-topic").build()));
      assertThatThrownBy(() -> job.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("topic 'no-such-topic'")
          .hasMessageContaining(kafka.bootstrapServers())
          .hasMessageContaining("the topic does not exist");
    }
  }

  @Test
  void anUnreachableBrokerFailsTheJobWithinTheConnectTimeout() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    String servers = "127.0.0.1:" + port;
    KafkaSource<String> source =
        KafkaSource.<String>builder("kafka")
            .bootstrapServers(servers)
            .topic("orders")
            .deserializer(KafkaDeserializer.utf8Values())
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      long t0 = System.nanoTime();
      JobHandle job = runtime.submit(countWords("unreachable", source));
      assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("topic 'orders' at " + servers)
          .hasMessageContaining("no answer from the brokers within 2000 ms");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(20));
    }
  }

  /** A source of {@code topic} whose deserializer throws on the records {@code poison} names. */
  private static KafkaSource<String> poisoned(
      String topic, java.util.function.BiPredicate<Integer, Long> poison) {
    return KafkaSource.<String>builder("kafka")
        .bootstrapServers(kafka.bootstrapServers())
        .topic(topic)
        .deserializer(
            r -> {
              if (poison.test(r.partition(), r.offset())) {
                throw new IllegalArgumentException("poison pill");
              }
              return new String(r.value(), StandardCharsets.UTF_8);
            })
        .build();
  }

  @Test
  void aFailingDeserializerNamesPartitionAndOffset() {
    String topic = "poison";
    kafka.createTopic(topic, 2);
    produce(topic, 2, 0, 100);
    KafkaSource<String> source =
        poisoned(topic, (partition, offset) -> partition == 1 && offset == 17);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(countWords("poison", source));
      assertThatThrownBy(() -> job.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("topic 'poison'")
          .hasMessageContaining("partition 1, offset 17")
          .hasMessageContaining("poison pill");
    }
  }

  @Test
  void underSkipARecordThatCannotBeDeserializedIsCountedAndTheOthersAreRead() {
    String topic = "poison-skipped";
    kafka.createTopic(topic, 2);
    produce(topic, 2, 0, 100);
    KafkaSource<String> source =
        poisoned(topic, (partition, offset) -> offset == 17 || (partition == 0 && offset == 3));
    DataflowBuilder b =
        Dataflow.builder("poison-skipped").parallelism(2).onRecordError(RecordErrorPolicy.skip(5));
    b.source(source).keyBy((String w) -> w).count("count").sink(SinkSpec.collecting("counts"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      await("the readable records counted", () -> job.collected("counts").size() == 97);
      assertThat(job.metrics().recordsSkipped("kafka")).isEqualTo(3);
      assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
      job.cancel().toCompletableFuture().join();
    }
  }

  @Test
  void underDeadLetterARecordThatCannotBeDeserializedSaysWhereItWas() {
    String topic = "poison-dead-letter";
    kafka.createTopic(topic, 2);
    produce(topic, 2, 0, 100);
    KafkaSource<String> source =
        poisoned(topic, (partition, offset) -> offset == 17 || (partition == 0 && offset == 3));
    DataflowBuilder b =
        Dataflow.builder("poison-dead-letter")
            .parallelism(2)
            .onRecordError(RecordErrorPolicy.deadLetter(5));
    b.source(source).keyBy((String w) -> w).count("count").sink(SinkSpec.collecting("counts"));
    b.deadLetters().sink(SinkSpec.collecting("dead"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      await("the readable records counted", () -> job.collected("counts").size() == 97);
      await("the dead letters", () -> job.collected("dead").size() == 3);
      List<DeadLetter> dead = job.collected("dead");
      assertThat(dead)
          .extracting(DeadLetter::record)
          .containsExactlyInAnyOrder(
              "partition 0, offset 3", "partition 0, offset 17", "partition 1, offset 17");
      assertThat(dead)
          .allSatisfy(
              d -> {
                assertThat(d.operator()).isEqualTo("kafka");
                assertThat(d.recordType()).as("no record was read").isNull();
                assertThat(d.error()).contains("poison pill");
              });
      assertThat(job.metrics().recordsSkipped("kafka")).isEqualTo(3);
      job.cancel().toCompletableFuture().join();
    }
  }

  @Test
  void theBuilderNamesWhatIsMissing() {
    assertThatThrownBy(() -> KafkaSource.<String>builder("s").topic("t").build())
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("Kafka source 's'")
        .hasMessageContaining("bootstrapServers");
    assertThatThrownBy(
            () ->
                source("t")
                    .property("group.id", "g")
                    .property("enable.auto.commit", "true")
                    .build())
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'enable.auto.commit' is set by the source itself");
    assertThatThrownBy(() -> source("t").commitOffsetsOnCheckpoint(true).build())
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("needs property group.id");
  }
}
