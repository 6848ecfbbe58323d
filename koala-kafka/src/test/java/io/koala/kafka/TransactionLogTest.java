package io.koala.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/**
 * The pure bookkeeping of the exactly-once Kafka sink: which producer holds which interval, what
 * the log keeps, and its encoded form. A seeded random run against a model of Kafka transactions
 * checks that every record is committed exactly once and in order.
 */
class TransactionLogTest {

  private static WalRecord record(String value) {
    return new WalRecord("out", -1, -1, null, value.getBytes(StandardCharsets.UTF_8), List.of());
  }

  private static String text(WalRecord r) {
    return new String(r.value(), StandardCharsets.UTF_8);
  }

  @Test
  void anIntervalGetsAProducerLazilyAndFreesItOnCommit() {
    TransactionLog log = new TransactionLog(2, 0);
    assertThat(log.assignFree()).as("nothing to assign without records").isNull();
    assertThat(log.prepare(1)).as("an empty interval makes no transaction").isNull();
    assertThat(log.append(record("a"))).isEqualTo(TransactionLog.NONE);
    TransactionLog.Assignment a = log.assignFree();
    assertThat(a.checkpointId()).isEqualTo(TransactionLog.CURRENT);
    assertThat(a.records()).extracting(TransactionLogTest::text).containsExactly("a");
    assertThat(log.append(record("b"))).isEqualTo(a.producer()); // sent at once now
    TransactionLog.Pending p = log.prepare(2);
    assertThat(p.checkpointId()).isEqualTo(2);
    assertThat(p.producer()).isEqualTo(a.producer());
    assertThat(p.records()).extracting(TransactionLogTest::text).containsExactly("a", "b");
    assertThat(log.freeCount()).isEqualTo(1);
    assertThat(log.committable(1)).isEmpty();
    assertThat(log.committable(5)).containsExactly(p);
    log.committed(2);
    assertThat(log.freeCount()).isEqualTo(2);
    assertThat(log.pendingCount()).isZero();
    assertThat(log.walBytes()).isZero();
  }

  @Test
  void withEveryProducerPendingTheLogBuffersAndTheOldestIntervalGetsTheFirstFreeProducer() {
    TransactionLog log = new TransactionLog(1, 0);
    log.append(record("a"));
    log.assignFree();
    log.prepare(1); // producer 0 pending for 1
    assertThat(log.takesRecords()).isFalse(); // backpressure
    log.append(record("b")); // a record that still arrives waits in the log
    assertThat(log.assignFree()).isNull();
    TransactionLog.Pending two = log.prepare(2);
    assertThat(two.producer()).isEqualTo(TransactionLog.NONE);
    log.append(record("c"));
    log.committed(1);
    assertThat(log.takesRecords()).isTrue();
    TransactionLog.Assignment next = log.assignFree();
    assertThat(next.checkpointId()).as("the pending interval first").isEqualTo(2);
    assertThat(next.records()).extracting(TransactionLogTest::text).containsExactly("b");
    assertThat(log.pending(2).producer()).isEqualTo(0);
    assertThat(log.assignFree()).as("the current interval waits").isNull();
    log.committed(2);
    TransactionLog.Assignment current = log.assignFree();
    assertThat(current.checkpointId()).isEqualTo(TransactionLog.CURRENT);
    assertThat(current.records()).extracting(TransactionLogTest::text).containsExactly("c");
  }

  @Test
  void checkpointsArePreparedAndCommittedInOrder() {
    TransactionLog log = new TransactionLog(3, 4);
    assertThatThrownBy(() -> log.prepare(4)).hasMessageContaining("after checkpoint 4");
    log.append(record("a"));
    log.prepare(5);
    log.append(record("b"));
    log.prepare(6);
    assertThatThrownBy(() -> log.committed(6)).hasMessageContaining("before 5");
    assertThatThrownBy(() -> log.committed(9)).hasMessageContaining("not pending");
  }

