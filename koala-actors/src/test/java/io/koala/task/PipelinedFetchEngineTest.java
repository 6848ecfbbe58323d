package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.StateMessage;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 20, steps 3 and 4: a burst of moved keys is asked for in several requests at once, each of
 * a size a reply carries whole, and each reply's keys are released at the holder in one message.
 */
class PipelinedFetchEngineTest {
  static final TaskId WORDS0 = taskId("words", 0);
  static final int KEYS = 1_000;
  static final String PAD = "x".repeat(1_000); // about 1 KiB of state per key

  /** A channel id no other channel of the test uses. */
  static final int PEER_CHANNEL = 9_999;

  final FakeServices host0 = new FakeServices();
  final FakeServices host1 = new FakeServices();
  final InMemoryStateStore store0 = new InMemoryStateStore();
  final InMemoryStateStore store1 = new InMemoryStateStore();
  final KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
  FakeServices.Task latest0;
  FakeServices.Task latest1;

  /** Keeps the latest record of each key: a key's state is that record. */
  static Dataflow latest() {
    DataflowBuilder b = Dataflow.builder("latest").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("unused")).partitions(2))
        .keyBy((String w) -> w.substring(0, w.indexOf(':')))
        .reduce("latest", (a, x) -> x)
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  @BeforeEach
  void deploy() {
    ChannelSettings settings = new ChannelSettings(2_000, 8 << 20, 5, 100);
    latest0 = host0.task(latest(), "latest", 0, settings, store0);
    latest1 = host1.task(latest(), "latest", 1, settings, store1);
    latest0.engine().start(0);
    latest1.engine().start(0);
  }

  @AfterEach
  void close() {
    store0.close();
    store1.close();
  }

  @Test
  void aBurstIsFetchedInParallelRequestsAndReleasedOncePerReply() {
    int bucket = Buckets.bucketOf(keys.encode("k0"), 128);
    List<String> movedKeys = new ArrayList<>();
    for (int i = 0; movedKeys.size() < KEYS; i++) {
      if (Buckets.bucketOf(keys.encode("k" + i), 128) == bucket) {
        movedKeys.add("k" + i);
      }
    }
    Object[] records = movedKeys.stream().map(k -> k + ":" + PAD).toArray();
    TaskId owner = bucket < 64 ? latest0.setup().task() : latest1.setup().task();
    FakeServices.Task from = owner.index() == 0 ? latest0 : latest1;
    FakeServices.Task to = owner.index() == 0 ? latest1 : latest0;
    FakeServices toHost = owner.index() == 0 ? host1 : host0;
    InMemoryStateStore holderStore = owner.index() == 0 ? store0 : store1;
    from.engine().onDeliver(new Deliver(from.inputFrom(WORDS0), 0, batch(records)));
    FakeServices fromHost = owner.index() == 0 ? host0 : host1;
    new PeerHandover(fromHost, from, to, bucket, PEER_CHANNEL).moveNow();

    to.engine().onDeliver(new Deliver(to.inputFrom(WORDS0), 0, batch(records)));
    List<StateMessage.Fetch> fetches = sent(toHost, StateMessage.Fetch.class);
    assertThat(fetches).as("several requests at once").hasSizeGreaterThan(1);
    assertThat(fetches.stream().mapToInt(f -> f.keys().size()).sum()).isEqualTo(KEYS);

    List<StateMessage.StateReply> replies = new ArrayList<>();
    try (ReadTxn r = holderStore.beginRead()) {
      for (StateMessage.Fetch f : fetches) {
        replies.add(StateServing.serve(r, f, owner));
      }
    }
    assertThat(replies).allMatch(r -> r.unserved().isEmpty(), "no reply leaves keys out");
    for (StateMessage.StateReply reply : replies) {
      to.engine().onStateReply(reply);
    }
    List<StateMessage.Release> releases = sent(toHost, StateMessage.Release.class);
    assertThat(releases).as("one release per reply").hasSameSizeAs(replies);
    assertThat(releases.stream().mapToInt(r -> r.keys().size()).sum()).isEqualTo(KEYS);
    assertThat(to.engine().metrics().statePlane().releaseMessagesSent()).isEqualTo(releases.size());

    for (StateMessage.Release r : releases) {
      from.engine().onRelease(r);
    }
    try (ReadTxn r = holderStore.beginRead()) {
      assertThat(r.scan(Table.STATE, new byte[0], (k, v) -> true))
          .as("every copy at the holder deleted")
          .isZero();
    }
    assertThat(from.engine().metrics().statePlane().releasesApplied()).isEqualTo(KEYS);
  }

  static <T> List<T> sent(FakeServices host, Class<T> type) {
    return host.sent.stream()
        .map(FakeServices.Sent::message)
        .filter(type::isInstance)
        .map(type::cast)
        .toList();
  }
}
