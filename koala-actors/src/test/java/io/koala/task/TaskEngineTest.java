package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyValue;
import io.koala.function.KeyedProcessFunction;
import io.koala.job.ErrorInfo;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.ProtocolViolationException;
import io.koala.protocol.RecordBatch;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import io.koala.store.InMemoryStateStore;
import io.koala.task.FakeServices.Scheduled;
import io.koala.task.FakeServices.Task;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The task engine driven directly, with a fake host: every send, timer and report is recorded, and
 * time only moves when the test moves it.
 */
class TaskEngineTest {
  private static final String CLIENT = TaskEngine.CLIENT;
  private static final TaskId SRC0 = taskId("words", 0);
  private static final TaskId SRC1 = taskId("words", 1);

  private final FakeServices services = new FakeServices();
  private final InMemoryStateStore store = new InMemoryStateStore();

  @AfterEach
  void close() {
    store.close();
  }

  private static ChannelSettings settings(int maxRecords, int credits) {
    return new ChannelSettings(maxRecords, 1 << 20, 5, credits);
  }

  /** words (sources) → keyBy(word) → count → collecting sink, every operator at {@code p}. */
  private static Dataflow wordCount(int parallelism) {
    return wordCount(parallelism, parallelism);
  }

  /** words at {@code sources} tasks → keyBy(word) → count → collecting sink at {@code counts}. */
  private static Dataflow wordCount(int sources, int counts) {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(counts);
    b.source(SourceSpec.collection("words", List.of("unused")).partitions(sources))
        .parallelism(sources)
        .keyBy((String w) -> w)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  private static KeyValue<String, Long> kv(String key, long count) {
    return new KeyValue<>(key, count);
  }

  private Task countTask(int parallelism, int index, ChannelSettings settings) {
    Task t = services.task(wordCount(parallelism), "count", index, settings, store);
    t.engine().start(0);
    return t;
  }

  // ------------------------------------------------------------------ processing and credit

  @Test
  void keyedCountProducesPerKeyCountsAndReturnsCredit() {
    Task t = countTask(1, 0, settings(100, 2));
    TaskEngine engine = t.engine();
    int in = t.inputFrom(SRC0);
    assertThat(engine.status()).isEqualTo(TaskStatus.RUNNING);

    engine.onDeliver(new Deliver(in, 0, batch("a", "b", "a")));
    assertThat(services.credits(SRC0)).containsExactly(new Credit(in, 3));
    assertThat(services.takeTimer(TaskTimer.FLUSH)).isNotNull();
    engine.onTimer(TaskTimer.FLUSH);

    engine.onDeliver(new Deliver(in, 1, batch("b", "c", "a")));
    assertThat(services.credits(SRC0)).containsExactly(new Credit(in, 3), new Credit(in, 4));
    engine.onTimer(TaskTimer.FLUSH);

    assertThat(services.records(CLIENT))
        .containsExactly(kv("a", 1), kv("b", 1), kv("a", 2), kv("b", 2), kv("c", 1), kv("a", 3));
    assertThat(services.deliveries(CLIENT))
        .extracting(Deliver::channel, Deliver::seq)
        .containsExactly(
            tuple(t.setup().clientChannel(), 0L), tuple(t.setup().clientChannel(), 1L));
    TaskMetricsSnapshot m = engine.metrics();
    assertThat(m.recordsIn()).isEqualTo(6);
    assertThat(m.batches()).isEqualTo(2);
    assertThat(m.stateEntries()).as("one counter per key").isEqualTo(3);
    assertThat(m.backpressured()).isFalse();
    assertThat(m.batchLatency().count()).isEqualTo(2);
    assertThat(services.failures).isEmpty();
  }

  @Test
  void creditsAreReturnedInHalfWindowStepsAndResentOnTick() {
    Task t = countTask(1, 0, settings(100, 4));
    int in = t.inputFrom(SRC0);
    for (int seq = 0; seq < 4; seq++) {
      t.engine().onDeliver(new Deliver(in, seq, batch("k")));
    }
    assertThat(services.credits(SRC0)).containsExactly(new Credit(in, 6), new Credit(in, 8));
    services.takeSent();
    t.engine().onTick();
    assertThat(services.credits(SRC0)).containsExactly(new Credit(in, 8));
  }

  @Test
  void partialBatchesWaitForTheLingerTimerAndFullOnesGoAtOnce() {
    Task t = countTask(1, 0, new ChannelSettings(4, 1 << 20, 7, 8));
    int in = t.inputFrom(SRC0);
    t.engine().onDeliver(new Deliver(in, 0, batch("a", "b", "c")));
    assertThat(services.deliveries(CLIENT)).isEmpty();
    assertThat(services.timers).containsExactly(new Scheduled(TaskTimer.FLUSH, 7));

    // A second partial batch does not ask for a second timer.
    t.engine().onDeliver(new Deliver(in, 1, batch("d")));
    assertThat(services.records(CLIENT))
        .as("the 4th record fills the batch, which goes at once")
        .containsExactly(kv("a", 1), kv("b", 1), kv("c", 1), kv("d", 1));
    t.engine().onDeliver(new Deliver(in, 2, batch("e")));
    assertThat(services.timers).hasSize(1);
    assertThat(services.records(CLIENT)).hasSize(4);

    services.takeTimer(TaskTimer.FLUSH);
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(CLIENT)).endsWith(kv("e", 1)).hasSize(5);
    // Nothing is partial any more: no new timer until a record waits again.
    assertThat(services.timers).isEmpty();
    t.engine().onDeliver(new Deliver(in, 3, batch("f")));
    assertThat(services.timers).containsExactly(new Scheduled(TaskTimer.FLUSH, 7));
  }

