package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.KoalaException;
import io.koala.connector.IngestSource;
import io.koala.connector.QueueSink;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.coordinator.PlannedCrash;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.testing.TaskCrashes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Push ingestion ({@link Ingest}): records a service puts in count exactly once through crashes and
 * a live rescale, a slow sink holds the service's offers back within the source's capacity, and a
 * Pekko Streams source feeds a job through {@link Ingest#sink()}.
 */
class IngestTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int KEYS = 500;

  /** The key of record {@code i}: what the service puts. */
  private static long key(long i) {
    return i * 7919 % KEYS;
  }

  /** ingest "events" → keyBy → running count "count" → {@code sink}. */
  private static Dataflow counting(IngestSource<Long> events, SinkSpec<KeyValue<Long, Long>> sink) {
    DataflowBuilder b = Dataflow.builder("ingest").parallelism(2);
    b.source(events).keyBy(x -> x).count("count").sink(sink);
    return b.build();
  }

  /** Each key's counts are 1..n exactly once, n = its records among {@code 0..records-1}. */
  private static void assertExactCounts(List<KeyValue<Long, Long>> out, int records) {
    Map<Long, Long> expected = new HashMap<>();
    for (long i = 0; i < records; i++) {
      expected.merge(key(i), 1L, Long::sum);
    }
    Map<Long, List<Long>> seen = new HashMap<>();
    for (KeyValue<Long, Long> kv : out) {
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
              .as("counts of key %d", key)
              .containsExactlyInAnyOrderElementsOf(want);
        });
    assertThat(out).hasSize(records);
  }

  @Test
  void everyRecordPutCountsOnceThroughTwoCrashesAndALiveRescale(@TempDir Path dir)
      throws Exception {
    int records = 40_000;
    IngestSource<Long> events = SourceSpec.ingest("events", 2_000);
    KoalaConfig config = CheckpointRecoveryTest.config(dir, Duration.ofMillis(100));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(counting(events, SinkSpec.collecting("counts")));
      TaskCrashes.plan(job, 7, List.of(new PlannedCrash.At(700), new PlannedCrash.InCheckpoint(1)));
      Ingest<Long> ingest = job.ingest(events);
      assertThat(ingest.started().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("a new job has none of the input")
          .isZero();
      CompletionStage<ReconfigurationReport> rescale = null;
      long t0 = System.nanoTime();
      for (int i = 0; i < records; i++) {
        // about 20,000 records a second: the input outlasts the crashes and the rescale
        long due = t0 + i * 50_000L;
        while (System.nanoTime() < due) {
          LockSupport.parkNanos(due - System.nanoTime());
        }
        assertThat(
                ingest.offer(key(i)).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS))
            .isEqualTo(i + 1);
        if (i == records / 2) {
          rescale = job.rescale("count", 3);
        }
      }
      ingest.complete();
      assertThat(rescale.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS).tasksAfter())
          .containsExactly(0, 1, 2);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(TaskCrashes.injected(job)).hasSize(2);
      assertThat(job.metrics().rollbacks()).isEqualTo(2);
      assertExactCounts(job.collected("counts"), records);
      assertThat(ingest.last()).isEqualTo(records);
      assertThatThrownBy(() -> ingest.put(0L))
          .isInstanceOf(KoalaException.class)
          .hasMessageContaining("'events'")
          .hasMessageContaining("FINISHED");
    }
  }

  @Test
  void aServiceThatReplaysItsLogFromStartedAfterARestartCountsEachRecordOnce(@TempDir Path dir)
      throws Exception {
    int records = 30_000;
    IngestSource<Long> events = SourceSpec.ingest("events", 50_000);
    KoalaConfig config = // checkpoints by hand; the service goes down without stopping the job
        CheckpointRecoveryTest.abruptClose(CheckpointRecoveryTest.config(dir, Duration.ofHours(1)));
    List<KeyValue<Long, Long>> out = new ArrayList<>();
    long checkpointed;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(counting(events, SinkSpec.collecting("counts")));
      Ingest<Long> ingest = job.ingest(events);
      for (int i = 0; i < records / 3; i++) {
        ingest.put(key(i));
      }
      awaitRead(job, records / 3);
      CheckpointRecoveryTest.checkpoint(job);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (ingest.committed() < records / 3) { // the tasks report the completed checkpoint
        assertThat(System.nanoTime()).as("committed %d", ingest.committed()).isLessThan(deadline);
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
      checkpointed = ingest.committed();
      for (int i = records / 3; i < 2 * records / 3; i++) {
        ingest.put(key(i)); // accepted, maybe read, in no checkpoint: lost with the service
      }
      out.addAll(job.collected("counts")); // what the committed checkpoint covers
    } // the service goes down with the job running
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(counting(events, SinkSpec.collecting("counts")));
      Ingest<Long> ingest = job.ingest(events);
      long from = ingest.started().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(from).as("where the restored job is").isEqualTo(checkpointed);
      for (long i = from; i < records; i++) { // the service's own log, from record from + 1
        assertThat(ingest.put(key(i))).isEqualTo(i + 1);
      }
      ingest.complete();
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      out.addAll(job.collected("counts"));
    }
    assertExactCounts(out, records);
  }

  private static void awaitRead(JobHandle job, long records) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (job.metrics().recordsIn("count") < records) {
      assertThat(System.nanoTime()).as("records read").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
  }

  @Test
  void aSlowSinkHoldsTheServiceBackWithinTheSourcesCapacity() throws Exception {
    int records = 200_000;
    int capacity = 1_000;
    IngestSource<Long> events = SourceSpec.<Long>ingest("events", capacity).window(100);
    QueueSink<KeyValue<Long, Long>> out = SinkSpec.queue("out", 100);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(counting(events, out));
      Ingest<Long> ingest = job.ingest(events);
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread producer =
          new Thread(
              () -> {
                try {
                  for (long i = 0; i < records; i++) {
                    ingest.put(key(i));
                  }
                  ingest.complete();
                } catch (Throwable t) {
                  failed.set(t);
                }
              },
              "producer");
      producer.start();
      // nobody takes from the queue: the job stops reading, and then the service's puts stop
      long deadline = System.nanoTime() + WAIT.toNanos();
      long last = -1;
      while (true) {
        assertThat(System.nanoTime()).as("the puts never stopped").isLessThan(deadline);
        LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        long now = ingest.last();
        if (now == last && out.size() == out.capacity()) {
          break;
        }
        last = now;
      }
      assertThat(producer.isAlive()).isTrue();
      assertThat(ingest.last() - ingest.committed()).isLessThanOrEqualTo(capacity);
      // what the job took beyond the handle is bounded by its windows, channels and the queue
      assertThat(ingest.last()).isLessThan(records / 4);

      List<KeyValue<Long, Long>> taken = new ArrayList<>();
      while (taken.size() < records) {
        KeyValue<Long, Long> kv = out.poll(WAIT);
        assertThat(kv).as("record %d of %d", taken.size(), records).isNotNull();
        taken.add(kv);
      }
      producer.join(WAIT.toMillis());
      assertThat(failed.get()).isNull();
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(taken, records);
    }
  }

  @Test
  void aPekkoStreamFeedsTheJobAndItsEndEndsTheInput() throws Exception {
    int records = 20_000;
    IngestSource<Long> events = SourceSpec.ingest("events", 500);
    ActorSystem<Void> streams = ActorSystem.create(Behaviors.empty(), "streams");
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(counting(events, SinkSpec.collecting("counts")));
      Source.range(0, records - 1)
          .map(IngestTest::key)
          .runWith(job.ingest(events).sink(), streams)
          .toCompletableFuture()
          .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertExactCounts(job.collected("counts"), records);
    } finally {
      streams.terminate();
    }
  }

  @Test
  void aSourceTheJobDoesNotHaveFailsTheOffersWithItsName() throws Exception {
    IngestSource<Long> events = SourceSpec.ingest("events", 10);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(counting(events, SinkSpec.collecting("counts")));
      Ingest<Long> other = job.ingest(SourceSpec.ingest("orders", 10));
      assertThatThrownBy(
              () -> other.offer(1L).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(KoalaException.class)
          .hasMessageContaining("'orders'")
          .hasMessageContaining("no ingest source named 'orders'");
      job.cancel();
    }
  }

  record Unregistered(long id) {}

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void aRecordTheJobCannotSendIsRefusedWithTheClassToRegister() {
    IngestSource<Long> events = SourceSpec.ingest("events", 10);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(counting(events, SinkSpec.collecting("counts")));
      Ingest<Object> raw = (Ingest) job.ingest(events);
      assertThatThrownBy(() -> raw.offer(new Unregistered(1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'events'")
          .hasMessageContaining(
              "DataflowBuilder.registerTypes(io.koala.runtime.IngestTest.Unregistered.class)");
      assertThatThrownBy(() -> raw.tryOffer(null)).isInstanceOf(NullPointerException.class);
      // issue 48: a record over the limit was taken, and the job failed on it
      assertThatThrownBy(() -> raw.put(new byte[700_000]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'events'")
          .hasMessageContaining("a [B of about 700,004 bytes; records are limited to 524,288");
      assertThat(raw.last()).as("nothing was taken").isZero();
      assertThat(raw.offer(5L).toCompletableFuture().join())
          .as("the next record is the first taken")
          .isEqualTo(1);
      assertThat(job.status().isTerminal()).isFalse();
      job.cancel();
    }
  }
}
