package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.plan.TaskId;
import io.koala.protocol.BucketMove;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.ForwardedBatch;
import io.koala.protocol.Marker;
import io.koala.protocol.PeerMarker;
import io.koala.protocol.ReconfigurationProtocol;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 step 5, at a sender: when an upstream channel's marker arrives, the records of the
 * handed-over buckets queued before it on that channel are forwarded at once, then the peer marker,
 * while the records of the buckets the sender keeps wait for its capacity.
 */
class EarlyForwardingTest {
  static final TaskId WORDS0 = taskId("words", 0);
  static final TaskId COUNT1 = taskId("count", 1);
  static final int PEER_CHANNEL = 9_999;
  final KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));

  /** One task of capacity 1 record/s: after its first batch, its input stays queued. */
  static Dataflow slowCount() {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(1);
    b.source(SourceSpec.collection("words", List.of("unused")))
        .keyBy((String w) -> w)
        .count("count")
        .capacity(1)
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

  @Test
  void theQueuedRecordsOfHandedOverBucketsAndThePeerMarkerGoAheadOfTheQueue() {
    FakeServices host = new FakeServices();
    try (InMemoryStateStore store = new InMemoryStateStore()) {
      FakeServices.Task t =
          host.task(slowCount(), "count", 0, new ChannelSettings(100, 1 << 20, 5, 100), store);
      t.engine().start(0);
      int in = t.inputFrom(WORDS0);
      String moved1 = wordOfBucket(7, 0);
      String moved2 = wordOfBucket(7, 1);
      String kept = wordOfBucket(8, 0);
      t.engine().onDeliver(new Deliver(in, 0, batch(kept))); // takes the only token

      t.engine()
          .onCommand(
              new EpochMessage.PrepareTarget(
                  1,
                  List.of(new BucketMove(7, 0, 1)),
                  List.of(),
                  List.of(new EpochMessage.Peer(PEER_CHANNEL, COUNT1)),
                  List.of(),
                  List.of(in)));
      t.engine()
          .onCommand(
              new EpochMessage.HandOverBuckets(1, ReconfigurationProtocol.StateMove.ON_ACCESS));
      t.engine().onCredit(new Credit(PEER_CHANNEL, 1_000));
      t.engine().onDeliver(new Deliver(in, 1, batch(moved1, kept, moved2)));
      t.engine().onDeliver(new Deliver(in, 2, batch(kept, moved1)));
      long before = t.engine().metrics().recordsIn();
      List<ChannelItem> peer = peerItems(host);
      assertThat(peer).noneMatch(i -> i instanceof PeerMarker);

      t.engine().onDeliver(new Deliver(in, 3, new Marker(1)));

      peer = peerItems(host);
      List<Object> forwarded = new ArrayList<>();
      int markerAt = -1;
      for (int i = 0; i < peer.size(); i++) {
        if (peer.get(i) instanceof ForwardedBatch f) {
          for (int r = 0; r < f.size(); r++) {
            forwarded.add(f.value(r));
          }
        } else if (peer.get(i) instanceof PeerMarker pm) {
          assertThat(pm.upstream()).isEqualTo(WORDS0);
          markerAt = i;
        }
      }
      assertThat(forwarded).containsExactly(moved1, moved2, moved1);
      assertThat(markerAt).as("the peer marker after the forwarded records").isPositive();
      assertThat(peer.subList(markerAt + 1, peer.size()))
          .noneMatch(i -> i instanceof ForwardedBatch);
      assertThat(t.engine().metrics().recordsIn())
          .as("the sender's own records still wait for its capacity")
          .isEqualTo(before);
    }
  }

  static List<ChannelItem> peerItems(FakeServices host) {
    return host.deliveries(COUNT1).stream().map(Deliver::item).toList();
  }
}
