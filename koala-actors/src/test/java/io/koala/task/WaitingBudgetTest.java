package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.StatePlaneStats.Stall;
import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.Marker;
import io.koala.protocol.StateMessage;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The budget of waiting records (DESIGN §4.2, D5), between two real task engines: count#0 hands a
 * bucket over to count#1 (issue 20 step 6). At count#1, records parked for their state and records
 * held for count#0's peer marker count together against {@link ChannelSettings#maxWaitingBytes}: at
 * the budget, record batches from direct upstream channels wait (their credit with them), while
 * what comes on the peer channel — forwarded records, the peer marker — and state replies, which
 * let waiting records run, are taken at once; once under the budget, upstream records flow again.
 */
class WaitingBudgetTest {
  static final TaskId WORDS0 = taskId("words", 0);
  static final TaskId WORDS1 = taskId("words", 1);
  static final TaskId COUNT0 = taskId("count", 0);
  static final TaskId COUNT1 = taskId("count", 1);
  static final int PEER = 9_999;

  final KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
  final FakeServices host0 = new FakeServices();
  final FakeServices host1 = new FakeServices();
  final InMemoryStateStore store0 = new InMemoryStateStore();
  final InMemoryStateStore store1 = new InMemoryStateStore();
  FakeServices.Task count0;
  FakeServices.Task count1;
  long seq0;
  long seq1;
  long seq1From1;
  PeerHandover handover;

  // all of bucket b, which count#0 owns and hands over; the state of `parked` is at count#0
  final int b = 5;
  final String parked = wordOfBucket(b, 0);
  final String held1 = wordOfBucket(b, 1);
  final String held2 = wordOfBucket(b, 2);
  final String forwarded = wordOfBucket(b, 3);
  // of a bucket count#1 owns from the start
  final String local = wordOfBucket(100, 0);

