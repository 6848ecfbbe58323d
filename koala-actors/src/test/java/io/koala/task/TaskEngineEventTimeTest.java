package io.koala.task;

import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeySelector;
import io.koala.function.KeyedProcessFunction;
import io.koala.function.OutputTag;
import io.koala.operator.Operator;
import io.koala.operator.OperatorContext;
import io.koala.operator.OperatorFactory;
import io.koala.operator.SinkOperator;
import io.koala.plan.InputEdge;
import io.koala.plan.LogicalPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.OperatorNode.Kind;
import io.koala.plan.Partitioning;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.Idle;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.Watermark;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.state.TimeDomain;
import io.koala.store.InMemoryStateStore;
import io.koala.store.Table;
import io.koala.task.FakeServices.Scheduled;
import io.koala.task.FakeServices.Task;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Event time in the task engine, driven with a fake host and a manual clock (DESIGN §4.5,
 * docs/hazards.md D2): watermarks as barriers behind the records before them, the minimum over
 * channels, idleness, end of input, keyed timers (order, chunks under backpressure, processing
 * time), side outputs and two-input operators.
 *
 * <p>Most tests run task {@code proc#0} of {@code src (1 or 2 tasks) → keyBy → proc (2 tasks) → out
 * (1 task)}: the task reads one channel per source task and writes one data channel, to {@code
 * out#0}, on which the order of items is checked.
 */
class TaskEngineEventTimeTest {
  private static final TaskId SRC0 = taskId("src", 0);
  private static final TaskId SRC1 = taskId("src", 1);
  private static final TaskId OUT = taskId("out", 0);
  private static final KeyEncoder KEYS = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));

  private final FakeServices services = new FakeServices();
  private final InMemoryStateStore store = new InMemoryStateStore();
  private final Map<Integer, Long> nextSeq = new HashMap<>();

  /** What the scripted functions saw, in order: one line per timer fired. */
  private final List<String> log = new ArrayList<>();

  @AfterEach
  void close() {
    store.close();
  }

  private static ChannelSettings settings(int maxRecords, int credits) {
    return new ChannelSettings(maxRecords, 1 << 20, 5, credits);
  }

  // ------------------------------------------------------------------ fixtures

  /** Key of a scripted record {@code "key/command"}. */
  static String keyOf(String value) {
    int slash = value.indexOf('/');
    return slash < 0 ? value : value.substring(0, slash);
  }

  /**
   * Runs the command of each record {@code "key/command"}: {@code eT} registers an event-time timer
   * at T, {@code pT} a processing-time timer at T, {@code o} emits the record, {@code n} does
   * nothing. A fired timer emits {@code key@T} ({@code key@Tp} in processing time) and logs it with
   * the watermark seen; an event-time timer of a key starting with {@code chain} registers a
   * processing-time timer 100 ms later.
   */
  static final class Scripted extends KeyedProcessFunction<String, String, String> {
    private final List<String> log;

    Scripted(List<String> log) {
      this.log = log;
    }

    @Override
    public void process(String value, Context<String> ctx, Collector<String> out) {
      String command = value.substring(value.indexOf('/') + 1);
      switch (command.charAt(0)) {
        case 'e' -> ctx.timerService().registerEventTimeTimer(Long.parseLong(command.substring(1)));
        case 'p' ->
            ctx.timerService().registerProcessingTimeTimer(Long.parseLong(command.substring(1)));
        case 'o' -> out.collect(value);
        case 'n' -> {}
        default -> throw new IllegalArgumentException("unknown command " + command);
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext<String> ctx, Collector<String> out) {
      boolean processing = ctx.timeDomain() == TimeDomain.PROCESSING_TIME;
      String fired = ctx.currentKey() + "@" + timestamp + (processing ? "p" : "");
      log.add(fired + " wm=" + ctx.timerService().currentWatermark());
      out.collect(fired);
      if (!processing && ctx.currentKey().startsWith("chain")) {
        ctx.timerService()
            .registerProcessingTimeTimer(ctx.timerService().currentProcessingTime() + 100);
      }
    }
  }

  /** {@code src} (at {@code sources} tasks) → keyBy → {@code proc} (2 tasks) → {@code out} (1). */
  private Dataflow keyed(int sources) {
    DataflowBuilder b = Dataflow.builder("ev");
    b.source(SourceSpec.collection("src", List.of("unused")).partitions(sources))
        .parallelism(sources)
        .keyBy(TaskEngineEventTimeTest::keyOf)
        .process("proc", () -> new Scripted(log))
        .parallelism(2)
        .sink(SinkSpec.discarding("out"))
        .parallelism(1);
    return b.build();
  }

  private Task proc(int sources, ChannelSettings settings) {
    Task t = services.task(keyed(sources), "proc", 0, settings, store);
    t.engine().start(0);
    assertThat(t.setup().inputs()).hasSize(sources);
    assertThat(t.setup().outputs())
        .singleElement()
        .satisfies(o -> assertThat(o.targets()).containsExactly(OUT));
    return t;
  }

  /** {@code n} keys starting with {@code prefix} whose buckets the task owns. */
  private static List<String> ownedKeys(Task t, String prefix, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; out.size() < n; i++) {
      String k = prefix + i;
      int bucket = Buckets.bucketOf(KEYS.encode(k), t.setup().buckets());
      if (t.setup().inputRouting().get(bucket) == t.setup().task().index()) {
        out.add(k);
      }
    }
    return out;
  }

  /** A batch of records, all at {@code timestamp}. */
  private static RecordBatch at(long timestamp, Object... values) {
    long[] ts = new long[values.length];
    Arrays.fill(ts, timestamp);
    return new RecordBatch(values.clone(), ts, values.length);
  }

  /** Delivers {@code item} on the channel from {@code from}, with the channel's next sequence. */
  private void send(Task t, TaskId from, ChannelItem item) {
    int channel = t.inputFrom(from);
    long seq = nextSeq.merge(channel, 1L, Long::sum) - 1;
    t.engine().onDeliver(new Deliver(channel, seq, item));
  }

  /**
   * The items sent to {@code target}, rendered: {@code B[r1, r2]}, {@code W5}, {@code I}, {@code
   * E}.
   */
  private List<String> trace(Object target) {
    return services.deliveries(target).stream().map(d -> render(d.item())).toList();
  }

  private static String render(ChannelItem item) {
    if (item instanceof RecordBatch b) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < b.size(); i++) {
        values.add(b.value(i));
      }
      return "B" + values;
    } else if (item instanceof Watermark w) {
      return "W" + w.timestamp();
    } else if (item == Idle.INSTANCE) {
      return "I";
    } else if (item == EndOfChannel.INSTANCE) {
      return "E";
    }
    throw new IllegalStateException("unhandled " + item);
  }

  /** The timestamps of the records sent to {@code target}, in order. */
  private List<Long> recordTimestamps(Object target) {
    List<Long> out = new ArrayList<>();
    for (Deliver d : services.deliveries(target)) {
      if (d.item() instanceof RecordBatch b) {
        for (int i = 0; i < b.size(); i++) {
          out.add(b.timestamp(i));
        }
      }
    }
    return out;
  }

  private static String cmds(List<String> keys, String command) {
    return keys.stream().map(k -> k + "/" + command).collect(Collectors.joining(","));
  }

  // ------------------------------------------------------------------ watermarks as barriers

  @Test
  void aWatermarkGoesOutOnlyAfterTheOutputOfTheRecordsBeforeIt() {
    Task t = proc(2, settings(100, 10));
    List<String> k = ownedKeys(t, "k", 2);

    send(t, SRC0, new Watermark(5));
    assertThat(trace(OUT)).as("channel 1 has not delivered a watermark: progress held").isEmpty();

    send(t, SRC1, at(3, k.get(0) + "/o", k.get(1) + "/o"));
    assertThat(trace(OUT)).as("a partial batch waits for its linger time").isEmpty();

    send(t, SRC1, new Watermark(10));
    assertThat(trace(OUT))
        .as("the partial batch goes out before the watermark")
        .containsExactly("B[" + k.get(0) + "/o, " + k.get(1) + "/o]", "W5");

    send(t, SRC0, at(7, k.get(0) + "/o"));
    send(t, SRC0, new Watermark(20));
    assertThat(trace(OUT)).endsWith("B[" + k.get(0) + "/o]", "W10").hasSize(4);
    assertThat(recordTimestamps(OUT)).containsExactly(3L, 3L, 7L);
    assertThat(t.engine().metrics().watermark()).isEqualTo(10);
    assertThat(services.failures).isEmpty();
  }

  @Test
  void aWatermarkBehindABackpressuredOutputWaitsUntilThatOutputHasGone() {
    Task t = proc(1, settings(1, 2));
    List<String> k = ownedKeys(t, "k", 3);
    int in = t.inputFrom(SRC0);
    int out = t.outputTo(OUT);

    send(t, SRC0, at(1, k.get(0) + "/o", k.get(1) + "/o", k.get(2) + "/o"));
    send(t, SRC0, new Watermark(50));
    assertThat(trace(OUT)).containsExactly("B[" + k.get(0) + "/o]", "B[" + k.get(1) + "/o]");
    assertThat(services.credits(SRC0))
        .as("the watermark is not consumed (nor credited) while the output is blocked")
        .containsExactly(new Credit(in, 3));
    assertThat(t.engine().metrics().watermark()).isEqualTo(Long.MIN_VALUE);

    t.engine().onCredit(new Credit(out, 3));
    assertThat(trace(OUT)).hasSize(3).last().isEqualTo("B[" + k.get(2) + "/o]");
    assertThat(services.credits(SRC0)).containsExactly(new Credit(in, 3), new Credit(in, 4));

    t.engine().onCredit(new Credit(out, 10));
    assertThat(trace(OUT)).hasSize(4).last().isEqualTo("W50");
    assertThat(services.deliveries(OUT)).extracting(Deliver::seq).containsExactly(0L, 1L, 2L, 3L);
  }

  @Test
  void theTaskWatermarkIsTheMinimumOverItsChannels() {
    Task t = proc(2, settings(100, 10));
    send(t, SRC0, new Watermark(100));
    assertThat(trace(OUT)).isEmpty();
    send(t, SRC1, new Watermark(40));
    send(t, SRC1, new Watermark(200));
    send(t, SRC0, new Watermark(90)); // behind this channel's own last one: ignored
    send(t, SRC0, new Watermark(150));
    send(t, SRC0, new Watermark(150));
    assertThat(trace(OUT)).containsExactly("W40", "W100", "W150");
    assertThat(t.engine().metrics().watermark()).isEqualTo(150);
  }

  // ------------------------------------------------------------------ idleness

  @Test
  void idleChannelsAreLeftOutAndIdleGoesOutOnceWhenEveryChannelIsIdle() {
    Task t = proc(2, settings(100, 10));
    String k = ownedKeys(t, "k", 1).get(0);

    send(t, SRC0, new Watermark(10));
    send(t, SRC1, Idle.INSTANCE);
    assertThat(trace(OUT)).as("channel 1 is left out").containsExactly("W10");
    send(t, SRC0, new Watermark(20));
    send(t, SRC0, Idle.INSTANCE);
    send(t, SRC1, Idle.INSTANCE);
    send(t, SRC0, Idle.INSTANCE);
    assertThat(trace(OUT)).as("Idle goes out once").containsExactly("W10", "W20", "I");

    // Data reactivates channel 1, which has no watermark yet: it holds progress again.
    send(t, SRC1, at(25, k + "/n"));
    send(t, SRC0, new Watermark(30));
    assertThat(trace(OUT)).hasSize(3);
    send(t, SRC1, new Watermark(25));
    assertThat(trace(OUT)).hasSize(4).last().isEqualTo("W25");

    send(t, SRC0, Idle.INSTANCE);
    send(t, SRC1, Idle.INSTANCE);
    assertThat(trace(OUT)).containsExactly("W10", "W20", "I", "W25", "I");
  }

  @Test
  void anIdleChannelNextToEndedOnesMakesTheTaskIdle() {
    Task t = proc(2, settings(100, 10));
    send(t, SRC0, EndOfChannel.INSTANCE);
    send(t, SRC1, Idle.INSTANCE);
    assertThat(trace(OUT)).containsExactly("I");
    assertThat(t.engine().status()).isEqualTo(TaskStatus.RUNNING);
  }

  @Test
  void idleGoesOutAgainAfterAForwardedWatermarkReactivatedTheChannelDownstream() {
    Task t = proc(2, settings(100, 10));
    send(t, SRC0, new Watermark(10));
    send(t, SRC1, new Watermark(10));
    send(t, SRC0, Idle.INSTANCE);
    send(t, SRC1, Idle.INSTANCE);
    assertThat(trace(OUT)).containsExactly("W10", "I");

    send(t, SRC0, new Watermark(20)); // channel 0 is active again, alone: watermark 20 goes out
    assertThat(trace(OUT)).containsExactly("W10", "I", "W20");
    // Downstream, watermark 20 made this channel active again (WatermarkTracker.onWatermark).
    send(t, SRC0, Idle.INSTANCE);
    assertThat(trace(OUT))
        .as("every channel is idle again: downstream must hear it, or it waits on us forever")
        .containsExactly("W10", "I", "W20", "I");
  }

  @Test
  void whenTheLastActiveChannelEndsAndTheRestAreIdleIdleGoesOut() {
    Task t = proc(2, settings(100, 10));
    send(t, SRC0, new Watermark(10));
    send(t, SRC1, new Watermark(5));
    send(t, SRC0, Idle.INSTANCE);
    assertThat(trace(OUT)).containsExactly("W5");
    send(t, SRC1, EndOfChannel.INSTANCE);
    assertThat(trace(OUT))
        .as("only idle channels are left open; downstream still holds at W5")
        .containsExactly("W5", "I");
  }

  // ------------------------------------------------------------------ end of input

  @Test
  void endOfChannelOnEveryInputFiresEveryEventTimeTimerBeforeEndOfChannelGoesOut() {
    Task t = proc(2, settings(100, 10));
    List<String> k = ownedKeys(t, "k", 3);
    send(
        t,
        SRC0,
        at(1, k.get(0) + "/e" + Long.MAX_VALUE, k.get(1) + "/e1000000", k.get(2) + "/e100"));
    send(t, SRC0, new Watermark(50));
    send(t, SRC1, new Watermark(60));
    assertThat(trace(OUT)).containsExactly("W50");

    send(t, SRC0, EndOfChannel.INSTANCE);
    assertThat(log).isEmpty();
    assertThat(trace(OUT)).as("an ended channel is left out").containsExactly("W50", "W60");

    send(t, SRC1, EndOfChannel.INSTANCE);
    assertThat(trace(OUT))
        .as("every timer fires, no MAX watermark item, then end-of-channel")
        .containsExactly(
            "W50",
            "W60",
            "B["
                + k.get(2)
                + "@100, "
                + k.get(1)
                + "@1000000, "
                + k.get(0)
                + "@"
                + Long.MAX_VALUE
                + "]",
            "E");
    assertThat(recordTimestamps(OUT)).containsExactly(100L, 1_000_000L, Long.MAX_VALUE);
    assertThat(log).allSatisfy(line -> assertThat(line).endsWith("wm=" + Long.MAX_VALUE));
    assertThat(t.engine().status()).isEqualTo(TaskStatus.FINISHED);
    assertThat(services.finished).isEqualTo(1);
    assertThat(store.stats().entries(Table.TIMERS)).isZero();
  }

  // ------------------------------------------------------------------ event-time timers

  @Test
  void eventTimeTimersFireInTimestampOrderBeforeTheWatermarkIsForwarded() {
    Task t = proc(1, settings(100, 10));
    List<String> k = ownedKeys(t, "k", 5);
    send(
        t,
        SRC0,
        at(
            1,
            k.get(0) + "/e30",
            k.get(1) + "/e10",
            k.get(2) + "/e20",
            k.get(3) + "/e10",
            k.get(4) + "/e25"));
    send(t, SRC0, new Watermark(5));
    assertThat(trace(OUT)).as("no timer is due at 5").containsExactly("W5");

    send(t, SRC0, new Watermark(20));
    assertThat(trace(OUT)).hasSize(3).last().isEqualTo("W20");
    assertThat(services.records(OUT))
        .as("both timers at 10 (in key-byte order), then 20")
        .hasSize(3)
        .endsWith(k.get(2) + "@20")
        .contains(k.get(1) + "@10", k.get(3) + "@10");
    assertThat(recordTimestamps(OUT))
        .as("records carry their timer's timestamp")
        .containsExactly(10L, 10L, 20L);
    assertThat(log).allSatisfy(line -> assertThat(line).endsWith("wm=20"));

    send(t, SRC0, new Watermark(30));
    assertThat(trace(OUT))
        .endsWith("B[" + k.get(4) + "@25, " + k.get(0) + "@30]", "W30")
        .hasSize(5);
    assertThat(recordTimestamps(OUT)).containsExactly(10L, 10L, 20L, 25L, 30L);

    send(t, SRC0, new Watermark(1_000));
    assertThat(trace(OUT)).hasSize(6).last().isEqualTo("W1000");
    assertThat(log).hasSize(5);
  }

  @Test
  void timerFiringPausesWithoutCreditAndTheWatermarkFollowsTheLastDueTimer() {
    // Chunks of two timers (maxBatchRecords), output batches of two records, two credits.
    Task t = proc(1, settings(2, 2));
    List<String> k = ownedKeys(t, "k", 7);
    int out = t.outputTo(OUT);
    String[] records = new String[7];
    for (int i = 0; i < 7; i++) {
      records[i] = k.get(i) + "/e" + (i + 1);
    }
    send(t, SRC0, at(0, (Object[]) records));
    assertThat(trace(OUT)).isEmpty();

    send(t, SRC0, new Watermark(100));
    assertThat(log)
        .as("three chunks fired: two batches sent, the third queued, then firing paused")
        .hasSize(6);
    assertThat(trace(OUT)).hasSize(2).noneMatch(s -> s.startsWith("W"));
    assertThat(t.engine().metrics().backpressured()).isTrue();

    t.engine().onCredit(new Credit(out, 3));
    assertThat(log).as("the last timer fired once the output drained").hasSize(7);
    assertThat(trace(OUT)).as("its record and the watermark wait for credit").hasSize(3);

    t.engine().onCredit(new Credit(out, 100));
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      expected.add(k.get(i) + "@" + (i + 1));
    }
    assertThat(services.records(OUT)).containsExactlyElementsOf(expected);
    assertThat(trace(OUT)).hasSize(5).last().isEqualTo("W100");
    assertThat(t.engine().metrics().backpressured()).isFalse();
  }

  @Test
  void timersRegisteredForAnotherKeyOrTimestampDoNotFireEarly() {
    Task t = proc(1, settings(100, 10));
    List<String> k = ownedKeys(t, "k", 2);
    send(t, SRC0, at(1, k.get(0) + "/e10", k.get(1) + "/e11"));
    send(t, SRC0, new Watermark(10));
    assertThat(log).containsExactly(k.get(0) + "@10 wm=10");
    send(t, SRC0, new Watermark(11));
    assertThat(log).containsExactly(k.get(0) + "@10 wm=10", k.get(1) + "@11 wm=11");
  }

  // ------------------------------------------------------------------ processing-time timers

  @Test
  void processingTimeTimersAskForAWakeUpAtTheEarliestAndFireWhenTheClockPassesThem() {
    Task t = proc(1, settings(100, 10));
    List<String> k = ownedKeys(t, "k", 3);
    services.timers.clear();
    services.nowMillis = 1_000;
    send(t, SRC0, at(1, k.get(0) + "/p1500", k.get(1) + "/p1200", k.get(2) + "/p3000"));
    assertThat(services.takeTimer(TaskTimer.PROCESSING_TIME))
        .isEqualTo(new Scheduled(TaskTimer.PROCESSING_TIME, 200));

    send(t, SRC0, new Watermark(5_000));
    assertThat(log).as("the watermark fires no processing-time timer").isEmpty();

    services.nowMillis = 1_199;
    t.engine().onTimer(TaskTimer.PROCESSING_TIME);
    assertThat(log).isEmpty();
    assertThat(services.takeTimer(TaskTimer.PROCESSING_TIME))
        .isEqualTo(new Scheduled(TaskTimer.PROCESSING_TIME, 1));

    services.nowMillis = 1_600;
    t.engine().onTimer(TaskTimer.PROCESSING_TIME);
    assertThat(log).containsExactly(k.get(1) + "@1200p wm=5000", k.get(0) + "@1500p wm=5000");
    assertThat(services.takeTimer(TaskTimer.PROCESSING_TIME))
        .as("the next wake-up is at the next timer")
        .isEqualTo(new Scheduled(TaskTimer.PROCESSING_TIME, 1_400));

    services.nowMillis = 3_000;
    t.engine().onTimer(TaskTimer.PROCESSING_TIME);
    assertThat(log).hasSize(3).last().isEqualTo(k.get(2) + "@3000p wm=5000");
    assertThat(services.takeTimer(TaskTimer.PROCESSING_TIME)).as("none left").isNull();

    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(OUT))
        .containsExactly(k.get(1) + "@1200p", k.get(0) + "@1500p", k.get(2) + "@3000p");
    assertThat(recordTimestamps(OUT))
        .as("processing-time results carry no event time")
        .containsOnly(Long.MIN_VALUE);
  }

  @Test
  void aProcessingTimeTimerRegisteredByAnEventTimeTimerGetsAWakeUp() {
    Task t = proc(1, settings(100, 10));
    String k = ownedKeys(t, "chain", 1).get(0);
    services.nowMillis = 1_000;
    send(t, SRC0, at(1, k + "/e10"));
    services.timers.clear();

    send(t, SRC0, new Watermark(10));
    assertThat(log).containsExactly(k + "@10 wm=10");
    assertThat(services.takeTimer(TaskTimer.PROCESSING_TIME))
        .isEqualTo(new Scheduled(TaskTimer.PROCESSING_TIME, 100));

    services.nowMillis = 1_100;
    t.engine().onTimer(TaskTimer.PROCESSING_TIME);
    assertThat(log).containsExactly(k + "@10 wm=10", k + "@1100p wm=10");
  }

  @Test
  void processingTimeTimersDoNotFireWhileTheOutputIsBackpressured() {
    Task t = proc(1, settings(1, 1));
    List<String> k = ownedKeys(t, "k", 3);
    int out = t.outputTo(OUT);
    send(t, SRC0, at(1, k.get(0) + "/p10", k.get(1) + "/p11", k.get(2) + "/p12"));
    send(t, SRC0, at(1, k.get(0) + "/o", k.get(1) + "/o"));
    assertThat(t.engine().metrics().backpressured()).isTrue();

    services.nowMillis = 100;
    for (int i = 0; i < 3; i++) {
      services.takeTimer(TaskTimer.PROCESSING_TIME);
      t.engine().onTimer(TaskTimer.PROCESSING_TIME);
    }
    assertThat(log).as("nothing fires while the output waits for credit").isEmpty();

    t.engine().onCredit(new Credit(out, 100));
    if (services.takeTimer(TaskTimer.PROCESSING_TIME) != null) {
      t.engine().onTimer(TaskTimer.PROCESSING_TIME);
    }
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(OUT))
        .containsExactly(
            k.get(0) + "/o",
            k.get(1) + "/o",
            k.get(0) + "@10p",
            k.get(1) + "@11p",
            k.get(2) + "@12p");
  }

  // ------------------------------------------------------------------ side outputs

  private static final OutputTag<Long> ODD = new OutputTag<>("odd");
  private static final OutputTag<Long> OTHER = new OutputTag<>("other");
  private static final OutputTag<Long> NOBODY = new OutputTag<>("nobody");

  /** Evens to the main output, odds to side output {@code odd}, all to {@code nobody}. */
  static final class Split implements Operator<Long, Long> {
    private OperatorContext<Long> ctx;

    @Override
    public void open(OperatorContext<Long> ctx) {
      this.ctx = ctx;
    }

    @Override
    public void process(Long value, long timestamp, int input) {
      if (value % 2 == 0) {
        ctx.output().emit(value, timestamp);
      } else {
        ctx.sideOutput(ODD).emit(value, timestamp);
      }
      ctx.sideOutput(NOBODY).emit(value, timestamp);
    }

    @Override
    public void processWatermark(long watermark) {
      ctx.output().emit(-watermark, watermark); // seen before the watermark is forwarded
    }
  }

  @Test
  void aSideOutputReachesOnlyTheEdgesOfItsTag() {
    DataflowBuilder b = Dataflow.builder("side");
    Stage<Long> split =
        b.source(SourceSpec.collection("src", List.of(0L)).partitions(2))
            .parallelism(2)
            .transform("split", Split::new)
            .parallelism(1);
    split.sink(SinkSpec.discarding("evens"));
    split.sideOutput(ODD).sink(SinkSpec.discarding("odds"));
    split.sideOutput(OTHER).sink(SinkSpec.discarding("others"));
    Task t = services.task(b.build(), "split", 0, settings(100, 10), null);
    t.engine().start(0);
    TaskId evens = taskId("evens", 0);
    TaskId odds = taskId("odds", 0);
    TaskId others = taskId("others", 0);

    send(t, SRC0, at(1, 1L, 2L, 3L));
    send(t, SRC1, at(2, 4L, 5L));
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(evens)).containsExactly(2L, 4L);
    assertThat(services.records(odds)).containsExactly(1L, 3L, 5L);
    assertThat(services.records(others)).isEmpty();
    assertThat(services.records(TaskEngine.CLIENT)).isEmpty();

    send(t, SRC0, new Watermark(10));
    send(t, SRC1, new Watermark(10));
    assertThat(trace(evens))
        .as("the operator sees the watermark, then it goes out on every edge")
        .containsExactly("B[2, 4]", "B[-10]", "W10");
    assertThat(trace(odds)).containsExactly("B[1, 3, 5]", "W10");
    assertThat(trace(others)).containsExactly("W10");
    assertThat(services.failures).isEmpty();
  }

  // ------------------------------------------------------------------ two logical inputs

  /** Emits {@code input:value:key} for every record. */
  static final class Tag implements Operator<String, String> {
    private OperatorContext<String> ctx;

    @Override
    public void open(OperatorContext<String> ctx) {
      this.ctx = ctx;
    }

    @Override
    public void process(String value, long timestamp, int input) {
      ctx.output().emit(input + ":" + value + ":" + ctx.currentKey(), timestamp);
    }
  }

  @Test
  void aTwoInputOperatorSeesEachRecordOnItsLogicalInputKeyedByThatInputsSelector() {
    KeySelector<String, String> whole = v -> v;
    KeySelector<String, String> beforeEquals = v -> v.split("=")[0];
    OperatorFactory<String, String> tag = Tag::new;
    OperatorFactory<String, Void> sink = () -> new SinkOperator<>(SinkSpec.collecting("out"));
    OperatorId left = new OperatorId("left");
    OperatorId right = new OperatorId("right");
    OperatorId join = new OperatorId("join");
    List<OperatorNode> nodes =
        List.of(
            new OperatorNode(
                left,
                Kind.SOURCE,
                1,
                List.of(),
                SourceSpec.collection("left", List.of("x")),
                null,
                false),
            new OperatorNode(
                right,
                Kind.SOURCE,
                1,
                List.of(),
                SourceSpec.collection("right", List.of("x")),
                null,
                false),
            new OperatorNode(
                join,
                Kind.TRANSFORM,
                1,
                List.of(
                    new InputEdge(left, Partitioning.KEYED, whole, 0, null),
                    new InputEdge(right, Partitioning.KEYED, beforeEquals, 1, null)),
                null,
                tag,
                true),
            new OperatorNode(
                new OperatorId("out"),
                Kind.SINK,
                1,
                List.of(new InputEdge(join, Partitioning.FORWARD, null)),
                null,
                sink,
                false));
    LogicalPlan plan = LogicalPlan.of("two-inputs", nodes, 16, List.of());
    Task t = services.task(plan, "join", 0, settings(100, 10), store);
    t.engine().start(0);

    send(t, taskId("left", 0), at(1, "a", "b"));
    send(t, taskId("right", 0), at(2, "a=1", "c=2"));
    send(t, taskId("left", 0), at(3, "c"));
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(TaskEngine.CLIENT))
        .containsExactly("0:a:a", "0:b:b", "1:a=1:a", "1:c=2:c", "0:c:c");
    assertThat(services.failures).isEmpty();

    // Each logical input is a channel of its own for the watermark.
    send(t, taskId("left", 0), EndOfChannel.INSTANCE);
    assertThat(t.engine().status()).isEqualTo(TaskStatus.RUNNING);
    send(t, taskId("right", 0), EndOfChannel.INSTANCE);
    assertThat(t.engine().status()).isEqualTo(TaskStatus.FINISHED);
  }
}
