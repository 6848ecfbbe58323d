package io.koala.bench;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.runtime.KoalaConfig;
import io.koala.samples.RecordRandom;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import java.nio.ByteBuffer;

/**
 * Keyed count: a generator of uniformly random long keys over a key space, a keyed function that
 * reads, increments and writes each key's count in LMDB (padded to {@code stateBytes}), and a
 * discarding sink. Measures throughput and per-batch latency after a warm-up.
 */
public final class KeyedCountBench {

  private KeyedCountBench() {}

  /**
   * Record {@code index}'s key: uniform over {@code [0, keys)}, a pure function of index and seed.
   */
  public static long keyOf(long index, long seed, long keys) {
    return Math.floorMod(RecordRandom.mix(index, seed), keys);
  }

  /** The dataflow of the bench. */
  public static Dataflow dataflow(BenchSettings s) {
    long keys = s.keys();
    DataflowBuilder b = Dataflow.builder("keyed-count").parallelism(s.parallelism());
    RateSchedule rate = s.rate() > 0 ? RateSchedule.constant(s.rate()) : RateSchedule.unlimited();
    int stateBytes = s.stateBytes();
    b.source(
            SourceSpec.generator("events", (i, seed) -> keyOf(i, seed, keys))
                .partitions(s.parallelism())
                .rate(rate)
                .seed(s.seed()))
        .keyBy((Long k) -> k)
        .process("count", () -> new Count(stateBytes))
        .sink(SinkSpec.discarding("counts"));
    return b.build();
  }

  /** Counts per key in a value of {@code stateBytes} bytes (the count in the first 8). */
  static final class Count extends KeyedProcessFunction<Long, Long, Long> {
    private final int stateBytes;
    private ValueState<byte[]> count;

    Count(int stateBytes) {
      this.stateBytes = Math.max(8, stateBytes);
    }

    @Override
    public void open(KeyedStateContext ctx) {
      count = ctx.valueState("count", byte[].class);
    }

    @Override
    public void process(Long key, Context<Long> ctx, Collector<Long> out) {
      byte[] v = count.value();
      if (v == null) {
        v = new byte[stateBytes];
      }
      ByteBuffer buf = ByteBuffer.wrap(v);
      long n = buf.getLong(0) + 1;
      buf.putLong(0, n);
      count.update(v);
      out.collect(n);
    }
  }

  /** Runs the bench and returns its figures. */
  public static BenchResult run(BenchSettings s, KoalaConfig base) throws InterruptedException {
    return BenchRunner.run("keyed-count", dataflow(s), "count", m -> s.keys(), s, base);
  }
}
