package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.ForwardedBatch;
import io.koala.protocol.Marker;
import io.koala.protocol.PeerMarker;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A processing-time timer that a record registers asks the task's host for a wake-up whichever way
 * the record ran (issue 41): straight from upstream, forwarded by the sender of its bucket, or held
 * for the sender's peer marker. The last two ran without asking, so their timers waited for the
 * next batch from upstream, if one came.
 */
class ProcessingTimerWakeUpTest {
  static final TaskId WORDS0 = taskId("words", 0);
  static final TaskId COUNT1 = taskId("count", 1);
  static final int PEER_CHANNEL = 9_999;
  static final int BUCKET = 7; // owned by count#0 of 2 at deployment

  /** Registers a processing-time timer 100 ms after each record's arrival. */
  static final class Remind extends KeyedProcessFunction<String, String, String> {
    @Override
    public void process(String value, Context<String> ctx, Collector<String> out) {
      ctx.timerService()
          .registerProcessingTimeTimer(ctx.timerService().currentProcessingTime() + 100);
    }
  }

  static Dataflow reminders() {
    DataflowBuilder b = Dataflow.builder("remind").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("unused")))
        .keyBy((String w) -> w)
        .process("count", Remind::new)
        .sink(SinkSpec.discarding("out"));
    return b.build();
  }

  final KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
  final FakeServices host0 = new FakeServices();
  final FakeServices host1 = new FakeServices();
  final InMemoryStateStore store0 = new InMemoryStateStore();
  final InMemoryStateStore store1 = new InMemoryStateStore();
  final ChannelSettings settings = new ChannelSettings(100, 1 << 20, 5, 100);
  final FakeServices.Task count0 = host0.task(reminders(), "count", 0, settings, store0);
  final FakeServices.Task count1 = host1.task(reminders(), "count", 1, settings, store1);
  final PeerHandover handover = new PeerHandover(host0, count0, count1, BUCKET, PEER_CHANNEL);

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

  /**
   * count#0 hands {@link #BUCKET} over to count#1, which installs what came on the peer channel.
   */
  void handOver() {
    count0.engine().start(0);
    count1.engine().start(0);
    handover.prepareSender(List.of(count0.inputFrom(WORDS0)));
    handover.prepareReceiver(List.of(count1.inputFrom(WORDS0)));
    handover.handOver();
    deliverPeerItems();
    host1.timers.clear();
  }

  /** What count#0 sent count#1 on the peer channel and count#1 has not had yet. */
  void deliverPeerItems() {
    handover.flushAndRelay();
  }

  @Test
  void aForwardedRecordsTimerAsksForAWakeUp() {
    handOver();
    count0.engine().onDeliver(new Deliver(count0.inputFrom(WORDS0), 0, batch(wordOfBucket(0))));
    deliverPeerItems();
    assertThat(host0.deliveries(COUNT1))
        .as("the sender forwarded the record")
        .anyMatch(d -> d.item() instanceof ForwardedBatch);
    assertThat(host1.takeTimer(TaskTimer.PROCESSING_TIME))
        .as("the receiver's wake-up for the timer the forwarded record registered")
        .isNotNull();
  }

  @Test
  void aHeldRecordsTimerAsksForAWakeUp() {
    handOver();
    int in1 = count1.inputFrom(WORDS0);
    // the upstream switched: its marker to count#0, then a record of the bucket straight to count#1
    count1.engine().onDeliver(new Deliver(in1, 0, new Marker(1)));
    count1.engine().onDeliver(new Deliver(in1, 1, batch(wordOfBucket(1))));
    assertThat(host1.takeTimer(TaskTimer.PROCESSING_TIME))
        .as("held for count#0's peer marker: not run yet")
        .isNull();
    count0.engine().onDeliver(new Deliver(count0.inputFrom(WORDS0), 0, new Marker(1)));
    deliverPeerItems();
    assertThat(host0.deliveries(COUNT1)).anyMatch(d -> d.item() instanceof PeerMarker);
    assertThat(host1.takeTimer(TaskTimer.PROCESSING_TIME))
        .as("the receiver's wake-up for the timer the released record registered")
        .isNotNull();
  }
}