  // ------------------------------------------------------------------ backpressure

  @Test
  void withoutOutputCreditTheTaskStopsConsumingAndResumesOnCredit() {
    Task t = countTask(1, 0, settings(1, 2));
    TaskEngine engine = t.engine();
    int in = t.inputFrom(SRC0);
    int client = t.setup().clientChannel();

    // Three one-record batches on a window of two: the third waits for credit.
    engine.onDeliver(new Deliver(in, 0, batch("a", "b", "c")));
    assertThat(services.records(CLIENT)).containsExactly(kv("a", 1), kv("b", 1));
    assertThat(services.credits(SRC0)).containsExactly(new Credit(in, 3));
    assertThat(engine.metrics().backpressured()).isTrue();
    services.takeSent();

    engine.onDeliver(new Deliver(in, 1, batch("d")));
    engine.onDeliver(new Deliver(in, 2, batch("e")));
    assertThat(services.sent).as("pending input is neither processed nor credited").isEmpty();
    assertThat(engine.metrics().recordsIn()).isEqualTo(3);

    engine.onCredit(new Credit(client, 3));
    // The queued batch goes out; then one pending input is processed, whose output waits again.
    assertThat(services.records(CLIENT)).containsExactly(kv("c", 1));
    assertThat(services.deliveries(CLIENT)).extracting(Deliver::seq).containsExactly(2L);
    assertThat(services.credits(SRC0)).containsExactly(new Credit(in, 4));
    assertThat(engine.metrics().recordsIn()).isEqualTo(4);
    services.takeSent();

    engine.onCredit(new Credit(client, 100));
    assertThat(services.records(CLIENT)).containsExactly(kv("d", 1), kv("e", 1));
    assertThat(services.credits(SRC0)).containsExactly(new Credit(in, 5));
    assertThat(engine.metrics().backpressured()).isFalse();
    assertThat(engine.metrics().recordsIn()).isEqualTo(5);
  }

  @Test
  void aStaleCreditDoesNotUnblock() {
    Task t = countTask(1, 0, settings(1, 2));
    int in = t.inputFrom(SRC0);
    int client = t.setup().clientChannel();
    t.engine().onDeliver(new Deliver(in, 0, batch("a", "b", "c")));
    t.engine().onDeliver(new Deliver(in, 1, batch("d")));
    services.takeSent();
    t.engine().onCredit(new Credit(client, 1));
    t.engine().onCredit(new Credit(client, 2));
    assertThat(services.sent).isEmpty();
    assertThat(t.engine().metrics().backpressured()).isTrue();
  }

  // ------------------------------------------------------------------ failures

