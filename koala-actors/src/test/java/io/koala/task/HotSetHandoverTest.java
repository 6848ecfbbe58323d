package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.ForwardedBatch;
import io.koala.protocol.Handover;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateServerAddress;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 step 2: a sender ships the keys of a bucket its records touched lately with the bucket's
 * hand-over, and the receiver asks for their state at once, so their next records run without
 * waiting for a fetch.
 */
class HotSetHandoverTest {
  static final TaskId WORDS0 = taskId("words", 0);
  static final TaskId COUNT0 = taskId("count", 0);
  static final TaskId COUNT1 = taskId("count", 1);
  static final int PEER_CHANNEL = 9_999;
  static final int BUCKET = 7; // owned by count#0 of 2 at deployment
  final KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
  final FakeServices host0 = new FakeServices();
  final FakeServices host1 = new FakeServices();
  final InMemoryStateStore store0 = new InMemoryStateStore();
  final InMemoryStateStore store1 = new InMemoryStateStore();

  static Dataflow wordCount() {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("unused")))
        .keyBy((String w) -> w)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  @AfterEach
  void close() {
    store0.close();
    store1.close();
  }

  String wordOfBucket(int skip) {
    for (int i = 0; ; i++) {
      if (Buckets.bucketOf(keys.encode("w" + i), 128) == BUCKET && skip-- == 0) {
        return "w" + i;
      }
    }
  }

  final ChannelSettings settings =
      new ChannelSettings(
          100, 1 << 20, 5, 100, 200, ChannelSettings.DEFAULT_MAX_WAITING_BYTES, 10_000, 1_000);
  final FakeServices.Task count0 = host0.task(wordCount(), "count", 0, settings, store0);
  final FakeServices.Task count1 = host1.task(wordCount(), "count", 1, settings, store1);
  final PeerHandover handover = new PeerHandover(host0, count0, count1, BUCKET, PEER_CHANNEL);
  long peerSeq;

  /** count#0 hands {@link #BUCKET} over to count#1 on a peer channel; returns the hand-over. */
  Handover handOver() {
    handover.prepareSender(List.of(count0.inputFrom(WORDS0)));
    handover.handOver();
    return (Handover) handover.sent().get(0).item();
  }

  /**
   * count#1 takes {@link #BUCKET} over: the hand-over, then the rest of what count#0 sent on the
   * peer channel up to the marker that ends the hand-over; no hot key is asked for before.
   */
  void takeOver() {
    handover.prepareReceiver(List.of(count1.inputFrom(WORDS0)));
    for (Deliver d : handover.sent()) {
      assertThat(fetchesOf(host1)).as("asked for before every hand-over is in").isEmpty();
      count1.engine().onDeliver(new Deliver(PEER_CHANNEL, peerSeq++, d.item()));
    }
  }

  List<StateMessage.Fetch> fetchesOf(FakeServices host) {
    return host.sent.stream()
        .map(FakeServices.Sent::message)
        .filter(m -> m instanceof StateMessage.Fetch)
        .map(StateMessage.Fetch.class::cast)
        .toList();
  }

  @Test
  void theReceiverAsksForTheSendersRecentKeysAtOnceAndTheirRecordsDoNotWait() {
    count0.engine().start(0);
    count1.engine().start(0);
    String cold = wordOfBucket(0);
    String hot1 = wordOfBucket(1);
    String hot2 = wordOfBucket(2);
    int in0 = count0.inputFrom(WORDS0);
    count0.engine().onDeliver(new Deliver(in0, 0, batch(cold)));
    host0.elapse(25_000); // two windows later: the cold word is no longer in the hot set
    count0.engine().onDeliver(new Deliver(in0, 1, batch(hot1, hot2, hot1)));

    Handover handover = handOver();
    List<byte[]> expected =
        List.of(keys.encode(hot1), keys.encode(hot2)).stream()
            .sorted(
                Comparator.<byte[]>comparingInt(k -> k.length)
                    .thenComparing(Arrays::compareUnsigned))
            .toList();
    assertThat(handover.hotKeys()).containsExactlyElementsOf(expected);

    takeOver();

    // before any record of the bucket: one request for both hot keys, to count#0's state server
    List<FakeServices.Sent> fetches =
        host1.sent.stream().filter(s -> s.message() instanceof StateMessage.Fetch).toList();
    assertThat(fetches).hasSize(1);
    assertThat(fetches.get(0).target()).isEqualTo(new StateServerAddress(COUNT0));
    StateMessage.Fetch fetch = (StateMessage.Fetch) fetches.get(0).message();
    assertThat(fetch.keys())
        .extracting(StateMessage.KeyRef::key)
        .containsExactlyElementsOf(expected);

    try (ReadTxn r = store0.beginRead()) {
      count1.engine().onStateReply(StateServing.serve(r, fetch, COUNT0));
    }
    host1.sent.clear();
    // a later record of the key reaches the receiver forwarded by the sender
    count0.engine().onDeliver(new Deliver(in0, 2, batch(hot1)));
    if (host0.takeTimer(TaskTimer.FLUSH) != null) {
      count0.engine().onTimer(TaskTimer.FLUSH);
    }
    List<ChannelItem> forwarded =
        host0.deliveries(COUNT1).stream()
            .map(Deliver::item)
            .filter(i -> i instanceof ForwardedBatch)
            .toList();
    assertThat(forwarded).hasSize(1);
    count1.engine().onDeliver(new Deliver(PEER_CHANNEL, peerSeq++, forwarded.get(0)));
    if (host1.takeTimer(TaskTimer.FLUSH) != null) {
      count1.engine().onTimer(TaskTimer.FLUSH);
    }
    assertThat(host1.records(TaskEngine.CLIENT)).containsExactly(new KeyValue<>(hot1, 3L));
    assertThat(host1.sent).noneMatch(s -> s.message() instanceof StateMessage.Fetch);
  }

  @Test
  void aLargeHotSetIsAskedForAtThePaceOfTheReplies() {
    count0.engine().start(0);
    count1.engine().start(0);
    int words = 1_000;
    Object[] batch = new Object[words];
    for (int i = 0; i < words; i++) {
      batch[i] = wordOfBucket(i);
    }
    count0.engine().onDeliver(new Deliver(count0.inputFrom(WORDS0), 0, batch(batch)));
    Handover handover = handOver();
    assertThat(handover.hotKeys()).hasSize(words);
    takeOver();

    List<StateMessage.Fetch> first = fetchesOf(host1);
    assertThat(first)
        .as("a window of requests, not one per key or all at once")
        .hasSize(HotSet.WINDOW);
    int asked = first.stream().mapToInt(f -> f.keys().size()).sum();
    assertThat(asked).isLessThan(words);

    // each reply run makes room for the next request, until every hot key was asked for once
    Set<String> keysAsked = new HashSet<>();
    ArrayDeque<StateMessage.Fetch> awaited = new ArrayDeque<>(first);
    int requests = 0;
    while (!awaited.isEmpty()) {
      StateMessage.Fetch f = awaited.poll();
      requests++;
      f.keys().forEach(k -> keysAsked.add(Arrays.toString(k.key())));
      host1.sent.clear();
      try (ReadTxn r = store0.beginRead()) {
        count1.engine().onStateReply(StateServing.serve(r, f, COUNT0));
      }
      List<StateMessage.Fetch> next = fetchesOf(host1);
      assertThat(awaited.size() + next.size()).isLessThanOrEqualTo(HotSet.WINDOW);
      awaited.addAll(next);
    }
    assertThat(keysAsked).hasSize(words);
    assertThat(requests).isGreaterThan(HotSet.WINDOW);
  }
}
