package io.koala.task;

import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedStage;
import io.koala.dataflow.Stage;
import io.koala.dataflow.WindowedStage;
import io.koala.function.AggregateFunction;
import io.koala.function.Collector;
import io.koala.function.OutputTag;
import io.koala.job.ErrorInfo;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.Watermark;
import io.koala.store.InMemoryStateStore;
import io.koala.task.FakeServices.Task;
import io.koala.window.ProcessWindowFunction;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The window operator inside a task engine driven by a fake host: the test decides exactly which
 * records and watermarks arrive in which order, so late data and firing are deterministic.
 */
class WindowOperatorEngineTest {
  private static final TaskId SOURCE = taskId("events", 0);
  private static final TaskId OUT = taskId("out", 0);
  private static final TaskId LATE = taskId("late", 0);
  private static final OutputTag<Ev> LATE_TAG = new OutputTag<>("late");

  /** An event of {@code key} at {@code ts} carrying {@code v}. */
  record Ev(String key, long ts, long v) {}

  /** A record as it left the operator: value and event timestamp. */
  record Emitted(Object value, long timestamp) {}

  private final FakeServices services = new FakeServices();
  private final InMemoryStateStore store = new InMemoryStateStore();
  private TaskEngine engine;
  private int input;
  private long seq;

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
    store.close();
  }

  // ------------------------------------------------------------------ harness

  private static Ev ev(String key, long ts, long v) {
    return new Ev(key, ts, v);
  }

  private static <V> WindowResult<String, V> result(String key, long start, long end, V value) {
    return new WindowResult<>(key, start, end, value);
  }

  /**
   * events → keyBy(key) → window(assigner) configured by {@code window} → sink "out", and the late
   * side output into sink "late". With two consumers the operator ends its chain, so its results
   * travel to the "out" task with their timestamps.
   */
  private void deploy(
      WindowAssigner assigner, Function<WindowedStage<String, Ev>, Stage<?>> window) {
    start(dataflow(assigner, window), services);
  }

  private static Dataflow dataflow(
      WindowAssigner assigner, Function<WindowedStage<String, Ev>, Stage<?>> window) {
    DataflowBuilder b = Dataflow.builder("windows");
    b.registerTypes(Ev.class);
    KeyedStage<String, Ev> keyed =
        b.source(SourceSpec.collection("events", List.<Ev>of())).keyBy(Ev::key);
    Stage<?> out = window.apply(keyed.window(assigner));
    out.sink(SinkSpec.collecting("out"));
    out.sideOutput(LATE_TAG).sink(SinkSpec.collecting("late"));
    return b.build();
  }

  private void start(Dataflow dataflow, FakeServices host) {
    Task t = host.task(dataflow, "win", 0, new ChannelSettings(100, 1 << 20, 5, 1000), store);
    engine = t.engine();
    input = t.inputFrom(SOURCE);
    seq = 0;
    engine.start(0);
  }

  private static Stage<?> sumReduce(WindowedStage<String, Ev> w) {
    return w.reduce("win", (a, b) -> new Ev(a.key(), Math.max(a.ts(), b.ts()), a.v() + b.v()));
  }

  private void records(Ev... evs) {
    Object[] values = new Object[evs.length];
    long[] timestamps = new long[evs.length];
    for (int i = 0; i < evs.length; i++) {
      values[i] = evs[i];
      timestamps[i] = evs[i].ts();
    }
    engine.onDeliver(new Deliver(input, seq++, new RecordBatch(values, timestamps, evs.length)));
  }

  private void watermark(long timestamp) {
    engine.onDeliver(new Deliver(input, seq++, new Watermark(timestamp)));
  }

  private void endOfInput() {
    engine.onDeliver(new Deliver(input, seq++, EndOfChannel.INSTANCE));
  }

  /** Everything the operator emitted on its main output so far, in order. */
  private List<Emitted> emitted() {
    return emitted(services);
  }

  private List<Emitted> emitted(FakeServices host) {
    if (engine.status() == TaskStatus.RUNNING) {
      engine.onTimer(TaskTimer.FLUSH); // partial batches to the client wait for linger
    }
    return batches(host, OUT);
  }

  private List<Object> results() {
    return emitted().stream().map(Emitted::value).toList();
  }

  private List<Object> late() {
    if (engine.status() == TaskStatus.RUNNING) {
      engine.onTimer(TaskTimer.FLUSH);
    }
    return batches(services, LATE).stream().map(Emitted::value).toList();
  }

  private static List<Emitted> batches(FakeServices host, Object target) {
    List<Emitted> out = new ArrayList<>();
    for (Deliver d : host.deliveries(target)) {
      if (d.item() instanceof RecordBatch batch) {
        for (int i = 0; i < batch.size(); i++) {
          out.add(new Emitted(batch.value(i), batch.timestamp(i)));
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ tumbling and sliding

  @Test
  void aTumblingWindowFiresOnceTheWatermarkReachesItsMaxTimestampAndCarriesIt() {
    deploy(WindowAssigner.tumbling(Duration.ofMillis(10)), WindowOperatorEngineTest::sumReduce);
    records(ev("a", 1, 1), ev("b", 3, 10), ev("a", 5, 2), ev("a", 12, 4));
    watermark(8);
    assertThat(results()).isEmpty();

    watermark(9);
    assertThat(emitted())
        .containsExactlyInAnyOrder(
            new Emitted(result("a", 0, 10, ev("a", 5, 3)), 9),
            new Emitted(result("b", 0, 10, ev("b", 3, 10)), 9));

    endOfInput();
    assertThat(results()).hasSize(3).endsWith(result("a", 10, 20, ev("a", 12, 4)));
    assertThat(engine.status()).isEqualTo(TaskStatus.FINISHED);
    assertThat(engine.metrics().stateEntries()).as("fired windows are purged").isZero();
    assertThat(services.failures).isEmpty();
  }

  @Test
  void aRecordInSlidingWindowsLateForSomeOfThemStillCountsInTheOthers() {
    deploy(
        WindowAssigner.sliding(Duration.ofMillis(10), Duration.ofMillis(5)),
        WindowOperatorEngineTest::sumReduce);
    records(ev("a", 3, 1)); // [-5, 5) and [0, 10)
    records(ev("a", 7, 2)); // [0, 10) and [5, 15)
    watermark(9);
    assertThat(results())
        .containsExactly(result("a", -5, 5, ev("a", 3, 1)), result("a", 0, 10, ev("a", 7, 3)));

    // 12 belongs to [5, 15) and [10, 20); [5, 15) is still open, so nothing is late.
    records(ev("a", 12, 4));
    watermark(14);
    assertThat(results()).hasSize(3).endsWith(result("a", 5, 15, ev("a", 12, 6)));
    // 11 belongs to [5, 15), already fired and purged, and to [10, 20), still open.
    records(ev("a", 11, 8));
    endOfInput();
    assertThat(results()).hasSize(4).endsWith(result("a", 10, 20, ev("a", 12, 12)));
    assertThat(engine.metrics().lateRecords()).isZero();
  }

  // ------------------------------------------------------------------ allowed lateness

  @Test
  void aLateRecordWithinAllowedLatenessFiresAnUpdatedResultAndATooLateOneGoesToTheSideOutput() {
    deploy(
        WindowAssigner.tumbling(Duration.ofMillis(10)),
        w -> sumReduce(w.allowedLateness(Duration.ofMillis(5)).sideOutputLateData(LATE_TAG)));
    records(ev("a", 3, 1));
    watermark(9);
    assertThat(emitted()).containsExactly(new Emitted(result("a", 0, 10, ev("a", 3, 1)), 9));
    assertThat(engine.metrics().stateEntries()).as("kept for the allowed lateness").isOne();

    records(ev("a", 4, 2)); // behind the watermark, within the lateness: fires again at once
    assertThat(emitted())
        .containsExactly(
            new Emitted(result("a", 0, 10, ev("a", 3, 1)), 9),
            new Emitted(result("a", 0, 10, ev("a", 4, 3)), 9));

    watermark(14); // 9 + 5: the window is cleaned up
    assertThat(engine.metrics().stateEntries()).isZero();
    records(ev("a", 5, 4));
    assertThat(late()).containsExactly(ev("a", 5, 4));
    assertThat(engine.metrics().lateRecords()).as("sent on, not dropped").isZero();

    endOfInput();
    assertThat(results()).as("no further firing after the cleanup").hasSize(2);
    assertThat(late()).containsExactly(ev("a", 5, 4));
  }

  @Test
  void withoutASideOutputATooLateRecordIsDroppedAndCounted() {
    deploy(WindowAssigner.tumbling(Duration.ofMillis(10)), WindowOperatorEngineTest::sumReduce);
    records(ev("a", 3, 1));
    watermark(9);
    records(ev("a", 4, 2), ev("b", 9, 5), ev("b", 10, 7));
    endOfInput();
    assertThat(results())
        .containsExactly(result("a", 0, 10, ev("a", 3, 1)), result("b", 10, 20, ev("b", 10, 7)));
    assertThat(engine.metrics().lateRecords()).isEqualTo(2);
  }

  @Test
  void theSideOutputKeepsTheLateRecordsTimestamp() {
    deploy(
        WindowAssigner.tumbling(Duration.ofMillis(10)),
        w -> sumReduce(w.sideOutputLateData(LATE_TAG)));
    watermark(100);
    records(ev("a", 42, 1));
    engine.onTimer(TaskTimer.FLUSH);
    assertThat(batches(services, LATE)).containsExactly(new Emitted(ev("a", 42, 1), 42));
  }

  // ------------------------------------------------------------------ sessions

  @Test
  void aRecordBridgingTwoSessionsMergesThemAndTheirTimersIntoOne() {
    deploy(WindowAssigner.session(Duration.ofMillis(10)), WindowOperatorEngineTest::sumReduce);
    records(ev("a", 0, 1), ev("a", 15, 2), ev("b", 1, 100)); // a: [0, 10) and [15, 25)
    watermark(5);
    records(ev("a", 8, 4)); // [8, 18) touches both: [0, 25)
    watermark(9);
    assertThat(results()).as("[0, 10)'s timer went with the merge").isEmpty();
    watermark(10);
    assertThat(results()).containsExactly(result("b", 1, 11, ev("b", 1, 100)));
    watermark(23);
    assertThat(results()).hasSize(1);
    watermark(24);
    assertThat(emitted())
        .containsExactly(
            new Emitted(result("b", 1, 11, ev("b", 1, 100)), 10),
            new Emitted(result("a", 0, 25, ev("a", 15, 7)), 24));
    assertThat(engine.metrics().stateEntries()).as("contents and session set purged").isZero();
  }

  @Test
  void touchingSessionsMergeWhileTheEarlierHasNotFired() {
    deploy(WindowAssigner.session(Duration.ofMillis(10)), WindowOperatorEngineTest::sumReduce);
    records(ev("a", 0, 1), ev("a", 10, 2)); // [0, 10) and [10, 20) touch
    watermark(8);
    records(ev("a", 30, 4));
    endOfInput();
    assertThat(results())
        .containsExactly(result("a", 0, 20, ev("a", 10, 3)), result("a", 30, 40, ev("a", 30, 4)));
  }

  /** Count and sum, merged for sessions. */
  static final class CountSum implements AggregateFunction<Ev, long[], String> {
    @Override
    public long[] createAccumulator() {
      return new long[2];
    }

    @Override
    public long[] add(Ev value, long[] acc) {
      return new long[] {acc[0] + 1, acc[1] + value.v()};
    }

    @Override
    public String result(long[] acc) {
      return acc[0] + " events, sum " + acc[1];
    }

    @Override
    public long[] merge(long[] a, long[] b) {
      return new long[] {a[0] + b[0], a[1] + b[1]};
    }
  }

  @Test
  void mergingSessionsMergeTheirAccumulators() {
    deploy(WindowAssigner.session(Duration.ofMillis(10)), w -> w.aggregate("win", new CountSum()));
    records(ev("a", 0, 1), ev("a", 5, 2), ev("a", 30, 4), ev("a", 50, 8));
    records(ev("a", 21, 16), ev("a", 40, 32)); // [0, 15) + [21, 31) + [30, 40): [0, 15), [21, 60)
    endOfInput();
    assertThat(results())
        .containsExactly(
            result("a", 0, 15, "2 events, sum 3"), result("a", 21, 60, "4 events, sum 60"));
  }

  /** Emits "key window: sorted values" for every window. */
  static final class ListValues extends ProcessWindowFunction<String, Ev, String> {
    @Override
    public void process(String key, TimeWindow window, List<Ev> elements, Collector<String> out) {
      out.collect(
          key
              + " ["
              + window.start()
              + ", "
              + window.end()
              + "): "
              + elements.stream().map(Ev::v).sorted().toList());
    }
  }

  @Test
  void mergingSessionsConcatenateTheirElementsForTheProcessFunction() {
    deploy(WindowAssigner.session(Duration.ofMillis(10)), w -> w.process("win", ListValues::new));
    records(ev("a", 0, 1), ev("a", 15, 2), ev("b", 0, 9));
    records(ev("a", 9, 3));
    watermark(30);
    assertThat(emitted())
        .containsExactly(new Emitted("b [0, 10): [9]", 9), new Emitted("a [0, 25): [1, 2, 3]", 24));
  }

  @Test
  void aLateRecordWithinLatenessReopensAFiredSessionAndExtendsIt() {
    deploy(
        WindowAssigner.session(Duration.ofMillis(10)),
        w -> sumReduce(w.allowedLateness(Duration.ofMillis(20))));
    records(ev("a", 0, 1));
    watermark(9);
    assertThat(results()).containsExactly(result("a", 0, 10, ev("a", 0, 1)));
    records(ev("a", 0, 2)); // inside the fired session: an updated result at once
    assertThat(results()).hasSize(2).endsWith(result("a", 0, 10, ev("a", 0, 3)));
    records(ev("a", 5, 4)); // extends it to [0, 15), which is not due yet
    assertThat(results()).hasSize(2);
    watermark(14);
    assertThat(results()).hasSize(3).endsWith(result("a", 0, 15, ev("a", 5, 7)));
    watermark(34); // cleanup of [0, 15); the timers of [0, 10) went with the merge
    assertThat(engine.metrics().stateEntries()).isZero();
    records(ev("a", 1, 8)); // [1, 11): its lateness ended at 30
    endOfInput();
    assertThat(results()).hasSize(3);
    assertThat(engine.metrics().lateRecords()).isOne();
  }

  // ------------------------------------------------------------------ state lives in the store

  @Test
  void sessionsContentsAndTimersLiveInTheStoreAndOutliveTheEngine() {
    Function<WindowedStage<String, Ev>, Stage<?>> window = WindowOperatorEngineTest::sumReduce;
    deploy(WindowAssigner.session(Duration.ofMillis(10)), window);
    records(ev("a", 0, 1), ev("a", 15, 2));
    engine.close();

    // A new engine (another operator instance) on the same store carries on where it stopped.
    FakeServices next = new FakeServices();
    start(dataflow(WindowAssigner.session(Duration.ofMillis(10)), window), next);
    records(ev("a", 8, 4));
    watermark(9);
    assertThat(emitted(next)).as("the merge deleted [0, 10)'s stored timer").isEmpty();
    watermark(24);
    assertThat(emitted(next)).containsExactly(new Emitted(result("a", 0, 25, ev("a", 15, 7)), 24));
  }

  // ------------------------------------------------------------------ errors

  @Test
  void aRecordWithoutTimestampFailsTheTaskNamingTheOperatorAndTheFix() {
    deploy(WindowAssigner.tumbling(Duration.ofMillis(10)), WindowOperatorEngineTest::sumReduce);
    engine.onDeliver(
        new Deliver(
            input,
            seq++,
            new RecordBatch(new Object[] {ev("a", 0, 1)}, new long[] {Long.MIN_VALUE}, 1)));
    assertThat(engine.status()).isEqualTo(TaskStatus.FAILED);
    assertThat(services.failures).hasSize(1);
    ErrorInfo error = services.failures.get(0);
    assertThat(error.operator()).isEqualTo("win");
    assertThat(error.message())
        .contains("'win'")
        .contains("without an event timestamp")
        .contains("CollectionSource.timestamps")
        .contains("GeneratorSource.eventTime")
        .contains("WatermarkStrategy");
  }
}
