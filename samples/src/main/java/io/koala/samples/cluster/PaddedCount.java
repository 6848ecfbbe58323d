package io.koala.samples.cluster;

import io.koala.function.Collector;
import io.koala.function.KeyValue;
import io.koala.function.KeyedProcessFunction;
import io.koala.samples.PaddedState;
import io.koala.state.Codec;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;

/**
 * A running count per key, kept in a state of exactly {@code stateBytes} bytes, that emits (key,
 * count): a key read n times emits 1..n, each once, whatever the reconfigurations and failures (the
 * count of {@link ClusterWorkload} and of the benchmarks' soak, which extends it to inject faults).
 */
public class PaddedCount extends KeyedProcessFunction<Long, Long, KeyValue<Long, Long>> {
  private final int stateBytes;
  private ValueState<Counter> count;

  public PaddedCount(int stateBytes) {
    this.stateBytes = stateBytes;
  }

  @Override
  public void open(KeyedStateContext ctx) {
    count = ctx.valueState("count", Counter.codec(stateBytes));
  }

  @Override
  public void process(Long key, Context<Long> ctx, Collector<KeyValue<Long, Long>> out) {
    Counter c = count.value();
    long n = c == null ? 1 : c.count() + 1;
    count.update(new Counter(n, c == null ? new byte[stateBytes - Counter.BYTES] : c.padding()));
    out.collect(new KeyValue<>(key, n));
  }

  /** A counter and its padding. */
  record Counter(long count, byte[] padding) {
    static final int BYTES = 8;

    static Codec<Counter> codec(int stateBytes) {
      return PaddedState.codec(
          stateBytes,
          BYTES,
          "a counter",
          Counter::padding,
          (c, buf) -> buf.putLong(c.count()),
          (buf, padding) -> new Counter(buf.getLong(), padding));
    }
  }
}
