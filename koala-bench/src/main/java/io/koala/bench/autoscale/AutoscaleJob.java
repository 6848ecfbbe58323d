package io.koala.bench.autoscale;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.samples.PaddedState;
import io.koala.state.Codec;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The experiment's dataflow: the diurnal source ({@code events}, one partition per worker), keyed
 * by key into {@code counts} — each key's running count, in exactly {@code stateBytes} bytes of
 * state, at the emulated per-task capacity — and a sink that counts what it is given and keeps each
 * key's highest count, which the run compares with the input's.
 */
public final class AutoscaleJob {
  /** The keyed operator the autoscaler scales. */
  public static final String TARGET = "counts";

  static final int MIN_STATE_BYTES = 16;

  private AutoscaleJob() {}

  /** A key's running count, as {@code counts} emits it. */
  public record KeyCount(long key, long count) {}

  /** What the sink saw: records, and each key's highest count. */
  public record Observed(LongAdder processed, AtomicLongArray counts) {
    public Observed(int keys) {
      this(new LongAdder(), new AtomicLongArray(keys));
    }
  }

  /**
   * The dataflow of {@code s} over {@code input}, {@code counts} at {@code parallelism} tasks; the
   * sink reports to {@code observed} (the embedded runtime runs every worker in this JVM).
   */
  public static Dataflow dataflow(
      AutoscaleSettings s, DiurnalInput input, int parallelism, Observed observed) {
    DataflowBuilder b = Dataflow.builder("autoscale").registerTypes(KeyCount.class);
    b.source(
            SourceSpec.generator("events", input::keyOf)
                .partitions(s.workers())
                .rate(input.schedule())
                .count(input.records())
                .seed(s.seed()))
        .parallelism(s.workers())
        .keyBy(k -> k, Long.class)
        .process(TARGET, () -> new Count(s.stateBytes()))
        .parallelism(parallelism)
        .capacity(s.taskCapacity())
        .sink(new Sink(observed));
    return b.build();
  }

  /** A count and the padding that brings its state to the experiment's size. */
  record Counter(long count, byte[] padding) {
    static Codec<Counter> codec(int stateBytes) {
      return PaddedState.codec(
          stateBytes,
          8,
          "a count",
          Counter::padding,
          (c, buf) -> buf.putLong(c.count()),
          (buf, padding) -> new Counter(buf.getLong(), padding));
    }
  }

  /** Counts a key's records. */
  static final class Count extends KeyedProcessFunction<Long, Long, KeyCount> {
    private final int stateBytes;
    private ValueState<Counter> counter;

    Count(int stateBytes) {
      this.stateBytes = stateBytes;
    }

    @Override
    public void open(KeyedStateContext ctx) {
      counter = ctx.valueState("count", Counter.codec(stateBytes));
    }

    @Override
    public void process(Long key, Context<Long> ctx, Collector<KeyCount> out) {
      Counter c = counter.value();
      long n = c == null ? 1 : c.count() + 1;
      counter.update(new Counter(n, c == null ? new byte[stateBytes - 8] : c.padding()));
      out.collect(new KeyCount(key, n));
    }
  }

  /** Counts records into {@code observed} and keeps each key's highest count. */
  private record Sink(Observed observed) implements SinkSpec<KeyCount> {
    @Override
    public String name() {
      return "out";
    }

    @Override
    public SinkWriter<KeyCount> open(SinkContext ctx) {
      return (value, timestamp) -> {
        observed.processed().increment();
        observed.counts().accumulateAndGet((int) value.key(), value.count(), Math::max);
      };
    }
  }
}