  @Test
  void aSequenceGapFailsTheTaskWhichThenProcessesNothing() {
    Task t = countTask(1, 0, settings(100, 4));
    TaskEngine engine = t.engine();
    int in = t.inputFrom(SRC0);

    engine.onDeliver(new Deliver(in, 1, batch("a")));
    assertThat(engine.status()).isEqualTo(TaskStatus.FAILED);
    assertThat(services.failures).hasSize(1);
    ErrorInfo e = services.failures.get(0);
    assertThat(e.exceptionClass()).isEqualTo(ProtocolViolationException.class.getName());
    assertThat(e.message()).contains("expected item 0 but got 1");
    assertThat(e.task()).isEqualTo("count#0");
    assertThat(e.describe()).contains("count#0").contains("ProtocolViolationException");

    engine.onDeliver(new Deliver(in, 0, batch("a")));
    engine.onTimer(TaskTimer.FLUSH);
    engine.onTick();
    assertThat(services.sent).isEmpty();
    assertThat(services.failures).hasSize(1);
    assertThat(engine.metrics().recordsIn()).isZero();
    assertThat(services.finished).isZero();
  }

  @Test
  void anUnknownInputChannelIsAProtocolViolation() {
    Task t = countTask(1, 0, settings(100, 4));
    t.engine().onDeliver(new Deliver(999, 0, batch("a")));
    assertThat(services.failures)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.exceptionClass()).isEqualTo(ProtocolViolationException.class.getName());
              assertThat(e.message()).contains("no input channel 999");
            });
  }

  @Test
  void creditForAnUnknownOutputChannelFailsTheTask() {
    Task t = countTask(1, 0, settings(100, 4));
    t.engine().onCredit(new Credit(999, 5));
    assertThat(t.engine().status()).isEqualTo(TaskStatus.FAILED);
    assertThat(services.failures)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.exceptionClass()).isEqualTo(ProtocolViolationException.class.getName());
              assertThat(e.message()).contains("no output channel 999");
            });
  }

  /** Counts per key in state, and refuses the word "bad". */
  static final class RefuseBad extends KeyedProcessFunction<String, String, String> {
    private ValueState<Long> seen;

    @Override
    public void open(KeyedStateContext ctx) {
      seen = ctx.valueState("seen", Long.class);
    }

    @Override
    public void process(String value, Context<String> ctx, Collector<String> out) {
      Long n = seen.value();
      seen.update(n == null ? 1 : n + 1);
      if (value.equals("bad")) {
        throw new IllegalArgumentException("no bad words");
      }
      out.collect(value);
    }
  }

  @Test
  void aThrowingUserFunctionFailsTheTaskNamingOperatorAndKeyAndDiscardsTheBatch() {
    DataflowBuilder b = Dataflow.builder("refuse");
    b.source(SourceSpec.collection("words", List.of("x")))
        .keyBy((String w) -> w)
        .process("refuse", RefuseBad::new)
        .sink(SinkSpec.collecting("out"));
    Task t = services.task(b.build(), "refuse", 0, settings(100, 4), store);
    t.engine().start(0);
    int in = t.inputFrom(SRC0);

    t.engine().onDeliver(new Deliver(in, 0, batch("fine")));
    t.engine().onDeliver(new Deliver(in, 1, batch("ok", "bad", "never")));
    assertThat(services.failures).hasSize(1);
    ErrorInfo e = services.failures.get(0);
    assertThat(e.operator()).isEqualTo("refuse");
    assertThat(e.key()).isEqualTo("bad");
    assertThat(e.task()).isEqualTo("refuse#0");
    assertThat(e.exceptionClass()).isEqualTo(IllegalArgumentException.class.getName());
    assertThat(e.message()).isEqualTo("no bad words");
    assertThat(e.stackTrace()).contains("RefuseBad.process");
    assertThat(e.describe()).contains("operator 'refuse'").contains("on key bad");
    // The failed batch's state writes ("ok", "bad") are discarded; the earlier batch's stay.
    assertThat(t.engine().metrics().stateEntries()).isEqualTo(1);
    // Its partial output never leaves.
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(CLIENT)).isEmpty();
  }

  @Test
  void aThrowingChainedOperatorIsNamedNotTheHead() {
    DataflowBuilder b = Dataflow.builder("chained");
    b.source(SourceSpec.collection("words", List.of("x")))
        .keyBy((String w) -> w)
        .count("count")
        .map(
            "render",
            kv -> {
              if (kv.value() == 2) {
                throw new IllegalStateException("second " + kv.key());
              }
              return kv.key();
            })
        .sink(SinkSpec.collecting("out"));
    Task t = services.task(b.build(), "count", 0, settings(100, 4), store);
    assertThat(t.vertex().chain()).hasSize(3);
    t.engine().start(0);
    t.engine().onDeliver(new Deliver(t.inputFrom(SRC0), 0, batch("p", "q", "p")));
    assertThat(services.failures)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.operator()).isEqualTo("render");
              assertThat(e.key()).isEqualTo("p");
              assertThat(e.message()).isEqualTo("second p");
            });
  }

  @Test
  void emittingAnUnregisteredClassToAnotherTaskFailsNamingTheClassAndTheFix() {
    record Unregistered(String w) {}
    // words → wrap (chained, p 2) → sink (p 1): wrapped records leave the source's task.
    DataflowBuilder b = Dataflow.builder("unregistered").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("x")).partitions(2))
        .map("wrap", Unregistered::new)
        .sink(SinkSpec.discarding("out"))
        .parallelism(1);
    Task t = services.task(b.build(), "words", 0, settings(100, 4), null);
    t.engine().start(0);
    t.engine().onTimer(TaskTimer.POLL);
    assertThat(t.engine().status()).isEqualTo(TaskStatus.FAILED);
    assertThat(services.failures)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.operator()).isEqualTo("wrap");
              assertThat(e.message())
                  .contains(Unregistered.class.getName())
                  .contains("registerTypes");
              assertThat(e.message()).contains("'wrap'");
            });
    assertThat(services.deliveries(taskId("out", 0))).isEmpty();
  }

  @Test
  void aRecordOfABucketTheTaskDoesNotOwnIsAProtocolViolation() {
    Task t = countTask(2, 0, settings(100, 4));
    String owned = null;
    String foreign = null;
    KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
    for (int i = 0; owned == null || foreign == null; i++) {
      String k = "key" + i;
      int bucket = Buckets.bucketOf(keys.encode(k), 128);
      if (t.setup().inputRouting().get(bucket) == 0) {
        owned = owned == null ? k : owned;
      } else {
        foreign = foreign == null ? k : foreign;
      }
    }
    t.engine().onDeliver(new Deliver(t.inputFrom(SRC1), 0, batch(owned)));
    assertThat(services.failures).isEmpty();
    t.engine().onDeliver(new Deliver(t.inputFrom(SRC0), 0, batch(foreign)));
    String foreignKey = foreign;
    assertThat(services.failures)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.exceptionClass()).isEqualTo(ProtocolViolationException.class.getName());
              assertThat(e.message())
                  .contains("count#0")
                  .contains(foreignKey)
                  .contains("does not own");
            });
    assertThat(t.engine().status()).isEqualTo(TaskStatus.FAILED);
  }

  @Test
  void aRejectedRecordIsNotBlamedOnThePreviousKey() {
    Task t = countTask(2, 0, settings(100, 4));
    KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
    String owned = null;
    String foreign = null;
    for (int i = 0; owned == null || foreign == null; i++) {
      String k = "key" + i;
      boolean mine = t.setup().inputRouting().get(Buckets.bucketOf(keys.encode(k), 128)) == 0;
      if (mine && owned == null) {
        owned = k;
      } else if (!mine && foreign == null) {
        foreign = k;
      }
    }
    t.engine().onDeliver(new Deliver(t.inputFrom(SRC0), 0, batch(owned, foreign)));
    ErrorInfo e = services.failures.get(0);
    assertThat(e.key()).isIn(null, foreign);
  }

  @Test
  void aFailedTaskSendsNothingMoreWhenCreditArrives() {
    Task t = countTask(1, 0, settings(1, 1));
    int in = t.inputFrom(SRC0);
    t.engine().onDeliver(new Deliver(in, 0, batch("a", "b")));
    assertThat(services.records(CLIENT)).containsExactly(kv("a", 1));
    t.engine().onDeliver(new Deliver(in, 5, batch("z"))); // a gap: fail
    assertThat(t.engine().status()).isEqualTo(TaskStatus.FAILED);
    services.takeSent();
    t.engine().onCredit(new Credit(t.setup().clientChannel(), 10));
    assertThat(services.sent).isEmpty();
  }

  @Test
  void aCancelledTaskProcessesNothing() {
    Task t = countTask(1, 0, settings(100, 4));
    t.engine().cancel();
    assertThat(t.engine().status()).isEqualTo(TaskStatus.CANCELLED);
    t.engine().onDeliver(new Deliver(t.inputFrom(SRC0), 0, batch("a")));
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.sent).isEmpty();
    assertThat(services.failures).isEmpty();
    assertThat(services.finished).isZero();
    t.engine().close();
  }

  // ------------------------------------------------------------------ end of input

  @Test
  void endOfChannelOnAllInputsFinishesOnceCreditsAllowIt() {
    // count (p 1) reads from two source tasks and rebalances into "render" (p 2).
    DataflowBuilder b = Dataflow.builder("finish").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("x")).partitions(2))
        .keyBy((String w) -> w)
        .count("count")
        .parallelism(1)
        .map("render", kv -> kv.key() + "=" + kv.value())
        .sink(SinkSpec.discarding("out"));
    Task t = services.task(b.build(), "count", 0, settings(10, 1), store);
    TaskEngine engine = t.engine();
    engine.start(0);
    int fromSrc0 = t.inputFrom(SRC0);
    int fromSrc1 = t.inputFrom(SRC1);
    TaskId render0 = taskId("render", 0);
    TaskId render1 = taskId("render", 1);

    engine.onDeliver(new Deliver(fromSrc0, 0, batch("x")));
    engine.onDeliver(new Deliver(fromSrc0, 1, EndOfChannel.INSTANCE));
    assertThat(engine.status()).isEqualTo(TaskStatus.RUNNING);
    assertThat(services.finished).isZero();
    assertThat(services.deliveries(render0)).isEmpty();

    engine.onDeliver(new Deliver(fromSrc1, 0, EndOfChannel.INSTANCE));
    // The partial batch and end-of-channel went out where credit allowed; render#0's end waits.
    assertThat(services.deliveries(render0))
        .extracting(Deliver::item)
        .singleElement()
        .isInstanceOf(RecordBatch.class);
    assertThat(services.records(render0)).containsExactly(kv("x", 1));
    assertThat(services.deliveries(render1))
        .extracting(Deliver::item)
        .containsExactly(EndOfChannel.INSTANCE);
    assertThat(services.deliveries(CLIENT))
        .extracting(Deliver::item)
        .containsExactly(EndOfChannel.INSTANCE);
    assertThat(engine.status()).isEqualTo(TaskStatus.FINISHING);
    assertThat(services.finished).isZero();
    assertThat(services.credits(SRC1)).as("no grant for a consumed end").isEmpty();

    engine.onCredit(new Credit(t.outputTo(render0), 2));
    assertThat(services.deliveries(render0)).extracting(Deliver::seq).containsExactly(0L, 1L);
    assertThat(services.deliveries(render0).get(1).item()).isEqualTo(EndOfChannel.INSTANCE);
    assertThat(engine.status()).isEqualTo(TaskStatus.FINISHED);
    assertThat(services.finished).isEqualTo(1);

    engine.onCredit(new Credit(t.outputTo(render0), 3));
    engine.onTick();
    assertThat(services.finished).isEqualTo(1);
    assertThat(engine.metrics().recordsOut()).as("records sent to downstream tasks").isEqualTo(1);
    assertThat(services.failures).isEmpty();
  }

  @Test
  void anItemAfterAPendingEndOfChannelIsAProtocolViolation() {
    // One count task reading from two source tasks.
    Task t = services.task(wordCount(2, 1), "count", 0, settings(1, 4), store);
    t.engine().start(0);
    int in = t.inputFrom(SRC0);
    // Block the task: five one-record output batches on a window of four.
    t.engine().onDeliver(new Deliver(in, 0, batch("a", "a", "a", "a", "a")));
    assertThat(t.engine().metrics().backpressured()).isTrue();
    t.engine().onDeliver(new Deliver(in, 1, EndOfChannel.INSTANCE));
    t.engine().onDeliver(new Deliver(in, 2, batch("late")));
    // Unblocked, the task must not process "late": its channel had ended before it.
    t.engine().onCredit(new Credit(t.setup().clientChannel(), 100));
    assertThat(services.records(CLIENT)).doesNotContain(kv("late", 1));
    assertThat(services.failures)
        .singleElement()
        .satisfies(e -> assertThat(e.message()).contains("after end-of-channel"));
  }

  // ------------------------------------------------------------------ sources

  @Test
  void aSourceReadsOnlyWhatIsAvailableReportsLagAndFinishesAtItsCount() {
    DataflowBuilder b = Dataflow.builder("gen");
    b.source(
            SourceSpec.generator("numbers", (index, seed) -> index)
                .rate(RateSchedule.constant(1000)) // one record per millisecond
                .count(50))
        .sink(SinkSpec.collecting("out"));
    Task t = services.task(b.build(), "numbers", 0, settings(1000, 8), null);
    TaskEngine engine = t.engine();
    engine.start(0);
    assertThat(services.takeTimer(TaskTimer.POLL)).isEqualTo(pollIn(0));

    // t = 0: nothing is available yet; the next record is due at 1 ms.
    engine.onTimer(TaskTimer.POLL);
    assertThat(engine.metrics().recordsIn()).isZero();
    assertThat(services.takeTimer(TaskTimer.POLL)).isEqualTo(pollIn(1));

    services.nowMillis = 10;
    TaskMetricsSnapshot lagging = engine.metrics();
    assertThat(lagging.lagRecords()).isEqualTo(10);
    assertThat(lagging.lagSeconds()).isEqualTo(0.009); // the oldest unread record appeared at 1 ms
    engine.onTimer(TaskTimer.POLL);
    assertThat(engine.metrics().recordsIn()).isEqualTo(10);
    assertThat(engine.metrics().lagRecords()).isZero();
    assertThat(engine.metrics().lagSeconds()).isZero();
    assertThat(services.takeTimer(TaskTimer.POLL)).isEqualTo(pollIn(1));

    services.nowMillis = 30;
    assertThat(engine.metrics().lagRecords()).isEqualTo(20);
    assertThat(services.takeTimer(TaskTimer.FLUSH)).isNotNull();
    engine.onTimer(TaskTimer.FLUSH);
    engine.onTimer(TaskTimer.POLL);
    assertThat(engine.metrics().recordsIn()).isEqualTo(30);

    services.nowMillis = 5_000; // far beyond the count: only 50 records exist
    assertThat(engine.metrics().lagRecords()).isEqualTo(20);
    services.takeTimer(TaskTimer.POLL);
    engine.onTimer(TaskTimer.POLL);
    assertThat(engine.metrics().recordsIn()).isEqualTo(50);
    // the end waits for the coordinator, which lets it through when no reconfiguration runs
    assertThat(engine.status()).isEqualTo(TaskStatus.RUNNING);
    assertThat(services.sent)
        .extracting(FakeServices.Sent::message)
        .contains(new EpochMessage.InputEnded(engine.metrics().task()));
    engine.onCommand(new EpochMessage.EndInput(0));
    services.takeTimer(TaskTimer.POLL);
    engine.onTimer(TaskTimer.POLL);
    assertThat(engine.status()).isEqualTo(TaskStatus.FINISHED);
    assertThat(services.finished).isEqualTo(1);

    List<Object> expected = new ArrayList<>();
    for (long i = 0; i < 50; i++) {
      expected.add(i);
    }
    assertThat(services.records(CLIENT)).containsExactlyElementsOf(expected);
    assertThat(services.deliveries(CLIENT))
        .last()
        .extracting(Deliver::item)
        .isEqualTo(EndOfChannel.INSTANCE);
    assertThat(engine.metrics().lagRecords()).isZero();
  }

  @Test
  void aSourceReadsAtMostOneBatchPerPollAndStopsWhenBackpressured() {
    DataflowBuilder b = Dataflow.builder("gen");
    b.source(SourceSpec.generator("numbers", (index, seed) -> index).count(100))
        .sink(SinkSpec.collecting("out"));
    Task t = services.task(b.build(), "numbers", 0, settings(10, 2), null);
    TaskEngine engine = t.engine();
    engine.start(0);
    services.takeTimer(TaskTimer.POLL);

    engine.onTimer(TaskTimer.POLL);
    assertThat(engine.metrics().recordsIn()).isEqualTo(10);
    assertThat(services.takeTimer(TaskTimer.POLL)).isEqualTo(pollIn(0));
    engine.onTimer(TaskTimer.POLL);
    engine.onTimer(TaskTimer.POLL);
    // Two batches sent on a window of two, the third queued: no further poll is asked for.
    assertThat(engine.metrics().recordsIn()).isEqualTo(30);
    assertThat(engine.metrics().backpressured()).isTrue();
    services.timers.clear();
    engine.onTimer(TaskTimer.POLL);
    assertThat(engine.metrics().recordsIn()).as("a blocked source reads nothing").isEqualTo(30);
    assertThat(engine.metrics().lagRecords()).isEqualTo(70);
    assertThat(services.timers).isEmpty();

    engine.onCredit(new Credit(t.setup().clientChannel(), 3));
    assertThat(services.takeTimer(TaskTimer.POLL)).as("credit resumes polling").isNotNull();
    assertThat(services.records(CLIENT)).hasSize(30);
  }

  private static Scheduled pollIn(long millis) {
    return new Scheduled(TaskTimer.POLL, millis);
  }
}
