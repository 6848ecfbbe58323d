package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.job.JobStatus;
import io.koala.state.KeyedStateContext;
import io.koala.state.ListState;
import io.koala.state.TimeDomain;
import io.koala.state.ValueState;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A keyed co-process function: both inputs share the key's state and timers. */
class KeyedCoProcessTest {

  record Order(String customer, long ts) {}

  record Payment(String customer, long ts) {}

  /**
   * Orders register a timer 10 ms later, payments 5 ms later; both inputs append to lists of the
   * key and count into one shared value. A timer at {@code t} reports how many orders and payments
   * of the key are at or before {@code t} (the watermark guarantees they have all arrived), and a
   * timer at the end of time the shared count.
   */
  static final class Ledger extends KeyedCoProcessFunction<String, Order, Payment, String> {
    private ListState<Long> orders;
    private ListState<Long> payments;
    private ValueState<Long> seen;

    @Override
    public void open(KeyedStateContext ctx) {
      orders = ctx.listState("orders", Long.class);
      payments = ctx.listState("payments", Long.class);
      seen = ctx.valueState("seen", Long.class);
    }

    @Override
    public void processElement1(Order o, Context<String> ctx, Collector<String> out) {
      assertThat(ctx.currentKey()).isEqualTo(o.customer());
      assertThat(ctx.timestamp()).isEqualTo(o.ts());
      orders.add(o.ts());
      count();
      ctx.timerService().registerEventTimeTimer(o.ts() + 10);
      ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }

    @Override
    public void processElement2(Payment p, Context<String> ctx, Collector<String> out) {
      assertThat(ctx.currentKey()).isEqualTo(p.customer());
      payments.add(p.ts());
      count();
      ctx.timerService().registerEventTimeTimer(p.ts() + 5);
      ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }

    private void count() {
      Long n = seen.value();
      seen.update(n == null ? 1 : n + 1);
    }

    @Override
    public void onTimer(long t, OnTimerContext<String> ctx, Collector<String> out) {
      assertThat(ctx.timeDomain()).isEqualTo(TimeDomain.EVENT_TIME);
      if (t == Long.MAX_VALUE) {
        out.collect(ctx.currentKey() + " end seen=" + seen.value());
        return;
      }
      long o = orders.get().stream().filter(ts -> ts <= t).count();
      long p = payments.get().stream().filter(ts -> ts <= t).count();
      out.collect(ctx.currentKey() + "@" + t + " o=" + o + " p=" + p);
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void bothInputsShareTheKeysStateAndTimers(int parallelism) {
    DataflowBuilder b = Dataflow.builder("ledger").parallelism(parallelism);
    b.registerTypes(Order.class, Payment.class);
    WatermarkStrategy wm = WatermarkStrategy.boundedOutOfOrderness(Duration.ZERO);
    List<Order> orders = List.of(new Order("a", 1), new Order("b", 2), new Order("a", 11));
    List<Payment> payments =
        List.of(new Payment("a", 3), new Payment("a", 12), new Payment("b", 30));
    b.source(SourceSpec.collection("orders", orders).timestamps(Order::ts), wm)
        .keyBy(Order::customer)
        .connect(
            b.source(SourceSpec.collection("payments", payments).timestamps(Payment::ts), wm)
                .keyBy(Payment::customer))
        .process("ledger", Ledger::new)
        .sink(SinkSpec.collecting("out"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      List<String> out = job.collected("out");
      // a: timers 8 (payment 3), 11 (order 1), 17 (payment 12), 21 (order 11); b: 12, 35.
      assertThat(out.stream().filter(s -> s.startsWith("a")).toList())
          .containsExactly(
              "a@8 o=1 p=1", "a@11 o=2 p=1", "a@17 o=2 p=2", "a@21 o=2 p=2", "a end seen=4");
      assertThat(out.stream().filter(s -> s.startsWith("b")).toList())
          .containsExactly("b@12 o=1 p=0", "b@35 o=1 p=1", "b end seen=2");
    }
  }
}
