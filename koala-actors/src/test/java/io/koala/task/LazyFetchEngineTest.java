package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.StatePlaneStats;
import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.BucketHandover;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateServerAddress;
import io.koala.protocol.Watermark;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lazy state transfer between two real task engines (DESIGN §6.4): after a bucket moves from
 * count#0 to count#1, records of its keys park at count#1 until their state arrives from count#0,
 * in order, while other keys flow; new keys need no fetch; the holder's copy is released after the
 * install; a watermark waits for the parked records before it.
 */
class LazyFetchEngineTest {
  static final TaskId WORDS0 = taskId("words", 0);
  static final TaskId COUNT0 = taskId("count", 0);
  static final TaskId COUNT1 = taskId("count", 1);

  final FakeServices host0 = new FakeServices();
  final FakeServices host1 = new FakeServices();
  final InMemoryStateStore store0 = new InMemoryStateStore();
  final InMemoryStateStore store1 = new InMemoryStateStore();
  FakeServices.Task count0;
  FakeServices.Task count1;
  final KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
  long seq0;
  long seq1;

  static Dataflow wordCount() {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("unused")).partitions(2))
        .keyBy((String w) -> w)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  @BeforeEach
  void deploy() {
    ChannelSettings settings = new ChannelSettings(100, 1 << 20, 5, 100);
    count0 = host0.task(wordCount(), "count", 0, settings, store0);
    count1 = host1.task(wordCount(), "count", 1, settings, store1);
    count0.engine().start(0);
    count1.engine().start(0);
  }

  @AfterEach
  void close() {
    store0.close();
    store1.close();
  }

  int bucketOf(String word) {
    return Buckets.bucketOf(keys.encode(word), 128);
  }

  /** A word whose bucket count#0 owns at deployment, and another of that bucket. */
  String[] twoWordsOfOneBucketOfCount0() {
    for (int i = 0; ; i++) {
      String w = "w" + i;
      if (bucketOf(w) < 64) {
        for (int j = i + 1; ; j++) {
          String v = "w" + j;
          if (bucketOf(v) == bucketOf(w)) {
            return new String[] {w, v};
          }
        }
      }
    }
  }

  String wordOfCount1() {
    for (int i = 0; ; i++) {
      if (bucketOf("z" + i) >= 64) {
        return "z" + i;
      }
    }
  }

  void feed0(Object... words) {
    count0.engine().onDeliver(new Deliver(count0.inputFrom(WORDS0), seq0++, batch(words)));
  }

  void feed1(Object... words) {
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS0), seq1++, batch(words)));
  }

  List<Object> output(FakeServices host, FakeServices.Task task) {
    if (host.takeTimer(TaskTimer.FLUSH) != null) {
      task.engine().onTimer(TaskTimer.FLUSH);
    }
    return host.records(TaskEngine.CLIENT);
  }

  <T> List<T> sentOf(FakeServices host, Class<T> type) {
    return host.sent.stream()
        .map(FakeServices.Sent::message)
        .filter(type::isInstance)
        .map(type::cast)
        .toList();
  }

  StateMessage.StateReply serve(StateMessage.Fetch fetch) {
    try (ReadTxn r = store0.beginRead()) {
      return StateServing.serve(r, fetch, COUNT0);
    }
  }

  @Test
  void recordsOfAMovedKeyWaitForItsStateInOrderWhileOthersFlow() {
    String[] ab = twoWordsOfOneBucketOfCount0();
    String moved = ab[0];
    String fresh = ab[1];
    String local = wordOfCount1();
    int bucket = bucketOf(moved);
    feed0(moved, moved, moved);
    assertThat(output(host0, count0)).containsExactly(kv(moved, 1), kv(moved, 2), kv(moved, 3));

    BucketHandover h = count0.engine().handOver(bucket);
    count1.engine().takeOver(h);

    feed1(moved, local, fresh, moved);
    // the fresh key is not at count#0 (the filter says so): no fetch, counted at once
    assertThat(output(host1, count1)).containsExactly(kv(local, 1), kv(fresh, 1));
    List<StateMessage.Fetch> fetches = sentOf(host1, StateMessage.Fetch.class);
    assertThat(fetches).hasSize(1);
    assertThat(host1.sent.stream().filter(s -> s.message() instanceof StateMessage.Fetch))
        .allMatch(s -> s.target().equals(new StateServerAddress(COUNT0)));
    assertThat(fetches.get(0).keys()).hasSize(1);

    count1.engine().onStateReply(serve(fetches.get(0)));
    assertThat(output(host1, count1))
        .containsExactly(kv(local, 1), kv(fresh, 1), kv(moved, 4), kv(moved, 5));
    List<StateMessage.Release> releases = sentOf(host1, StateMessage.Release.class);
    assertThat(releases).hasSize(1);

    // later records of the key are local now
    host1.sent.clear();
    feed1(moved);
    assertThat(output(host1, count1)).containsExactly(kv(moved, 6));
    assertThat(sentOf(host1, StateMessage.Fetch.class)).isEmpty();

    // the holder deletes its copy on release
    count0.engine().onRelease(releases.get(0));
    try (ReadTxn r = store0.beginRead()) {
      assertThat(
              r.scan(Table.STATE, KeyLayout.keyPrefix(bucket, keys.encode(moved)), (k, v) -> true))
          .isZero();
    }
  }

  @Test
  void aWatermarkWaitsForTheParkedRecordsBeforeIt() {
    String moved = twoWordsOfOneBucketOfCount0()[0];
    feed0(moved);
    count1.engine().takeOver(count0.engine().handOver(bucketOf(moved)));
    // count#1 reads from both source tasks: give the other one a watermark first
    TaskId words1 = taskId("words", 1);
    count1.engine().onDeliver(new Deliver(count1.inputFrom(words1), 0, new Watermark(500)));
    feed1(moved);
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS0), seq1++, new Watermark(2000)));
    TaskId sink = count1.setup().task();
    assertThat(
            host1.sent.stream()
                .filter(s -> s.message() instanceof Deliver d && d.item() instanceof Watermark))
        .as("no watermark forwarded while %s's record waits", sink)
        .isEmpty();
    assertThat(watermarkOfCount1()).isLessThan(500);
    StateMessage.Fetch fetch = sentOf(host1, StateMessage.Fetch.class).get(0);
    count1.engine().onStateReply(serve(fetch));
    assertThat(output(host1, count1)).containsExactly(kv(moved, 2));
    assertThat(watermarkOfCount1()).isEqualTo(500);
  }

  static final TaskId WORDS1 = taskId("words", 1);
  long seqOf1;

  void feedFromWords1(Object... words) {
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS1), seqOf1++, batch(words)));
  }

  /** count#1's event time: the watermark it has applied. */
  long watermarkOfCount1() {
    return count1.engine().metrics().watermark();
  }

  /**
   * Issue 20, F1: a watermark behind a parked record waits, and so does the rest of its channel,
   * but records of other channels that arrive meanwhile run at once (a watermark blocks only its
   * own channel).
   */
  @Test
  void aWatermarkBehindParkedRecordsHoldsBackOnlyItsOwnChannel() {
    String moved = twoWordsOfOneBucketOfCount0()[0];
    String local = wordOfCount1();
    feed0(moved);
    count1.engine().takeOver(count0.engine().handOver(bucketOf(moved)));
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS1), seqOf1++, new Watermark(500)));
    feed1(moved);
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS0), seq1++, new Watermark(2000)));
    feed1(local); // behind the waiting watermark on its channel
    feedFromWords1(local, local); // another channel: flows

    assertThat(output(host1, count1)).containsExactly(kv(local, 1), kv(local, 2));
    assertThat(watermarkOfCount1()).as("the watermark still waits").isLessThan(500);

    count1.engine().onStateReply(serve(sentOf(host1, StateMessage.Fetch.class).get(0)));
    assertThat(output(host1, count1))
        .containsExactly(kv(local, 1), kv(local, 2), kv(moved, 2), kv(local, 3));
    assertThat(watermarkOfCount1()).isEqualTo(500);
  }

  /** A watermark waits only for the records parked before it, not for those parked after it. */
  @Test
  void aWatermarkDoesNotWaitForRecordsParkedAfterIt() {
    String[] ab = twoWordsOfOneBucketOfCount0();
    feed0(ab[0], ab[1]);
    count1.engine().takeOver(count0.engine().handOver(bucketOf(ab[0])));
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS0), seq1++, new Watermark(3000)));
    feed1(ab[0]); // parks
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS1), seqOf1++, new Watermark(2000)));
    feed1(ab[1]); // parks after the watermark
    List<StateMessage.Fetch> fetches = sentOf(host1, StateMessage.Fetch.class);
    assertThat(fetches).hasSize(2);
    assertThat(watermarkOfCount1()).isLessThan(2000);

    count1.engine().onStateReply(serve(fetches.get(0)));
    assertThat(output(host1, count1)).containsExactly(kv(ab[0], 2));
    assertThat(watermarkOfCount1())
        .as("applied while %s, which came after it, is still parked", ab[1])
        .isEqualTo(2000);

    count1.engine().onStateReply(serve(fetches.get(1)));
    assertThat(output(host1, count1)).containsExactly(kv(ab[0], 2), kv(ab[1], 2));
  }

  /** A batch's latency runs until its last record ran, waits for its state included. */
  @Test
  void aBatchThatWaitsForStateCountsTheWaitInItsLatency() {
    String moved = twoWordsOfOneBucketOfCount0()[0];
    feed0(moved);
    count1.engine().takeOver(count0.engine().handOver(bucketOf(moved)));
    long before = count1.engine().metrics().batchLatency().count();
    feed1(moved, wordOfCount1());
    StateMessage.Fetch fetch = sentOf(host1, StateMessage.Fetch.class).get(0);
    assertThat(count1.engine().metrics().batchLatency().count())
        .as("no latency while the batch waits")
        .isEqualTo(before);
    host1.elapse(50);
    count1.engine().onStateReply(serve(fetch));
    assertThat(output(host1, count1)).contains(kv(moved, 2));
    var latency = count1.engine().metrics().batchLatency();
    assertThat(latency.count()).isEqualTo(before + 1);
    assertThat(latency.max()).as("ns").isGreaterThanOrEqualTo(50_000_000L);
    assertThat(count1.engine().metrics().batches()).isEqualTo(1);
  }

  /**
   * Step 0 of the non-disruptive issue: the wait of a watermark behind a parked record counts as a
   * parked-gate stall, the fetch's round trip is recorded for its holder, and the release is
   * counted where it is sent and where it is applied.
   */
  @Test
  void aGatedWaitTheFetchRoundTripAndTheReleasesAreMeasured() {
    String moved = twoWordsOfOneBucketOfCount0()[0];
    feed0(moved);
    count1.engine().takeOver(count0.engine().handOver(bucketOf(moved)));
    count1
        .engine()
        .onDeliver(new Deliver(count1.inputFrom(taskId("words", 1)), 0, new Watermark(500)));
    feed1(moved);
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS0), seq1++, new Watermark(2000)));
    StateMessage.Fetch fetch = sentOf(host1, StateMessage.Fetch.class).get(0);
    host1.elapse(40);
    count1.engine().onStateReply(serve(fetch));

    StatePlaneStats sp = count1.engine().metrics().statePlane();
    assertThat(sp.stallNanos(StatePlaneStats.Stall.PARKED_GATE))
        .as("the watermark waited 40 ms for the parked record (each clock reading adds 1 µs)")
        .isBetween(40_000_000L, 41_000_000L);
    assertThat(sp.stallNanos(StatePlaneStats.Stall.THROTTLE)).isZero();
    assertThat(sp.fetchRoundTrips().keySet()).containsExactly(0);
    assertThat(sp.fetchRoundTrips(0).count()).isEqualTo(1);
    assertThat(sp.fetchRoundTrips(0).max()).isBetween(40_000_000L, 41_000_000L);
    assertThat(sp.releasesSent()).isEqualTo(1);

    host0.elapse(3);
    for (StateMessage.Release r : sentOf(host1, StateMessage.Release.class)) {
      count0.engine().onRelease(r);
    }
    StatePlaneStats holder = count0.engine().metrics().statePlane();
    assertThat(holder.releasesApplied()).isEqualTo(1);
  }

  @Test
  void aReleaseOfAnOlderGenerationKeepsTheCopy() {
    String moved = twoWordsOfOneBucketOfCount0()[0];
    int bucket = bucketOf(moved);
    feed0(moved);
    count1.engine().takeOver(count0.engine().handOver(bucket));
    feed1(moved);
    StateMessage.Fetch fetch = sentOf(host1, StateMessage.Fetch.class).get(0);
    StateMessage.StateReply reply = serve(fetch);
    // before the release arrives, the bucket comes back to count#0 and it writes the key again
    count1.engine().onStateReply(reply);
    StateMessage.Release release = sentOf(host1, StateMessage.Release.class).get(0);
    count0.engine().takeOver(count1.engine().handOver(bucket));
    count0.engine().onRelease(release);
    try (ReadTxn r = store0.beginRead()) {
      assertThat(
              r.scan(Table.STATE, KeyLayout.keyPrefix(bucket, keys.encode(moved)), (k, v) -> true))
          .as("K5: the copy of a newer generation stays")
          .isPositive();
    }
  }

  static KeyValue<String, Long> kv(String k, long v) {
    return new KeyValue<>(k, v);
  }
}