  @Test
  void theEncodedLogKeepsEveryPendingIntervalWithItsRecordsAndTheRun() {
    TransactionLog log = new TransactionLog(2, 0);
    ProducerRecord<byte[], byte[]> full =
        new ProducerRecord<>(
            "other",
            3,
            123L,
            new byte[] {1},
            null,
            List.of(new RecordHeader("h", new byte[] {2}), new RecordHeader("n", null)));
    log.append(WalRecord.of(full));
    log.assignFree();
    log.prepare(7);
    log.append(record("x"));
    log.prepare(8);
    log.append(record("not prepared"));
    UUID run = UUID.randomUUID();
    TransactionLog.Saved saved = TransactionLog.decode(log.encode(run, 4, 2));
    assertThat(saved.run()).isEqualTo(run);
    assertThat(saved.parallelism()).isEqualTo(4);
    assertThat(saved.poolSize()).isEqualTo(2);
    assertThat(saved.pending())
        .extracting(TransactionLog.Pending::checkpointId)
        .containsExactly(7L, 8L);
    WalRecord back = saved.pending().get(0).records().get(0);
    ProducerRecord<byte[], byte[]> again = back.toProducerRecord();
    assertThat(again.topic()).isEqualTo("other");
    assertThat(again.partition()).isEqualTo(3);
    assertThat(again.timestamp()).isEqualTo(123L);
    assertThat(again.key()).containsExactly(1);
    assertThat(again.value()).isNull();
    assertThat(again.headers().toArray()).hasSize(2);
    assertThat(again.headers().lastHeader("h").value()).containsExactly(2);
    assertThat(again.headers().lastHeader("n").value()).isNull();
    ProducerRecord<byte[], byte[]> plain =
        saved.pending().get(1).records().get(0).toProducerRecord();
    assertThat(plain.partition()).isNull();
    assertThat(plain.timestamp()).isNull();
    assertThat(saved.pending()).allMatch(p -> p.producer() == TransactionLog.NONE);

    byte[] bytes = log.encode(run, 4, 2);
    bytes[3] = 9;
    assertThatThrownBy(() -> TransactionLog.decode(bytes)).hasMessageContaining("format");
    byte[] cut = java.util.Arrays.copyOf(log.encode(run, 4, 2), 30);
    assertThatThrownBy(() -> TransactionLog.decode(cut)).hasMessageContaining("truncated");
  }

  /**
   * A model of the writer over Kafka: each producer has an open transaction (records sent in it); a
   * commit appends them to the output. Random writes, barriers and (possibly skipped) commit
   * notifications; at the end everything is committed: the output is the input, in order.
   */
  @Test
  void aRandomRunCommitsEveryRecordOnceInOrder() {
    long seed = System.nanoTime();
    System.out.println("TransactionLogTest seed " + seed);
    Random rnd = new Random(seed);
    for (int run = 0; run < 200; run++) {
      int pool = 1 + rnd.nextInt(3);
      TransactionLog log = new TransactionLog(pool, 0);
      Map<Integer, List<String>> open = new HashMap<>();
      List<String> output = new ArrayList<>();
      List<String> input = new ArrayList<>();
      long checkpoint = 0;
      List<Long> prepared = new ArrayList<>();
      for (int step = 0; step < 300; step++) {
        int op = rnd.nextInt(10);
        if (op < 6) {
          String v = "r" + input.size();
          input.add(v);
          int p = log.append(record(v));
          if (p != TransactionLog.NONE) {
            open.get(p).add(v);
          }
        } else if (op < 8) {
          checkpoint++;
          if (log.prepare(checkpoint) != null) {
            prepared.add(checkpoint);
          }
        } else if (!prepared.isEmpty()) {
          long upTo = prepared.get(rnd.nextInt(prepared.size()));
          commit(log, open, output, upTo, seed);
        }
        assign(log, open, seed);
      }
      checkpoint++;
      log.prepare(checkpoint);
      commit(log, open, output, checkpoint, seed);
      assertThat(output).as("seed %d, run %d", seed, run).isEqualTo(input);
      assertThat(log.walBytes()).isZero();
      assertThat(log.freeCount()).isEqualTo(pool);
    }
  }

  private static void assign(TransactionLog log, Map<Integer, List<String>> open, long seed) {
    TransactionLog.Assignment a;
    while ((a = log.assignFree()) != null) {
      assertThat(open)
          .as("seed %d: producer %d given twice", seed, a.producer())
          .doesNotContainKey(a.producer());
      List<String> txn = new ArrayList<>();
      a.records().forEach(r -> txn.add(text(r)));
      open.put(a.producer(), txn);
    }
  }

  private static void commit(
      TransactionLog log,
      Map<Integer, List<String>> open,
      List<String> output,
      long upTo,
      long seed) {
    for (TransactionLog.Pending p : log.committable(upTo)) {
      if (p.producer() == TransactionLog.NONE) {
        assign(log, open, seed);
        p = log.pending(p.checkpointId());
      }
      assertThat(p.producer()).as("seed %d", seed).isNotEqualTo(TransactionLog.NONE);
      List<String> txn = open.remove(p.producer());
      assertThat(txn)
          .as("seed %d: the transaction holds the logged interval", seed)
          .isEqualTo(p.records().stream().map(TransactionLogTest::text).toList());
      output.addAll(txn);
      log.committed(p.checkpointId());
    }
    assign(log, open, seed);
  }
}