  static Dataflow wordCount() {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("unused")).partitions(2))
        .keyBy((String w) -> w)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  String wordOfBucket(int bucket, int skip) {
    for (int i = 0; ; i++) {
      if (Buckets.bucketOf(keys.encode("w" + i), 128) == bucket && skip-- == 0) {
        return "w" + i;
      }
    }
  }

  @AfterEach
  void close() {
    store0.close();
    store1.close();
  }

  /**
   * Deploys both tasks with a budget of {@code budget} bytes, gives count#0 the state of {@code
   * parked}, and runs the reconfiguration up to the routing switch of words#0: bucket b is
   * count#1's now, count#1 awaits the markers of {@code markersAwaited}.
   */
  void handOver(long budget, List<TaskId> markersAwaited) {
    ChannelSettings settings = new ChannelSettings(100, 1 << 20, 5, 100, 200, budget);
    count0 = host0.task(wordCount(), "count", 0, settings, store0);
    count1 = host1.task(wordCount(), "count", 1, settings, store1);
    count0.engine().start(0);
    count1.engine().start(0);
    feed0(parked);
    assertThat(output(host0, count0)).containsExactly(kv(parked, 1));

    List<Integer> awaited = new ArrayList<>();
    for (TaskId upstream : markersAwaited) {
      awaited.add(count1.inputFrom(upstream));
    }
    handover = new PeerHandover(host0, count0, count1, b, PEER);
    handover.prepareSender(List.of(count0.inputFrom(WORDS0)));
    handover.prepareReceiver(awaited);
    handover.handOver();
    relay(); // the hand-over and its marker
    // words#0 switched: its marker comes first on its channel to count#1, then its new records
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS0), seq1++, new Marker(1)));
  }

  @Test
  void parkedAndHeldRecordsTogetherStopUpstreamRecordsButNotThePeerChannel() {
    // one parked record and two held ones reach the budget; neither kind alone would
    long budget =
        Parking.waitingBytes(parked) + Parking.waitingBytes(held1) + Parking.waitingBytes(held2);
    handOver(budget, List.of(WORDS0));

    feed0(parked); // count#0 forwards it; count#1 parks it and fetches its state from count#0
    relay();
    assertThat(count1.engine().metrics().reconfiguration().parkedRecords()).isEqualTo(1);
    feed1(held1, held2); // direct from words#0: held until count#0's peer marker
    assertThat(count1.engine().metrics().reconfiguration().recordsHeld()).isEqualTo(2);
    assertThat(count1.engine().metrics().reconfiguration().waitingBytes()).isEqualTo(budget);

    feed1(local); // at the budget: waits, and so does its credit (returned when it is consumed)
    assertThat(output(host1, count1)).isEmpty();

    feed0(forwarded); // the peer channel still flows: forwarded records run
    relay();
    assertThat(output(host1, count1)).containsExactly(kv(forwarded, 1));
    assertThat(count1.engine().metrics().statePlane().stallNanos(Stall.HELD_LIMIT))
        .as("mostly held records fill the budget")
        .isPositive();

    // words#0's marker reaches count#0, whose peer marker releases the held records: under the
    // budget again, the waiting upstream batch runs
    count0.engine().onDeliver(new Deliver(count0.inputFrom(WORDS0), seq0++, new Marker(1)));
    relay();
    assertThat(output(host1, count1))
        .containsExactly(kv(forwarded, 1), kv(held1, 1), kv(held2, 1), kv(local, 1));
    assertThat(count1.engine().metrics().reconfiguration().waitingBytes())
        .isEqualTo(Parking.waitingBytes(parked));

    // the state reply lets the parked record run
    count1.engine().onStateReply(serve(sentOf(host1, StateMessage.Fetch.class).get(0)));
    assertThat(output(host1, count1)).contains(kv(parked, 2));
    assertThat(count1.engine().metrics().reconfiguration().waitingBytes()).isZero();
    assertThat(host1.failures).isEmpty();
  }

  @Test
  void parkedRecordsAloneOverTheBudgetStopUpstreamRecordsUntilTheirStateArrives() {
    handOver(Parking.waitingBytes(parked), List.of(WORDS0));
    feed0(parked);
    relay();

    feed1(local);
    assertThat(output(host1, count1)).isEmpty();
    count1.engine().onStateReply(serve(sentOf(host1, StateMessage.Fetch.class).get(0)));

    assertThat(output(host1, count1)).containsExactly(kv(parked, 2), kv(local, 1));
    assertThat(count1.engine().metrics().statePlane().stallNanos(Stall.PARKED_LIMIT)).isPositive();
    assertThat(count1.engine().metrics().statePlane().stallNanos(Stall.HELD_LIMIT)).isZero();
  }

  /**
   * Held records do not stop a channel whose marker the task still awaits: what is queued before
   * that marker holds nothing back, and a sender's peer marker may wait for the marker to get
   * through (a task that sends and receives at once could otherwise wait for itself).
   */
  @Test
  void heldRecordsDoNotStopAChannelWhoseMarkerIsStillAwaited() {
    handOver(Parking.waitingBytes(held1), List.of(WORDS0, WORDS1));
    feed1(held1); // held: the budget is reached

    feed1(local); // words#0 switched: its records wait
    feedFromWords1(local); // words#1 has not: its records still run
    assertThat(output(host1, count1)).containsExactly(kv(local, 1));

    count0.engine().onDeliver(new Deliver(count0.inputFrom(WORDS0), seq0++, new Marker(1)));
    relay();
    assertThat(output(host1, count1)).containsExactly(kv(local, 1), kv(held1, 1), kv(local, 2));
  }

  // ---------------------------------------------------------------- driving

  void feed0(Object... words) {
    count0.engine().onDeliver(new Deliver(count0.inputFrom(WORDS0), seq0++, batch(words)));
    if (host0.takeTimer(TaskTimer.FLUSH) != null) {
      count0.engine().onTimer(TaskTimer.FLUSH); // forwarded records go out
    }
  }

  void feed1(Object... words) {
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS0), seq1++, batch(words)));
  }

  void feedFromWords1(Object... words) {
    count1.engine().onDeliver(new Deliver(count1.inputFrom(WORDS1), seq1From1++, batch(words)));
  }

  /** Passes on to count#1 what count#0 sent on their peer channel since the last call. */
  void relay() {
    handover.relay();
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

  static KeyValue<String, Long> kv(String k, long v) {
    return new KeyValue<>(k, v);
  }
}
