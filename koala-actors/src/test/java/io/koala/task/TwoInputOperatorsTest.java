package io.koala.task;

import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedStage;
import io.koala.dataflow.Stage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.Watermark;
import io.koala.store.InMemoryStateStore;
import io.koala.store.Table;
import io.koala.task.FakeServices.Task;
import io.koala.window.WindowAssigner;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The window join and the interval join driven through a real task engine with a fake host: the
 * test decides exactly when each input's records and watermarks arrive, and checks the results, the
 * late-record count and the state left in the store after every step.
 */
class TwoInputOperatorsTest {
  private static final TaskId LEFT = taskId("left", 0);
  private static final TaskId RIGHT = taskId("right", 0);

  /** A record of either side: key, name (what the join output shows) and timestamp. */
  record Ev(String key, String name, long ts) {}

  private final FakeServices services = new FakeServices();
  private final InMemoryStateStore store = new InMemoryStateStore();
  private Task task;
  private long leftSeq;
  private long rightSeq;

  @AfterEach
  void close() {
    if (task != null) {
      task.engine().close();
    }
    store.close();
  }

  /** A sink sending {@code value@timestamp} to the client. */
  static <T> SinkSpec<T> withTimestamps(String name) {
    return new SinkSpec<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public SinkWriter<T> open(SinkContext ctx) {
        Collector<Object> results = ctx.clientResults();
        return (value, ts) -> results.collect(value + "@" + ts);
      }
    };
  }

  /** left, right (sources) → the join built by {@code join} → sink, one task each. */
  private void start(
      BiFunction<KeyedStage<String, Ev>, KeyedStage<String, Ev>, Stage<String>> join) {
    DataflowBuilder b = Dataflow.builder("join").registerTypes(Ev.class);
    WatermarkStrategy wm = WatermarkStrategy.monotonousTimestamps();
    KeyedStage<String, Ev> l =
        b.source(SourceSpec.collection("left", List.<Ev>of()).timestamps(Ev::ts), wm)
            .keyBy(Ev::key);
    KeyedStage<String, Ev> r =
        b.source(SourceSpec.collection("right", List.<Ev>of()).timestamps(Ev::ts), wm)
            .keyBy(Ev::key);
    join.apply(l, r).sink(withTimestamps("out"));
    task = services.task(b.build(), "join", 0, new ChannelSettings(100, 1 << 20, 5, 1000), store);
    task.engine().start(0);
  }

  private static Stage<String> names(
      KeyedStage<String, Ev> l, KeyedStage<String, Ev> r, WindowAssigner windows) {
    return l.join(r).window(windows).apply("join", (a, b) -> a.name() + "+" + b.name());
  }

  private void left(Ev... records) {
    deliver(LEFT, leftSeq++, batch(records));
  }

  private void right(Ev... records) {
    deliver(RIGHT, rightSeq++, batch(records));
  }

  private void watermark(long leftWatermark, long rightWatermark) {
    deliver(LEFT, leftSeq++, new Watermark(leftWatermark));
    deliver(RIGHT, rightSeq++, new Watermark(rightWatermark));
  }

  private void watermark(long both) {
    watermark(both, both);
  }

  private void deliver(TaskId from, long seq, ChannelItem item) {
    task.engine().onDeliver(new Deliver(task.inputFrom(from), seq, item));
    assertThat(services.failures).isEmpty();
  }

  private static RecordBatch batch(Ev... records) {
    long[] ts = new long[records.length];
    for (int i = 0; i < records.length; i++) {
      ts[i] = records[i].ts();
    }
    return new RecordBatch(records.clone(), ts, records.length);
  }

  /** Everything the sink has sent to the client so far, after flushing partial batches. */
  private List<Object> out() {
    task.engine().onTimer(TaskTimer.FLUSH);
    return services.records(TaskEngine.CLIENT);
  }

  private long stateEntries() {
    return task.engine().metrics().stateEntries();
  }

  private long timers() {
    return store.stats().entries(Table.TIMERS);
  }

  private long late() {
    return task.engine().metrics().lateRecords();
  }

  private static Ev ev(String key, String name, long ts) {
    return new Ev(key, name, ts);
  }

  // ------------------------------------------------------------------ window join

  @Test
  void aTumblingWindowFiresOnceBothInputsPassItAndIsPurged() {
    start((l, r) -> names(l, r, WindowAssigner.tumbling(Duration.ofMillis(10))));
    left(ev("k", "a1", 1), ev("k", "a2", 5), ev("k", "a3", 12));
    right(ev("k", "b1", 3), ev("k", "b2", 15), ev("j", "c1", 4));
    // k: [0,10) left a1 a2, right b1; [10,20) left a3, right b2. j: [0,10) right c1.
    assertThat(stateEntries()).isEqualTo(5);
    assertThat(timers()).isEqualTo(3);

    watermark(9, 8);
    assertThat(out()).as("the right input holds the window back").isEmpty();
    watermark(9, 9);
    assertThat(out()).containsExactlyInAnyOrder("a1+b1@9", "a2+b1@9");
    assertThat(stateEntries()).as("[0,10) is purged, for j too").isEqualTo(2);
    assertThat(timers()).isEqualTo(1);

    left(ev("k", "late", 7));
    assertThat(late()).isEqualTo(1);
    assertThat(stateEntries()).isEqualTo(2);

    watermark(19);
    assertThat(out()).containsExactlyInAnyOrder("a1+b1@9", "a2+b1@9", "a3+b2@19");
    assertThat(stateEntries()).isZero();
    assertThat(timers()).isZero();
  }

  @Test
  void aSlidingWindowJoinsAPairOncePerSharedWindow() {
    start(
        (l, r) -> names(l, r, WindowAssigner.sliding(Duration.ofMillis(10), Duration.ofMillis(5))));
    // Windows: 2 and 3 in [-5,5) and [0,10); 7 in [0,10) and [5,15); 12 in [5,15) and [10,20).
    left(ev("k", "z", 2), ev("k", "x", 7));
    right(ev("k", "w", 3), ev("k", "y", 12));
    watermark(9);
    assertThat(out()).containsExactlyInAnyOrder("z+w@4", "z+w@9", "x+w@9");

    // 8 falls in [0,10), which has fired, and in [5,15), which has not: it is not late.
    left(ev("k", "v", 8));
    assertThat(late()).isZero();
    watermark(100);
    assertThat(out()).containsExactlyInAnyOrder("z+w@4", "z+w@9", "x+w@9", "x+y@14", "v+y@14");
    assertThat(stateEntries()).isZero();
    assertThat(timers()).isZero();
  }

  @Test
  void sessionsFormOverBothInputsAndMerge() {
    start((l, r) -> names(l, r, WindowAssigner.session(Duration.ofMillis(10))));
    left(ev("k", "a", 0)); // k: [0,10)
    right(ev("k", "b", 25)); // k: [25,35)
    left(ev("k", "c", 14)); // k: [14,24), touching neither
    assertThat(stateEntries()).as("three lists and the session set").isEqualTo(4);
    right(ev("k", "d", 20)); // [20,30) bridges [14,24) and [25,35) into [14,35)
    left(ev("j", "e", 0));
    right(ev("j", "f", 5)); // j: [0,15)
    watermark(13);
    assertThat(out()).as("k's [0,10) has no right record").isEmpty();
    watermark(100);
    assertThat(out()).containsExactlyInAnyOrder("c+b@34", "c+d@34", "e+f@14");
    assertThat(stateEntries()).isZero();
    assertThat(timers()).isZero();

    left(ev("k", "old", 90)); // [90,100) has fired: late
    assertThat(late()).isEqualTo(1);
    assertThat(stateEntries()).isZero();
  }

  // ------------------------------------------------------------------ interval join

  @Test
  void intervalBoundsAreInclusiveAndBufferedRecordsGoOnceUnmatchable() {
    // a.ts - 2 <= b.ts <= a.ts + 3: the left record at 10 matches right records in [8, 13].
    start(
        (l, r) ->
            l.intervalJoin(r)
                .between(Duration.ofMillis(-2), Duration.ofMillis(3))
                .apply("join", (a, b) -> a.name() + "+" + b.name()));
    right(ev("k", "r7", 7), ev("k", "r8", 8));
    left(ev("k", "a", 10));
    assertThat(out()).containsExactly("a+r8@10");
    right(ev("k", "r13", 13), ev("k", "r14", 14), ev("other", "x", 10));
    assertThat(out()).containsExactly("a+r8@10", "a+r13@13");
    // Per side and key: a list per timestamp and an index.
    assertThat(stateEntries()).isEqualTo(2 + 5 + 2);

    // Right records go at ts + 2 (r7 at 9), left ones at ts + 3 (a at 13).
    watermark(9);
    assertThat(stateEntries()).isEqualTo(2 + 4 + 2);
    watermark(13);
    assertThat(stateEntries()).as("a, r8 and other's x are gone").isEqualTo(3);
    watermark(16);
    assertThat(stateEntries()).isZero();
    assertThat(timers()).isZero();

    right(ev("k", "r16", 16));
    assertThat(late()).as("a record at the watermark is late").isEqualTo(1);
    assertThat(out()).hasSize(2);
  }

  @Test
  void aRecordThatCanMatchNothingLaterProbesButIsNotBuffered() {
    // b.ts in [a.ts - 5, a.ts - 1]: left records are never needed once the watermark reaches ts -
    // 1.
    start(
        (l, r) ->
            l.intervalJoin(r)
                .between(Duration.ofMillis(-5), Duration.ofMillis(-1))
                .process(
                    "join",
                    () ->
                        new io.koala.function.ProcessJoinFunction<Ev, Ev, String>() {
                          @Override
                          public void processElement(
                              Ev a, Ev b, Context ctx, Collector<String> out) {
                            out.collect(
                                a.name()
                                    + "+"
                                    + b.name()
                                    + " "
                                    + ctx.leftTimestamp()
                                    + "/"
                                    + ctx.rightTimestamp()
                                    + "/"
                                    + ctx.timestamp());
                          }
                        }));
    right(ev("k", "r", 9)); // kept until the watermark reaches 14
    watermark(10);
    assertThat(stateEntries()).isEqualTo(2);
    left(ev("k", "a", 11)); // matches [6, 10]; could only match later records below 11
    assertThat(out()).containsExactly("a+r 11/9/11@11");
    assertThat(stateEntries()).as("a is not buffered").isEqualTo(2);
    assertThat(timers()).isEqualTo(1);
  }

  @Test
  void aRecordWithoutATimestampFailsTheJoinNamingIt() {
    start((l, r) -> names(l, r, WindowAssigner.tumbling(Duration.ofMillis(10))));
    task.engine()
        .onDeliver(
            new Deliver(
                task.inputFrom(LEFT),
                0,
                new RecordBatch(new Object[] {ev("k", "a", 1)}, new long[] {Long.MIN_VALUE}, 1)));
    assertThat(services.failures)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.operator()).isEqualTo("join");
              assertThat(e.message()).contains("without a timestamp");
            });
  }
}
