package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskMetricsSnapshot.OperatorCounts;
import io.koala.operator.Operator;
import io.koala.operator.OperatorContext;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.store.InMemoryStateStore;
import io.koala.task.FakeServices.Task;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every operator of a task's chain is counted on its own: what it was given, what it emitted on its
 * main output, its rate and its late records, whether it heads the chain or not.
 */
class OperatorMetricsTest {
  private static final int RECORDS = 100;

  private final FakeServices services = new FakeServices();
  private final InMemoryStateStore store = new InMemoryStateStore();

  @AfterEach
  void close() {
    store.close();
  }

  private static ChannelSettings settings() {
    return new ChannelSettings(1_000, 1 << 20, 5, 8);
  }

  /** Drops multiples of 4 as late records, passes the others on. */
  static final class DropMultiplesOfFour implements Operator<Long, Long> {
    private OperatorContext<Long> ctx;

    @Override
    public void open(OperatorContext<Long> ctx) {
      this.ctx = ctx;
    }

    @Override
    public void process(Long value, long timestamp, int input) {
      if (value % 4 == 0) {
        ctx.lateRecordDropped();
      } else {
        ctx.output().emit(value, timestamp);
      }
    }
  }

  @Test
  void aSourceTasksChainCountsEachOperator() {
    DataflowBuilder b = Dataflow.builder("chain");
    b.source(SourceSpec.generator("numbers", (index, seed) -> index).count(RECORDS))
        .map("triple", (Long x) -> x * 3)
        .transform("drop", DropMultiplesOfFour::new)
        .filter("big", (Long x) -> x > 60)
        .sink(SinkSpec.collecting("out"));
    Task t = services.task(b.build(), "numbers", 0, settings(), null);
    TaskEngine engine = t.engine();
    engine.start(0);
    services.takeTimer(TaskTimer.POLL);
    engine.onTimer(TaskTimer.POLL);
    services.nowMillis = 1_000;
    engine.onTick(); // one second since the start: rates are the counts per second

    long dropped = 0;
    long big = 0;
    for (long i = 0; i < RECORDS; i++) {
      long tripled = i * 3;
      if (tripled % 4 == 0) {
        dropped++;
      } else if (tripled > 60) {
        big++;
      }
    }
    long kept = RECORDS - dropped;
    TaskMetricsSnapshot m = engine.metrics();
    assertThat(m.operators())
        .extracting(
            o -> o.operator().name(),
            OperatorCounts::recordsIn,
            OperatorCounts::recordsOut,
            OperatorCounts::recordsInPerSecond,
            OperatorCounts::lateRecords)
        .containsExactly(
            tuple("numbers", (long) RECORDS, (long) RECORDS, (double) RECORDS, 0L),
            tuple("triple", (long) RECORDS, (long) RECORDS, (double) RECORDS, 0L),
            tuple("drop", (long) RECORDS, kept, (double) RECORDS, dropped),
            tuple("big", kept, big, (double) kept, 0L),
            tuple("out", big, 0L, (double) big, 0L));
    engine.onTimer(TaskTimer.FLUSH);
    assertThat(services.records(TaskEngine.CLIENT)).hasSize((int) big);
    assertThat(m.recordsIn()).as("the task's: its source's reads").isEqualTo(RECORDS);
    assertThat(m.recordsInPerSecond()).isEqualTo(RECORDS);
    assertThat(m.lateRecords()).as("the task's: its operators'").isEqualTo(dropped);
    assertThat(m.recordsOut()).as("a chained sink sends nothing downstream").isZero();
    assertThat(m.released().operators())
        .as("a released task keeps its counts, without rates")
        .extracting(OperatorCounts::recordsIn, OperatorCounts::recordsInPerSecond)
        .containsExactly(
            tuple((long) RECORDS, 0.0),
            tuple((long) RECORDS, 0.0),
            tuple((long) RECORDS, 0.0),
            tuple(kept, 0.0),
            tuple(big, 0.0));
  }

  @Test
  void aKeyedTasksChainedOperatorsCountWhatTheirHeadEmits() {
    DataflowBuilder b = Dataflow.builder("firsts");
    b.source(SourceSpec.collection("words", List.of("unused")))
        .keyBy((String w) -> w)
        .count("count")
        .filter("firsts", (KeyValue<String, Long> kv) -> kv.value() == 1)
        .sink(SinkSpec.collecting("out"));
    Task t = services.task(b.build(), "count", 0, settings(), store);
    t.engine().start(0);
    List<String> words = List.of("a", "b", "a", "b", "c", "a");
    t.engine().onDeliver(new Deliver(t.inputFrom(taskId("words", 0)), 0, batch(words.toArray())));

    long distinct = words.stream().distinct().count(); // a word counted once is a first
    TaskMetricsSnapshot m = t.engine().metrics();
    assertThat(m.operators())
        .extracting(o -> o.operator().name(), OperatorCounts::recordsIn, OperatorCounts::recordsOut)
        .containsExactly(
            tuple("count", (long) words.size(), (long) words.size()),
            tuple("firsts", (long) words.size(), distinct),
            tuple("out", distinct, 0L));
    assertThat(m.recordsIn()).isEqualTo(words.size());
  }
}
