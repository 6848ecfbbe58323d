package io.koala.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkWriter;
import io.koala.coordinator.PlannedCrash;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.kafka.testing.EmbeddedKafka;
import io.koala.runtime.JobFailedException;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.runtime.WorkerLosses;
import io.koala.runtime.testing.TaskCrashes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KafkaSink} against an embedded broker: its writer driven by hand (restores that skip what
 * a marker shows committed, a zombie fenced, a transaction the broker aborted on timeout published
 * again), and in jobs: keyed running counts from a {@link KafkaSource} written exactly once across
 * planned task crashes (during processing, in a checkpoint, right after a commit) and the loss of a
 * worker, at least once with a crash, and the named failures.
 */
class KafkaSinkTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int KEYS = 37;
  private static final long EPOCH = System.currentTimeMillis();
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() {
    // the broker looks for timed-out transactions every 500 ms (default: 10 s)
    kafka =
        EmbeddedKafka.start(
            Map.of("transaction.abort.timed.out.transaction.cleanup.interval.ms", "500"));
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  // ---------------------------------------------------------------- the writer, driven by hand

  /**
   * The context of sink task {@code task} of 1, resumed from {@code checkpoint} with {@code state}.
   */
  private static SinkContext context(String sink, int task, long checkpoint, byte[] state) {
    return context(sink, task, checkpoint, state, new ArrayList<>(), new AtomicInteger());
  }

  /**
   * {@link #context(String, int, long, byte[])}, with the checkpoints the writer asks for in {@code
   * asked} and its wake-ups counted in {@code wakes}.
   */
  private static SinkContext context(
      String sink,
      int task,
      long checkpoint,
      byte[] state,
      List<String> asked,
      AtomicInteger wakes) {
    return new SinkContext() {
      @Override
      public void requestCheckpoint(String reason) {
        asked.add(reason);
      }

      @Override
      public Runnable waker() {
        return wakes::incrementAndGet;
      }

      @Override
      public String sinkName() {
        return sink;
      }

      @Override
      public int taskIndex() {
        return task;
      }

      @Override
      public int parallelism() {
        return 1;
      }

      @Override
      public Collector<Object> clientResults() {
        return v -> {};
      }

      @Override
      public boolean checkpointing() {
        return true;
      }

      @Override
      public long restoredCheckpoint() {
        return checkpoint;
      }

      @Override
      public byte[] restoredState() {
        return state;
      }
    };
  }

  private static KafkaSink.Builder<String> stringSink(String name, String topic) {
    return KafkaSink.<String>builder(name)
        .bootstrapServers(kafka.bootstrapServers())
        .topic(topic)
        .serializer(KafkaSerializer.utf8Values());
  }

  private static void write(SinkWriter<String> w, String... values) throws Exception {
    for (String v : values) {
      w.write(v, -1);
    }
  }

  @Test
  void aRestoredWriterPublishesWhatNoMarkerShowsCommittedAndSkipsTheRest() throws Exception {
    String topic = "restore-out";
    kafka.createTopic(topic, 1);
    KafkaSink<String> sink = stringSink("restore", topic).exactlyOnce("t-restore").build();
    byte[] atTwo;
    try (SinkWriterHandle a = new SinkWriterHandle(sink.open(context("restore", 0, 0, null)))) {
      write(a.w, "a1", "a2");
      a.w.prepareCommit(1);
      write(a.w, "b1");
      a.w.prepareCommit(2);
      atTwo = a.w.pendingState(); // 1 and 2 pending
      a.w.commit(1); // 1 committed, 2 not: the task dies before it hears of 2
      write(a.w, "c1"); // after the checkpoint: replayed by the job, never published from here
    }
    try (SinkWriterHandle b = new SinkWriterHandle(sink.open(context("restore", 0, 2, atTwo)))) {
      write(b.w, "c1");
      b.w.finish();
    }
    assertThat(readAll(topic)).containsExactly("a1", "a2", "b1", "c1");
  }

  @Test
  void anIntervalPastHalfTheBoundAsksForACheckpointAndPendingOutputAtTheBoundHoldsInput()
      throws Exception {
    String topic = "bound-out";
    kafka.createTopic(topic, 1);
    KafkaSink<String> sink =
        stringSink("bound", topic).exactlyOnce("t-bound").maxUncommittedBytes(4096).build();
    List<String> asked = new ArrayList<>();
    AtomicInteger wakes = new AtomicInteger();
    List<String> written = new ArrayList<>();
    try (SinkWriterHandle h =
        new SinkWriterHandle(sink.open(context("bound", 0, 0, null, asked, wakes)))) {
      // a record logs about 125 bytes (its topic, 16 bytes, its 100-byte value): 17 pass 2,048
      for (int i = 0; i < 16; i++) {
        written.add(value(i));
        write(h.w, value(i));
      }
      assertThat(asked).as("under half the bound").isEmpty();
      written.add(value(16));
      write(h.w, value(16));
      write(h.w, value(17));
      written.add(value(17));
      assertThat(asked)
          .as("once per interval")
          .singleElement()
          .asString()
          .contains("half of maxUncommittedBytes (4096)");
      h.w.prepareCommit(1);
      assertThat(h.w.ready()).as("2,250 bytes pending").isTrue();
      for (int i = 18; i < 36; i++) {
        written.add(value(i));
        write(h.w, value(i));
      }
      assertThat(asked).as("the next interval asks again").hasSize(2);
      h.w.prepareCommit(2);
      assertThat(h.w.ready()).as("4,500 bytes pending: no more input until a commit").isFalse();
      int woken = wakes.get();
      h.w.commit(2);
      assertThat(h.w.ready()).isTrue();
      assertThat(wakes.get()).as("the task is woken").isGreaterThan(woken);
      h.w.finish();
    }
    // a commit returns before its markers reach the partition: read until the last one did
    await("the second interval's commit visible", () -> readAll(topic).size() >= written.size());
    assertThat(readAll(topic)).containsExactlyElementsOf(written);
  }

  private static String value(int i) {
    return String.format("%03d", i) + "x".repeat(97);
  }

  @Test
  void aZombieIsFencedAndItsPreparedIntervalPublishedOnceByItsSuccessor() throws Exception {
    String topic = "zombie-out";
    kafka.createTopic(topic, 1);
    KafkaSink<String> sink = stringSink("zombie", topic).exactlyOnce("t-zombie").build();
    try (SinkWriterHandle zombie = new SinkWriterHandle(sink.open(context("zombie", 0, 0, null)))) {
      write(zombie.w, "x", "y");
      zombie.w.prepareCommit(1);
      byte[] state = zombie.w.pendingState();
      // the job moved on without the old task: its successor resumes from checkpoint 1
      try (SinkWriterHandle successor =
          new SinkWriterHandle(sink.open(context("zombie", 0, 1, state)))) {
        assertThatThrownBy(() -> zombie.w.commit(1))
            .isInstanceOf(KafkaSinkException.class)
            .hasMessageContaining("Kafka sink 'zombie' (topic 'zombie-out'")
            .hasMessageContaining("'t-zombie-zombie-0-0' is fenced");
        write(successor.w, "z");
        successor.w.finish();
      }
    }
    assertThat(readAll(topic)).containsExactly("x", "y", "z");
  }

  @Test
  void aTransactionTheBrokerAbortedOnTimeoutIsPublishedAgainFromTheLog() throws Exception {
    String topic = "timeout-out";
    kafka.createTopic(topic, 1);
    KafkaSink<String> sink =
        stringSink("slow", topic)
            .exactlyOnce("t-timeout")
            .property(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "1000")
            .build();
    try (SinkWriterHandle h = new SinkWriterHandle(sink.open(context("slow", 0, 0, null)))) {
      write(h.w, "p", "q");
      h.w.prepareCommit(1);
      // the checkpoint takes longer than the transaction timeout: the broker aborts it
      long t0 = System.nanoTime();
      await("the broker to abort the transaction", () -> openTransactions("t-timeout") == 0);
      System.out.printf(
          "transaction aborted by the broker after %d ms%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      h.w.commit(1);
      write(h.w, "r");
      h.w.finish();
    }
    assertThat(readAll(topic)).containsExactly("p", "q", "r");
  }

  /** Open transactions of the transactional ids starting with {@code prefix}. */
  private static long openTransactions(String prefix) {
    try {
      return kafka.admin().listTransactions().all().get(30, TimeUnit.SECONDS).stream()
          .filter(t -> t.transactionalId().startsWith(prefix))
          .filter(t -> t.state() == TransactionState.ONGOING)
          .count();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Closes a writer (never commits). */
  private record SinkWriterHandle(SinkWriter<String> w) implements AutoCloseable {
    @Override
    public void close() {
      try {
        w.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  // --------------------------------------------------------------------------------- in jobs

  /**
   * Record {@code i} of the input: key {@code "k<i mod KEYS>"}, to partition i mod n, stamped
   * {@code i} ms after the test class started (recent: Kafka rolls and deletes segments by their
   * records' timestamps, and the sink's output records carry these).
   */
  private static void produce(String topic, int partitions, int from, int to) {
    kafka.produce(
        topic,
        IntStream.range(from, to).boxed().toList(),
        i -> i % partitions,
        i -> ("k" + (i % KEYS)).getBytes(StandardCharsets.UTF_8),
        i -> EPOCH + i);
  }

  /**
   * Writes records [from, to) as {@link #produce} does, in chunks of 200 every 50 ms on a thread of
   * its own, so that the job has input while crashes strike (a restored sink then has logged
   * intervals to publish or skip). Join the thread to wait for the end.
   */
  private static Thread feed(String topic, int partitions, int from, int to, AtomicInteger fed) {
    Thread t =
        new Thread(
            () -> {
              for (int i = from; i < to; i += 200) {
                produce(topic, partitions, i, Math.min(to, i + 200));
                fed.set(Math.min(to, i + 200) - from);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // pacing, not waiting
              }
            },
            "feed-" + topic);
    t.start();
    return t;
  }

  /** Sink "counts-out": running counts into {@code topic}, exactly once, with {@code id}. */
  private static KafkaSink<KeyValue<String, Long>> exactlyOnceCounts(String topic, String id) {
    return exactlyOnceCountsBuilder(topic, id).build();
  }

  private static KafkaSink.Builder<KeyValue<String, Long>> exactlyOnceCountsBuilder(
      String topic, String id) {
    return KafkaSink.<KeyValue<String, Long>>builder("counts-out")
        .bootstrapServers(kafka.bootstrapServers())
        .topic(topic)
        .serializer(countSerializer())
        .exactlyOnce(id);
  }

  private static KafkaSerializer<KeyValue<String, Long>> countSerializer() {
    return KafkaSerializer.keyValue(
        kv -> kv.key().getBytes(StandardCharsets.UTF_8),
        kv -> Long.toString(kv.value()).getBytes(StandardCharsets.UTF_8));
  }

  private static Dataflow counts(String name, String in, KafkaSink<KeyValue<String, Long>> out) {
    return counts(name, in, out, 2);
  }

  /** Kafka {@code in} → keyBy → count (2 tasks) → {@code out} ({@code sinkTasks} tasks). */
  private static Dataflow counts(
      String name, String in, KafkaSink<KeyValue<String, Long>> out, int sinkTasks) {
    DataflowBuilder b = Dataflow.builder(name).parallelism(2);
    b.source(
            KafkaSource.<String>builder("kafka")
                .bootstrapServers(kafka.bootstrapServers())
                .topic(in)
                .deserializer(KafkaDeserializer.utf8Values())
                .build())
        .keyBy((String w) -> w)
        .count("count")
        .sink(out)
        .parallelism(sinkTasks);
    return b.build();
  }

  private static Map<String, Long> expected(int records) {
    Map<String, Long> m = new TreeMap<>();
    for (int i = 0; i < records; i++) {
      m.merge("k" + (i % KEYS), 1L, Long::sum);
    }
    return m;
  }

  @Test
  void theReadmesKafkaToKafkaWordCountCountsEachWordOnce(@TempDir Path dir) throws Exception {
    kafka.createTopic("lines", 2);
    kafka.createTopic("word-counts", 2);
    List<String> text = List.of("to be or not to be", "that is the question", "to be");
    kafka.produce(
        "lines",
        text,
        line -> 0,
        line -> line.getBytes(StandardCharsets.UTF_8),
        line -> System.currentTimeMillis());
    Map<String, Long> expected =
        Map.of(
            "to",
            3L,
            "be",
            3L,
            "or",
            1L,
            "not",
            1L,
            "that",
            1L,
            "is",
            1L,
            "the",
            1L,
            "question",
            1L);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, 2))) {
      JobHandle job = runtime.submit(kafkaWordCount(kafka.bootstrapServers()));
      await("every word counted", () -> latest(readAllKeyed("word-counts")).equals(expected));
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    // each count of each word once: 1..n
    Map<String, List<Long>> seen = new TreeMap<>();
    readAllKeyed("word-counts")
        .forEach(kv -> seen.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value()));
    expected.forEach(
        (w, n) ->
            assertThat(seen.get(w))
                .as(w)
                .containsExactlyInAnyOrderElementsOf(
                    LongStream.rangeClosed(1, n).boxed().toList()));
  }

  /** The README's Kafka-to-Kafka example: words of lines, counted, exactly once. */
  static Dataflow kafkaWordCount(String servers) {
    // README-BEGIN
    KafkaSource<String> lines =
        KafkaSource.<String>builder("lines")
            .bootstrapServers(servers)
            .topic("lines")
            .deserializer(KafkaDeserializer.utf8Values())
            .build();
    KafkaSink<KeyValue<String, Long>> counts =
        KafkaSink.<KeyValue<String, Long>>builder("counts")
            .bootstrapServers(servers)
            .topic("word-counts")
            .serializer(
                KafkaSerializer.keyValue(
                    kv -> kv.key().getBytes(UTF_8),
                    kv -> Long.toString(kv.value()).getBytes(UTF_8)))
            .exactlyOnce("word-count") // transactions committed with Koala's checkpoints
            .build();
    DataflowBuilder b = Dataflow.builder("kafka-word-count").parallelism(2);
    b.source(lines)
        .flatMap(
            "split",
            (String line, Collector<String> out) -> {
              for (String word : line.split(" ")) {
                out.collect(word);
              }
            })
        .keyBy(word -> word)
        .count("count")
        .sink(counts);
    // README-END
    return b.build();
  }

  private static KoalaConfig config(Path dir, int workers) {
    return KoalaConfig.load()
        .withWorkers(workers)
        .withDataDir(dir)
        .withCheckpointInterval(Duration.ofMillis(200))
        .withRestartBackoff(Duration.ofMillis(50));
  }

  @Test
  void runningCountsAreWrittenExactlyOnceAcrossCrashesInProcessingInACheckpointAndAfterACommit(
      @TempDir Path dir) throws Exception {
    String in = "eo-in";
    String out = "eo-out";
    int phase = 4_000;
    List<PlannedCrash> crashes =
        List.of(
            new PlannedCrash.At(0),
            new PlannedCrash.InCheckpoint(1),
            new PlannedCrash.AfterCommit(),
            new PlannedCrash.AfterCommit());
    kafka.createTopic(in, 4);
    kafka.createTopic(out, 3);
    produce(in, 4, 0, phase);
    KafkaSink<KeyValue<String, Long>> sink = exactlyOnceCounts(out, "eo");
    long seed = System.nanoTime();
    System.out.println("KafkaSinkTest crash victims seed " + seed);
    long t0 = System.nanoTime();
    int records = phase;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, 2))) {
      JobHandle job = runtime.submit(counts("eo", in, sink));
      for (int i = 0; i < crashes.size(); i++) {
        int sofar = records;
        awaitOutput(out, seen -> latest(seen).equals(expected(sofar))); // caught up
        // each crash strikes while records flow, so that the checkpoint a rollback goes to has
        // logged intervals: published again, or skipped where a marker shows them committed
        AtomicInteger fed = new AtomicInteger();
        Thread feeder = feed(in, 4, records, records + phase, fed);
        await("input flowing", () -> fed.get() >= phase / 4);
        TaskCrashes.plan(job, seed + i, List.of(crashes.get(i)));
        int n = i + 1;
        await("planned crash " + n, () -> TaskCrashes.injected(job).size() == n);
        feeder.join(WAIT.toMillis());
        records += phase;
      }
      int all = records;
      awaitOutput(out, seen -> latest(seen).equals(expected(all)));
      System.out.println("crashes: " + TaskCrashes.injected(job));
      assertThat(job.metrics().rollbacks()).isEqualTo(crashes.size());
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    fence("eo-counts-out", 2);
    assertExactCounts(out, records);
    System.out.printf(
        "exactly once, %d records, 4 crashes: %d ms%n",
        records, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  /**
   * The exactly-once sink is a stage of its own (3 tasks, fed round-robin) scaled in to 1 while
   * records flow, then a task crashes (a retired sink task among the candidates): what the removed
   * tasks wrote is published once — by the commit of a checkpoint that has them as holders, or by a
   * restored writer from its transaction log — and nothing is written twice.
   */
  @Test
  void anExactlyOnceSinkScaledInWhileRunningThenRolledBackWritesEachCountOnce(@TempDir Path dir)
      throws Exception {
    String in = "rescaled-in";
    String out = "rescaled-out";
    int records = 12_000;
    kafka.createTopic(in, 4);
    kafka.createTopic(out, 2);
    produce(in, 4, 0, records / 3);
    KafkaSink<KeyValue<String, Long>> sink = exactlyOnceCounts(out, "rescaled");
    long seed = System.nanoTime();
    System.out.println("KafkaSinkTest rescale crash victim seed " + seed);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, 2))) {
      JobHandle job = runtime.submit(counts("rescaled", in, sink, 3));
      awaitOutput(out, seen -> latest(seen).equals(expected(records / 3))); // committed
      AtomicInteger fed = new AtomicInteger();
      Thread feeder = feed(in, 4, records / 3, records, fed);
      await("input flowing", () -> fed.get() >= records / 6);
      ReconfigurationReport scaledIn =
          job.rescale("counts-out", 1)
              .toCompletableFuture()
              .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(scaledIn.tasksAfter()).containsExactly(0);
      TaskCrashes.plan(job, seed, List.of(new PlannedCrash.At(0)));
      await("the planned crash", () -> TaskCrashes.injected(job).size() == 1);
      feeder.join(WAIT.toMillis());
      Map<String, Long> want = expected(records);
      awaitOutput(out, seen -> latest(seen).equals(want));
      System.out.println("crash: " + TaskCrashes.injected(job));
      assertThat(job.metrics().rollbacks()).isEqualTo(1);
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    fence("rescaled-counts-out", 3);
    assertExactCounts(out, records);
  }

  @Test
  void runningCountsAreWrittenExactlyOnceWhenAWorkerIsLost(@TempDir Path dir) throws Exception {
    String in = "loss-in";
    String out = "loss-out";
    int records = 12_000;
    kafka.createTopic(in, 4);
    kafka.createTopic(out, 2);
    produce(in, 4, 0, records / 2);
    KafkaSink<KeyValue<String, Long>> sink = exactlyOnceCounts(out, "loss");
    long t0 = System.nanoTime();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, 3))) {
      JobHandle job = runtime.submit(counts("loss", in, sink));
      awaitOutput(out, seen -> latest(seen).equals(expected(records / 2))); // committed
      AtomicInteger fed = new AtomicInteger();
      Thread feeder = feed(in, 4, records / 2, records, fed);
      await("input flowing", () -> fed.get() >= records / 8);
      int victim = job.metrics().tasksOnWorker(2).isEmpty() ? 1 : 2;
      System.out.println("losing worker " + victim + ": " + job.metrics().tasksOnWorker(victim));
      WorkerLosses.lose(runtime, victim);
      feeder.join(WAIT.toMillis());
      Map<String, Long> want = expected(records);
      awaitOutput(out, seen -> latest(seen).equals(want));
      assertThat(job.metrics().rollbacks()).isGreaterThanOrEqualTo(1);
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    fence("loss-counts-out", 2);
    assertExactCounts(out, records);
    System.out.printf(
        "exactly once, a worker lost: %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  /**
   * A service restarted: closing its runtime with the job running stops the job with a final
   * checkpoint, whose commit publishes what the job read (no periodic checkpoint falls in the
   * test's time); submitted again on the same data directory, the job reads on from there, reading
   * nothing twice, and the counts are written exactly once across the restart.
   */
  @Test
  void aRuntimeClosedAndOpenedAgainResumesWhereItsJobStoppedWritingEachCountOnce(@TempDir Path dir)
      throws Exception {
    String in = "restart-in";
    String out = "restart-out";
    int phase = 3_000;
    kafka.createTopic(in, 4);
    kafka.createTopic(out, 2);
    produce(in, 4, 0, phase);
    KafkaSink<KeyValue<String, Long>> sink = exactlyOnceCounts(out, "restart");
    KoalaConfig config = config(dir, 2).withCheckpointInterval(Duration.ofHours(1));
    KoalaRuntime first = KoalaRuntime.embedded(config);
    JobHandle job = first.submit(counts("restart", in, sink));
    await("the first records counted", () -> job.metrics().recordsIn("count") == phase);
    assertThat(readAllKeyed(out)).as("nothing is committed before the close").isEmpty();
    first.close(WAIT);
    assertThat(job.status()).isEqualTo(JobStatus.STOPPED);
    assertExactCounts(out, phase); // the final checkpoint committed every count
    produce(in, 4, phase, 2 * phase);
    try (KoalaRuntime second = KoalaRuntime.embedded(config)) {
      JobHandle again = second.submit(counts("restart", in, sink));
      assertThat(again.id()).isEqualTo(job.id());
      await("the new records counted", () -> again.metrics().recordsIn("count") >= phase);
      assertThat(again.metrics().recordsIn("kafka"))
          .as("the resumed job read only what came after the stop")
          .isEqualTo(phase);
    } // closed the same way: its final checkpoint commits the rest
    assertExactCounts(out, 2 * phase);
  }

  /**
   * With an hour between checkpoints, a sink whose uncommitted output reaches half its bound asks
   * for checkpoints sooner: its output is committed while the job runs, and each count once.
   */
  @Test
  void anExactlyOnceSinkAsksForCheckpointsAsItsLogFillsAndWritesEachCountOnce(@TempDir Path dir)
      throws Exception {
    String in = "bounded-in";
    String out = "bounded-out";
    int records = 6_000;
    kafka.createTopic(in, 4);
    kafka.createTopic(out, 2);
    produce(in, 4, 0, records);
    KafkaSink<KeyValue<String, Long>> sink =
        exactlyOnceCountsBuilder(out, "bounded").maxUncommittedBytes(16 * 1024).build();
    try (KoalaRuntime runtime =
        KoalaRuntime.embedded(config(dir, 2).withCheckpointInterval(Duration.ofHours(1)))) {
      JobHandle job = runtime.submit(counts("bounded", in, sink));
      // about 40 bytes a count: 16 KiB is some 400 counts per sink task, 6,000 in all
      awaitOutput(out, seen -> seen.size() >= records / 2);
      // (how many depends on how far the sources read before the first asked barrier: the
      // input is all there at the start, and the bound is soft)
      assertThat(job.metrics().checkpoints().completed())
          .as("checkpoints asked for by the sink, an hour before one is due")
          .isGreaterThanOrEqualTo(1);
      job.stop().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    assertExactCounts(out, records);
  }

  @Test
  void atLeastOnceWritesEveryCountAtLeastOnceAcrossACrash(@TempDir Path dir) throws Exception {
    String in = "alo-in";
    String out = "alo-out";
    int records = 9_000;
    kafka.createTopic(in, 4);
    kafka.createTopic(out, 2);
    produce(in, 4, 0, records / 2);
    KafkaSink<KeyValue<String, Long>> sink =
        KafkaSink.<KeyValue<String, Long>>builder("counts-out")
            .bootstrapServers(kafka.bootstrapServers())
            .topic(out)
            .serializer(countSerializer())
            .atLeastOnce()
            .build();
    long seed = System.nanoTime();
    System.out.println("KafkaSinkTest at-least-once victim seed " + seed);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, 2))) {
      JobHandle job = runtime.submit(counts("alo", in, sink));
      job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      TaskCrashes.plan(job, seed, List.of(new PlannedCrash.At(0)));
      await("the planned crash", () -> !TaskCrashes.injected(job).isEmpty());
      produce(in, 4, records / 2, records);
      Map<String, Long> want = expected(records);
      awaitOutput(out, seen -> latest(seen).equals(want));
      job.cancel().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    Map<String, List<Long>> seen = new TreeMap<>();
    List<KeyValue<String, Long>> read = readAllKeyed(out);
    for (KeyValue<String, Long> kv : read) {
      seen.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
    }
    assertThat(seen.keySet())
        .as("keys of the %d records read from %s", read.size(), out)
        .isEqualTo(expected(records).keySet());
    assertThat(read.size()).isGreaterThanOrEqualTo(records);
    expected(records)
        .forEach(
            (key, n) ->
                assertThat(seen.get(key))
                    .as("counts of %s", key)
                    .containsAll(LongStreamRange.of(1, n)));
  }

  @Test
  void exactlyOnceWithoutCheckpointsFailsAtStartNamingTheSetting() {
    String in = "nocp-in";
    kafka.createTopic(in, 1);
    KafkaSink<KeyValue<String, Long>> sink =
        KafkaSink.<KeyValue<String, Long>>builder("counts-out")
            .bootstrapServers(kafka.bootstrapServers())
            .topic("nocp-out")
            .serializer(countSerializer())
            .exactlyOnce("nocp")
            .build();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(counts("nocp", in, sink));
      assertThatThrownBy(() -> job.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("Kafka sink 'counts-out' (topic 'nocp-out'")
          .hasMessageContaining("koala.checkpoint.interval");
    }
  }

  @Test
  void aFailingSerializerNamesSinkTopicAndClass() {
    KafkaSink<Object> sink =
        KafkaSink.builder("bad")
            .bootstrapServers(kafka.bootstrapServers())
            .topic("t")
            .serializer(
                (v, t, ts) -> {
                  throw new IllegalArgumentException("no bytes for you");
                })
            .build();
    assertThatThrownBy(() -> sink.serialize(List.of(1), -1))
        .isInstanceOf(KafkaSinkException.class)
        .hasMessageContaining("Kafka sink 'bad' (topic 't'")
        .hasMessageContaining("ImmutableCollections")
        .hasMessageContaining("no bytes for you");
  }

  @Test
  void theBuilderNamesWhatIsMissingOrNotAllowed() {
    assertThatThrownBy(() -> KafkaSink.<String>builder("s").topic("t").build())
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("Kafka sink 's'")
        .hasMessageContaining("bootstrapServers");
    assertThatThrownBy(() -> stringSink("s", "t").property("transactional.id", "x").build())
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'transactional.id' is set by the sink itself");
    assertThatThrownBy(() -> stringSink("s", "t").markerTopic("m").build())
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("markerTopic(...) is for exactlyOnce(prefix) only");
    KafkaSink<String> eo = stringSink("s", "t").exactlyOnce("job7").build();
    assertThat(eo.markerTopic()).isEqualTo("job7-s-markers");
    assertThat(eo.transactionalId("s", 2, 1)).isEqualTo("job7-s-2-1");
    assertThat(eo.producerPool()).isEqualTo(3);
    assertThat(stringSink("s", "t").build().exactlyOnce()).isFalse();
  }

  // ------------------------------------------------------------------------------- helpers

  /** 1..n. */
  private static final class LongStreamRange {
    static List<Long> of(long from, long to) {
      List<Long> l = new ArrayList<>();
      for (long i = from; i <= to; i++) {
        l.add(i);
      }
      return l;
    }
  }

  /**
   * Aborts what a cancelled job's sink left open (its producers are gone, their transactions open
   * until they time out): initializing each of its transactional ids does, so the output can then
   * be read to its end.
   */
  private static void fence(String idPrefix, int tasks) {
    for (int t = 0; t < tasks; t++) {
      for (int k = 0; k < 3; k++) {
        try (KafkaProducer<byte[], byte[]> p =
            new KafkaProducer<>(
                kafka.clientProperties(
                    Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, idPrefix + "-" + t + "-" + k)),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
          p.initTransactions();
        }
      }
    }
  }

  private static KafkaConsumer<String, String> committedReader() {
    return new KafkaConsumer<>(
        kafka.clientProperties(
            Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000")),
        new StringDeserializer(),
        new StringDeserializer());
  }

  /** Reads {@code topic}, committed records only, until {@code done} holds of all read so far. */
  private static void awaitOutput(String topic, Predicate<List<KeyValue<String, Long>>> done) {
    try (KafkaConsumer<String, String> c = committedReader()) {
      List<TopicPartition> parts =
          c.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      List<KeyValue<String, Long>> seen = new ArrayList<>();
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (!done.test(seen)) {
        if (System.nanoTime() > deadline) {
          Thread.getAllStackTraces()
              .forEach(
                  (t, stack) -> {
                    if (t.getName().startsWith("koala")) {
                      System.out.println("THREAD " + t.getName() + " " + t.getState());
                      for (StackTraceElement f : stack) {
                        System.out.println("    at " + f);
                      }
                    }
                  });
          throw new AssertionError(
              "timed out after " + WAIT + " reading " + topic + "; latest " + latest(seen));
        }
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
          seen.add(new KeyValue<>(r.key(), Long.parseLong(r.value())));
        }
      }
    }
  }

  /** Every committed record of {@code topic}, read to its end (no transaction may be open). */
  private static List<KeyValue<String, Long>> readAllKeyed(String topic) {
    List<KeyValue<String, Long>> out = new ArrayList<>();
    readAll(topic, r -> out.add(new KeyValue<>(r.key(), Long.parseLong(r.value()))));
    return out;
  }

  private static List<String> readAll(String topic) {
    List<String> out = new ArrayList<>();
    readAll(topic, r -> out.add(r.value()));
    return out;
  }

  private static void readAll(
      String topic, java.util.function.Consumer<ConsumerRecord<String, String>> each) {
    try (KafkaConsumer<String, String> c = committedReader()) {
      List<TopicPartition> parts =
          c.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      System.out.println("reading " + topic + " to " + end);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("timed out reading " + topic + " to " + end);
        }
        c.poll(Duration.ofMillis(100)).forEach(each);
      }
    }
  }

  private static Map<String, Long> latest(List<KeyValue<String, Long>> out) {
    Map<String, Long> m = new TreeMap<>();
    for (KeyValue<String, Long> kv : out) {
      m.merge(kv.key(), kv.value(), Math::max);
    }
    return m;
  }

  /**
   * {@link #assertExactCounts} of {@code topic}, read to its end; on a failure, prints what a
   * second read_committed and a read_uncommitted reader see, per partition (diagnostics).
   */
  private static void assertExactCounts(String topic, int records) {
    try {
      assertExactCounts(readAllKeyed(topic), records);
    } catch (AssertionError e) {
      for (String isolation : List.of("read_committed", "read_uncommitted")) {
        Map<Integer, Integer> perPartition = new TreeMap<>();
        Map<Integer, Long> firstK0 = new TreeMap<>();
        try (KafkaConsumer<String, String> c =
            new KafkaConsumer<>(
                kafka.clientProperties(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation)),
                new StringDeserializer(),
                new StringDeserializer())) {
          List<TopicPartition> parts =
              c.partitionsFor(topic).stream()
                  .map(p -> new TopicPartition(topic, p.partition()))
                  .toList();
          c.assign(parts);
          c.seekToBeginning(parts);
          Map<TopicPartition, Long> end = c.endOffsets(parts);
          long deadline = System.nanoTime() + WAIT.toNanos();
          while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))
              && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
              perPartition.merge(r.partition(), 1, Integer::sum);
              if ("k0".equals(r.key())) {
                firstK0.putIfAbsent(r.partition(), r.offset());
              }
            }
          }
          System.out.println(
              "DIAGNOSTIC "
                  + isolation
                  + " "
                  + topic
                  + " to "
                  + end
                  + ": records per partition "
                  + perPartition
                  + ", first k0 at "
                  + firstK0);
        }
      }
      throw e;
    }
  }

  /** Each key's running counts must be exactly 1..n, n its number of records in [0, records). */
  private static void assertExactCounts(List<KeyValue<String, Long>> out, int records) {
    Map<String, Long> want = expected(records);
    Map<String, List<Long>> seen = new TreeMap<>();
    for (KeyValue<String, Long> kv : out) {
      seen.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
    }
    assertThat(seen.keySet()).isEqualTo(want.keySet());
    want.forEach(
        (key, n) ->
            assertThat(seen.get(key))
                .as("counts of %s", key)
                .containsExactlyInAnyOrderElementsOf(LongStreamRange.of(1, n)));
    assertThat(out).hasSize(records);
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
}
