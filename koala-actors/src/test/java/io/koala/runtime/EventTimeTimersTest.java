package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.job.JobStatus;
import io.koala.state.KeyedStateContext;
import io.koala.state.ListState;
import io.koala.state.TimeDomain;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Event-time timers fire once the watermark passes them, in timestamp order per key. */
class EventTimeTimersTest {

  /** (key, timestamp) readings. */
  record Reading(String key, long ts) {}

  /**
   * Every reading registers a timer 10 ms after it. When a timer fires at {@code t} it emits how
   * many readings of the key are at or before {@code t - 10}: the watermark guarantees all of them
   * have arrived, so the answer does not depend on when watermarks come.
   */
  static final class CountBefore extends KeyedProcessFunction<String, Reading, String> {
    private ListState<Long> seen;

    @Override
    public void open(KeyedStateContext ctx) {
      seen = ctx.listState("seen", Long.class);
    }

    @Override
    public void process(Reading r, Context<String> ctx, Collector<String> out) {
      seen.add(r.ts());
      ctx.timerService().registerEventTimeTimer(r.ts() + 10);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext<String> ctx, Collector<String> out) {
      assertThat(ctx.timeDomain()).isEqualTo(TimeDomain.EVENT_TIME);
      assertThat(ctx.timerService().currentWatermark()).isGreaterThanOrEqualTo(timestamp);
      long n = seen.get().stream().filter(ts -> ts <= timestamp - 10).count();
      out.collect(ctx.currentKey() + "@" + timestamp + "=" + n);
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void timersFireInTimestampOrderWithKnownResults(int parallelism) {
    List<Reading> input =
        List.of(
            new Reading("a", 1),
            new Reading("b", 2),
            new Reading("a", 5),
            new Reading("a", 11), // after a's first deadline (11): next round
            new Reading("b", 20),
            new Reading("a", 30),
            new Reading("b", 31));
    DataflowBuilder b = Dataflow.builder("timers").parallelism(parallelism);
    b.registerTypes(Reading.class);
    b.source(
            SourceSpec.collection("readings", input).timestamps(Reading::ts),
            WatermarkStrategy.monotonousTimestamps())
        .keyBy(Reading::key)
        .process("count", CountBefore::new)
        .parallelism(parallelism)
        .sink(SinkSpec.collecting("out"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      List<String> out = job.collected("out");
      assertThat(out.stream().filter(s -> s.startsWith("a@")).toList())
          .containsExactly("a@11=1", "a@15=2", "a@21=3", "a@40=4");
      assertThat(out.stream().filter(s -> s.startsWith("b@")).toList())
          .containsExactly("b@12=1", "b@30=2", "b@41=3");
    }
  }
}
