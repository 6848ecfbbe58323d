package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.Marker;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.protocol.Watermark;
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
 * The routing switch of an upstream task (DESIGN §6.1 step 4) and channels added to a downstream
 * task, on the real engine: per channel, a record takes the old path or the new one, markers
 * separate them, removed channels end after their marker, and a new channel starts with the last
 * forwarded watermark.
 */
class RoutingSwitchEngineTest {
  static final TaskId SRC = taskId("src", 0);
  static final TaskId UP0 = taskId("up", 0);
  static final TaskId COUNT0 = taskId("count", 0);
  static final TaskId COUNT1 = taskId("count", 1);
  static final TaskId COUNT2 = taskId("count", 2);

  final FakeServices host = new FakeServices();
  final InMemoryStateStore store = new InMemoryStateStore();
  final KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
  final ChannelSettings settings = new ChannelSettings(100, 1 << 20, 5, 100);

  @AfterEach
  void close() {
    store.close();
  }

  /** src (1 task) → rebalance → up (2 tasks) → keyBy → count (2 tasks) → sink. */
  static Dataflow pipeline() {
    DataflowBuilder b = Dataflow.builder("p").parallelism(2);
    b.source(SourceSpec.collection("src", List.of("unused")))
        .parallelism(1)
        .map("up", (String w) -> w)
        .keyBy(w -> w)
        .count("count")
        .sink(SinkSpec.discarding("out"));
    return b.build();
  }

  int bucketOf(String w) {
    return Buckets.bucketOf(keys.encode(w), 128);
  }

  String wordInBucketRange(int from, int to) {
    for (int i = 0; ; i++) {
      int b = bucketOf("w" + i);
      if (b >= from && b < to) {
        return "w" + i;
      }
    }
  }

  List<ChannelItem> items(int channel) {
    List<ChannelItem> out = new ArrayList<>();
    for (FakeServices.Sent s : host.sent) {
      if (s.message() instanceof Deliver d && d.channel() == channel) {
        out.add(d.item());
      }
    }
    return out;
  }

  static List<Object> values(List<ChannelItem> items) {
    List<Object> out = new ArrayList<>();
    for (ChannelItem i : items) {
      if (i instanceof RecordBatch b) {
        for (int k = 0; k < b.size(); k++) {
          out.add(b.value(k));
        }
      } else {
        out.add(i);
      }
    }
    return out;
  }

  @Test
  void recordsTakeTheOldPathOrTheNewOneSeparatedByMarkers() {
    FakeServices.Task up = host.task(pipeline(), "up", 0, settings, null);
    up.engine().start(0);
    int in = up.inputFrom(SRC);
    int toCount0 = up.outputTo(COUNT0);
    int toCount1 = up.outputTo(COUNT1);
    String a = wordInBucketRange(0, 32); // count#0 keeps it
    String m = wordInBucketRange(32, 64); // moves from count#0 to count#2
    String c = wordInBucketRange(64, 128); // count#1

    up.engine().onDeliver(new Deliver(in, 0, batch(a, m, c)));
    up.engine().onDeliver(new Deliver(in, 1, new Watermark(50)));

    OutputSpec current = up.setup().outputs().get(0);
    int[] routing = current.routing().stream().mapToInt(Integer::intValue).toArray();
    for (int b = 32; b < 64; b++) {
      routing[b] = 2;
    }
    int toCount2 = 1_000;
    OutputSpec next =
        new OutputSpec(
            current.partitioning(),
            List.of(toCount0, toCount1, toCount2),
            List.of(COUNT0, COUNT1, COUNT2),
            java.util.Arrays.stream(routing).boxed().toList(),
            null);
    up.engine().switchRouting(0, next, 1);
    up.engine().switchRouting(0, next, 1); // idempotent
    up.engine().onDeliver(new Deliver(in, 2, batch(a, m, c)));
    up.engine().onTimer(TaskTimer.FLUSH);

    assertThat(values(items(toCount0))).containsExactly(a, m, new Watermark(50), new Marker(1), a);
    assertThat(values(items(toCount1))).containsExactly(c, new Watermark(50), new Marker(1), c);
    assertThat(values(items(toCount2))).containsExactly(new Watermark(50), m);
  }

  @Test
  void aDroppedChannelEndsAfterItsMarker() {
    FakeServices.Task up = host.task(pipeline(), "up", 0, settings, null);
    up.engine().start(0);
    int in = up.inputFrom(SRC);
    int toCount0 = up.outputTo(COUNT0);
    int toCount1 = up.outputTo(COUNT1);
    String c = wordInBucketRange(64, 128);
    up.engine().onDeliver(new Deliver(in, 0, batch(c)));
    OutputSpec current = up.setup().outputs().get(0);
    List<Integer> allToCount0 = java.util.Collections.nCopies(128, 0);
    OutputSpec next =
        new OutputSpec(
            current.partitioning(), List.of(toCount0), List.of(COUNT0), allToCount0, null);
    up.engine().switchRouting(0, next, 7);
    up.engine().onDeliver(new Deliver(in, 1, batch(c)));
    up.engine().onDeliver(new Deliver(in, 2, new Watermark(40)));
    up.engine().onDeliver(new Deliver(in, 3, EndOfChannel.INSTANCE));
    assertThat(up.engine().status()).isEqualTo(TaskStatus.FINISHED);
    assertThat(values(items(toCount1)))
        .as("nothing after its end, neither watermarks nor the task's final end")
        .containsExactly(c, new Marker(7), EndOfChannel.INSTANCE);
    assertThat(values(items(toCount0)))
        .containsExactly(new Marker(7), c, new Watermark(40), EndOfChannel.INSTANCE);
  }

  @Test
  void anAnnouncedChannelHoldsTheWatermarkUntilItDeliversOne() {
    FakeServices.Task count = host.task(pipeline(), "count", 0, settings, store);
    count.engine().start(0);
    TaskId up1 = taskId("up", 1);
    count.engine().addInput(new TaskSetup.InputSpec(2_000, taskId("up", 2), 0));
    count.engine().onDeliver(new Deliver(count.inputFrom(UP0), 0, new Watermark(100)));
    count.engine().onDeliver(new Deliver(count.inputFrom(up1), 0, new Watermark(100)));
    assertThat(count.engine().metrics().watermark())
        .as("held by the announced channel")
        .isEqualTo(Long.MIN_VALUE);
    count.engine().onDeliver(new Deliver(2_000, 0, new Watermark(80)));
    assertThat(count.engine().metrics().watermark()).isEqualTo(80);
  }
}
