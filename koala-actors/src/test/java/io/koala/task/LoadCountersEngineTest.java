package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.KeyValue;
import io.koala.job.BucketLoads;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A keyed task's busy time and per-bucket load, on the engine with a fake clock: with an emulated
 * capacity the busy time is what the records cost at it; a bucket's share follows its records; a
 * bucket handed over leaves its old owner's loads and starts at zero at the new one.
 */
class LoadCountersEngineTest {
  static final String HOT = "hot";
  final KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));

  /** A channel id no other channel of the test uses. */
  static final int PEER_CHANNEL = 9_999;

  final FakeServices host0 = new FakeServices();
  final FakeServices host1 = new FakeServices();
  final InMemoryStateStore store0 = new InMemoryStateStore();
  final InMemoryStateStore store1 = new InMemoryStateStore();

  @AfterEach
  void close() {
    store0.close();
    store1.close();
  }

  static Dataflow counting(double capacity) {
    DataflowBuilder b = Dataflow.builder("loads").parallelism(2);
    Stage<KeyValue<String, Long>> count =
        b.source(SourceSpec.collection("words", List.of("unused")).partitions(2))
            .keyBy((String w) -> w)
            .count("count");
    if (capacity > 0) {
      count = count.capacity(capacity);
    }
    count.sink(SinkSpec.collecting("out"));
    return b.build();
  }

  int bucketOf(String word) {
    return Buckets.bucketOf(keys.encode(word), Buckets.DEFAULT_BUCKETS);
  }

  /** 100 records of {@link #HOT} and 100 of other words of count#0, none in HOT's bucket. */
  Object[] skewed() {
    assertThat(bucketOf(HOT)).as("count#0 owns the first half of the buckets").isLessThan(64);
    List<Object> out = new ArrayList<>();
    for (int i = 0; out.size() < 100; i++) {
      String w = "c" + i;
      if (bucketOf(w) < 64 && bucketOf(w) != bucketOf(HOT)) {
        out.add(w);
      }
    }
    for (int i = 0; i < 100; i++) {
      out.add(2 * i + 1, HOT);
    }
    return out.toArray();
  }

  FakeServices.Task started(FakeServices host, int index, double capacity, InMemoryStateStore s) {
    FakeServices.Task t =
        host.task(
            counting(capacity), "count", index, new ChannelSettings(1_000, 1 << 20, 5, 100), s);
    host.nowMillis = 10_000;
    t.engine().start(10_000);
    return t;
  }

  static double sum(double[] values) {
    double s = 0;
    for (double v : values) {
      s += v;
    }
    return s;
  }

  static int indexOf(BucketLoads l, int bucket) {
    for (int i = 0; i < l.size(); i++) {
      if (l.bucket(i) == bucket) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void anEmulatedCapacityIsTheBusyTimeAndABucketsShareFollowsItsRecords() {
    FakeServices.Task count0 = started(host0, 0, 1_000, store0);
    int channel = count0.inputFrom(taskId("words", 0));
    count0.engine().onDeliver(new Deliver(channel, 0, batch(skewed())));
    TaskMetricsSnapshot m = count0.engine().metrics();
    assertThat(m.recordsIn()).isEqualTo(200);
    // 200 records at 1,000 records/s: 200 ms, though the fake clock saw a few microseconds
    assertThat(m.busyNanos()).isEqualTo(200_000_000L);

    host0.nowMillis = 11_000;
    count0.engine().onTick();
    m = count0.engine().metrics();
    assertThat(m.decayedRecordsInPerSecond()).isCloseTo(200, within(1e-9));
    assertThat(m.busyFraction()).isCloseTo(0.2, within(1e-9));
    assertThat(m.decayedRecordsInPerSecond() / m.busyFraction())
        .as("records per busy second: the capacity")
        .isCloseTo(1_000, within(1e-6));
    BucketLoads l = m.bucketLoads();
    assertThat(l.bucketCount()).isEqualTo(Buckets.DEFAULT_BUCKETS);
    assertThat(l.size()).isEqualTo(64);
    int hot = indexOf(l, bucketOf(HOT));
    assertThat(l.recordsPerSecond(hot)).isCloseTo(100, within(1e-9));
    assertThat(l.busyFraction(hot)).isCloseTo(0.1, within(1e-6));
    assertThat(sum(l.recordsPerSecond())).isCloseTo(200, within(1e-9));
    assertThat(sum(l.busyFraction())).isCloseTo(0.2, within(1e-6));

    // the hot bucket moves to count#1: count#0 no longer reports it, count#1 starts it at zero
    FakeServices.Task count1 = started(host1, 1, 1_000, store1);
    new PeerHandover(host0, count0, count1, bucketOf(HOT), PEER_CHANNEL).moveNow();
    assertThat(indexOf(count0.engine().metrics().bucketLoads(), bucketOf(HOT))).isEqualTo(-1);
    BucketLoads at1 = count1.engine().metrics().bucketLoads();
    int moved = indexOf(at1, bucketOf(HOT));
    assertThat(moved).isNotEqualTo(-1);
    assertThat(at1.recordsPerSecond(moved)).isZero();
    assertThat(at1.size()).isEqualTo(65);
  }

  @Test
  void withoutACapacityTheBusyTimeIsTheTimeTaken() {
    FakeServices.Task count0 = started(host0, 0, 0, store0);
    int channel = count0.inputFrom(taskId("words", 0));
    host0.elapse(0);
    count0.engine().onDeliver(new Deliver(channel, 0, batch(skewed())));
    TaskMetricsSnapshot m = count0.engine().metrics();
    assertThat(m.recordsIn()).isEqualTo(200);
    // the fake clock moves 1 µs per reading: a batch takes a few of them
    assertThat(m.busyNanos()).isPositive().isLessThan(1_000_000L);
  }
}
