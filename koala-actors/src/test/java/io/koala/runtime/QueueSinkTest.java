package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.QueueSink;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.job.StatePlaneStats.Stall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** {@link SinkSpec#queue}: a full queue holds the job back, and every record comes out once. */
class QueueSinkTest {
  private static final int RECORDS = 300_000;
  private static final int KEYS = 1_000;

  @Test
  void aFullQueueBackpressuresTheJobAndEveryRecordComesOutOnce() throws Exception {
    List<String> words = new ArrayList<>(RECORDS);
    Map<String, Long> expected = new HashMap<>();
    for (int i = 0; i < RECORDS; i++) {
      String w = "k" + (i * 7919L % KEYS);
      words.add(w);
      expected.merge(w, 1L, Long::sum);
    }
    QueueSink<KeyValue<String, Long>> out = SinkSpec.queue("out", 100);
    DataflowBuilder b = Dataflow.builder("queue-sink").parallelism(2);
    b.source(SourceSpec.collection("words", words).partitions(2))
        .keyBy(s -> s)
        .count("count")
        .sink(out);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (out.size() < out.capacity()) { // nobody takes: the queue fills up
        assertThat(System.nanoTime()).as("the queue never filled").isLessThan(deadline);
        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
      }
      // The job now reads no further than its channels' credit windows (2 x 2 channels of 8
      // batches of at most 1,024 records) and the sink's batch beyond the queue allow, whenever
      // this runs: far from the whole input.
      assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
      long read = job.metrics().recordsIn("words");
      assertThat(read).isGreaterThanOrEqualTo(out.capacity()).isLessThan(RECORDS / 2);
      // the stall is counted while it lasts, not only once somebody takes (issue 48)
      while (job.metrics().stalls("count").get(Stall.SINK_BUSY) < 200_000_000L) {
        assertThat(System.nanoTime()).as("the sink's busy time never grew").isLessThan(deadline);
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      }
      assertThat(out.size()).as("nobody took a record meanwhile").isEqualTo(out.capacity());

      Map<String, List<Long>> seen = new HashMap<>();
      int taken = 0;
      while (taken < RECORDS) {
        KeyValue<String, Long> kv = out.poll(Duration.ofSeconds(30));
        assertThat(kv).as("record %d of %d", taken, RECORDS).isNotNull();
        seen.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
        taken++;
      }
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      assertThat(out.size()).isZero();
      assertThat(job.metrics().stalls("count").get(Stall.SINK_BUSY)).isPositive();
      // each key's running counts 1..n, each once and in order (one task writes a key)
      assertThat(seen.keySet()).isEqualTo(expected.keySet());
      seen.forEach(
          (key, counts) -> {
            List<Long> oneToN = new ArrayList<>();
            for (long c = 1; c <= expected.get(key); c++) {
              oneToN.add(c);
            }
            assertThat(counts).as(key).isEqualTo(oneToN);
          });
    }
  }
}
