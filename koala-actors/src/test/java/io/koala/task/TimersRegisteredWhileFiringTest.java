package io.koala.task;

import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.Watermark;
import io.koala.store.InMemoryStateStore;
import io.koala.task.FakeServices.Task;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An event-time timer registered while timers fire, at or below the watermark being applied, must
 * fire in the same advance (as in Flink), before the watermark is forwarded: otherwise its records
 * follow the watermark downstream and are late there.
 */
class TimersRegisteredWhileFiringTest {
  private final FakeServices services = new FakeServices();
  private final InMemoryStateStore store = new InMemoryStateStore();

  @AfterEach
  void close() {
    store.close();
  }

  /** A timer at 10 per key; when it fires it registers a follow-up at 11. */
  static final class Chain extends KeyedProcessFunction<String, String, String> {
    @Override
    public void process(String value, Context<String> ctx, Collector<String> out) {
      ctx.timerService().registerEventTimeTimer(10);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext<String> ctx, Collector<String> out) {
      out.collect(ctx.currentKey() + "@" + timestamp);
      if (timestamp == 10) {
        ctx.timerService().registerEventTimeTimer(11);
      }
    }
  }

  @Test
  void aTimerRegisteredInOnTimerBelowTheWatermarkFiresInTheSameAdvance() {
    DataflowBuilder b = Dataflow.builder("chain");
    b.source(SourceSpec.collection("words", List.of("unused")))
        .keyBy((String w) -> w)
        .process("chain", Chain::new)
        .sink(SinkSpec.collecting("out"));
    Task t = services.task(b.build(), "chain", 0, new ChannelSettings(100, 1 << 20, 5, 100), store);
    t.engine().start(0);
    int in = t.inputFrom(taskId("words", 0));
    t.engine().onDeliver(new Deliver(in, 0, FakeServices.batch("a")));
    t.engine().onDeliver(new Deliver(in, 1, new Watermark(20)));
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(TaskEngine.CLIENT)).containsExactly("a@10", "a@11");
  }
}
