package io.koala.testkit.verify;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedStage;
import io.koala.dataflow.Stage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.function.KeyValue;
import io.koala.function.KeyedProcessFunction;
import io.koala.function.RecordErrorPolicy;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import io.koala.window.WindowAssigner;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The workloads of {@code koala verify}: a keyed aggregate feeding a second one, an event-time
 * window, an interval join, and an arrival-order-sensitive "average of the last 10 values per key".
 * Record {@code i} has key {@code i % 40} and event time {@code i} ms; a source has 2 partitions (8
 * where the workload rescales it) and record {@code i} is in partition {@code i % 2} ({@code i %
 * 8}), so every key comes from one partition, in order.
 */
public final class Workloads {
  private Workloads() {}

  /** Distinct keys. A multiple of the partitions, so a key lives in one partition. */
  public static final int KEYS = 40;

  /** Every workload. */
  public static List<Workload> all() {
    return List.of(new KeyedCounts(), new Windows(), new Join(), new LastTenAverage());
  }

  /** The workload named {@code name}. */
  public static Workload named(String name) {
    return all().stream()
        .filter(w -> w.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "no workload '"
                        + name
                        + "'; workloads: "
                        + all().stream().map(Workload::name).toList()));
  }

  /** A deterministic, scrambled value for record {@code i}. */
  static long value(long i) {
    long x = i * 0x9E3779B97F4A7C15L;
    x ^= x >>> 29;
    return Math.floorMod(x, 1000);
  }

  private static SourceSpec<Long> numbers(String name, long records, double rate) {
    return numbers(name, records, rate, 2);
  }

  /** A source the schedules rescale: as many partitions as it may get tasks, and more. */
  private static SourceSpec<Long> rescaledNumbers(String name, long records, double rate) {
    return numbers(name, records, rate, 8);
  }

  private static SourceSpec<Long> numbers(String name, long records, double rate, int partitions) {
    return SourceSpec.generator(name, (i, seed) -> i)
        .partitions(partitions)
        .count(records)
        .rate(rate > 0 ? RateSchedule.constant(rate) : RateSchedule.unlimited())
        .eventTime(i -> i);
  }

  private static int p(Map<String, Integer> parallelism, String operator) {
    return parallelism.getOrDefault(operator, 2);
  }

  /**
   * Each record scaled by a stage without keyed input ("scale", fed round-robin by a source of one
   * task), then a running count per key ("count"), and a running count of those counts per key
   * ("recount"). One record in 101 fails "scale" and goes to the dead letters, which "letter" names
   * ("dead-letters"): every task but theirs sends them on, whatever moves, "letter" included.
   */
  static final class KeyedCounts implements Workload {
    @Override
    public String name() {
      return "keyed-count";
    }

    @Override
    public List<String> keyedOperators() {
      return List.of("count", "recount");
    }

    @Override
    public List<String> statelessOperators() {
      return List.of("scale", "letter");
    }

    /** The running count of each key, kept by {@code count(...)} as its accumulator. */
    @Override
    public ReadState readState() {
      return new ReadState(
          "count", "accumulator", java.util.stream.LongStream.range(0, KEYS).boxed().toList());
    }

    @Override
    public List<String> sinks() {
      return List.of("counts", "recounts", "dead-letters");
    }

    @Override
    public Dataflow dataflow(Map<String, Integer> parallelism, long records, double rate) {
      DataflowBuilder b =
          Dataflow.builder(name())
              .parallelism(2)
              .onRecordError(RecordErrorPolicy.deadLetter(records));
      // one source task, so "scale" with any other parallelism reads a rebalance, not a forward
      Stage<KeyValue<Long, Long>> counts =
          b.source(numbers("n", records, rate))
              .parallelism(1)
              .map(
                  "scale",
                  (Long i) -> {
                    if (i % 101 == 50) {
                      throw new IllegalArgumentException("poison " + i);
                    }
                    return i * 3;
                  })
              .parallelism(p(parallelism, "scale"))
              .keyBy(i -> i / 3 % KEYS)
              .count("count")
              .parallelism(p(parallelism, "count"));
      counts.sink(SinkSpec.collecting("counts"));
      counts
          .keyBy(KeyValue::key)
          .count("recount")
          .parallelism(p(parallelism, "recount"))
          .sink(SinkSpec.collecting("recounts"));
      b.deadLetters()
          .map("letter", d -> d.operator() + " " + d.record() + ": " + d.error()) // not the task
          .parallelism(p(parallelism, "letter"))
          .sink(SinkSpec.collecting("dead-letters"));
      return b.build();
    }
  }

  /**
   * Sum of values per key over 50 ms tumbling event-time windows, the records passing first through
   * a stage without keyed input ("pass", fed round-robin by a source of one task, which pairs each
   * with its key and value): a window fires on the watermark combined over that stage's tasks,
   * however many there are, and a record it would find late is missing from its window's sum.
   */
  static final class Windows implements Workload {
    @Override
    public String name() {
      return "window";
    }

    @Override
    public List<String> keyedOperators() {
      return List.of("window");
    }

    @Override
    public List<String> statelessOperators() {
      return List.of("pass");
    }

    @Override
    public List<String> sinks() {
      return List.of("windows");
    }

    @Override
    public Dataflow dataflow(Map<String, Integer> parallelism, long records, double rate) {
      DataflowBuilder b = Dataflow.builder(name()).parallelism(2);
      b.source(numbers("n", records, rate), WatermarkStrategy.monotonousTimestamps())
          .parallelism(1)
          .map("pass", (Long i) -> new KeyValue<>(i % KEYS, value(i)))
          .parallelism(p(parallelism, "pass"))
          .keyBy(KeyValue::key)
          .window(WindowAssigner.tumbling(Duration.ofMillis(50)))
          // a sum, whatever the order: round-robin through "pass" mixes each key's records
          .reduce("window", (a, x) -> new KeyValue<>(a.key(), a.value() + x.value()))
          .parallelism(p(parallelism, "window"))
          .sink(SinkSpec.collecting("windows"));
      return b.build();
    }
  }

  /**
   * Left record i joins right record j of the same key when |i − j| ≤ 100 ms; the two sources are
   * rescaled and moved too, so a watermark mistake across a split's move drops a pair.
   */
  static final class Join implements Workload {
    @Override
    public String name() {
      return "join";
    }

    @Override
    public List<String> keyedOperators() {
      return List.of("join");
    }

    @Override
    public List<String> statelessOperators() {
      return List.of("left", "right");
    }

    @Override
    public List<String> sinks() {
      return List.of("pairs");
    }

    @Override
    public Dataflow dataflow(Map<String, Integer> parallelism, long records, double rate) {
      DataflowBuilder b = Dataflow.builder(name()).parallelism(2);
      KeyedStage<Long, Long> left =
          b.source(rescaledNumbers("left", records, rate), WatermarkStrategy.monotonousTimestamps())
              .parallelism(p(parallelism, "left"))
              .keyBy(i -> i % KEYS);
      KeyedStage<Long, Long> right =
          b.source(
                  rescaledNumbers("right", records, rate), WatermarkStrategy.monotonousTimestamps())
              .parallelism(p(parallelism, "right"))
              .keyBy(i -> i % KEYS);
      left.intervalJoin(right)
          .between(Duration.ofMillis(-100), Duration.ofMillis(100))
          .apply("join", (l, r) -> new KeyValue<>(l, r))
          .parallelism(p(parallelism, "join"))
          .sink(SinkSpec.collecting("pairs"));
      return b.build();
    }
  }

  /**
   * Per key, the average of its last 10 values, emitted with the key's running record number: the
   * result depends on the order in which a key's records are processed. Its source is rescaled and
   * moved too: a key's records come from one partition, so they must keep their order across a move
   * of that partition from one source task to another.
   */
  static final class LastTenAverage implements Workload {
    @Override
    public String name() {
      return "last10-avg";
    }

    @Override
    public List<String> keyedOperators() {
      return List.of("last10");
    }

    @Override
    public List<String> statelessOperators() {
      return List.of("n");
    }

    @Override
    public List<String> sinks() {
      return List.of("averages");
    }

    @Override
    public Dataflow dataflow(Map<String, Integer> parallelism, long records, double rate) {
      DataflowBuilder b = Dataflow.builder(name()).parallelism(2);
      b.registerTypes(long[].class, Average.class);
      b.source(rescaledNumbers("n", records, rate))
          .parallelism(p(parallelism, "n"))
          .keyBy(i -> i % KEYS)
          .process("last10", LastTen::new)
          .parallelism(p(parallelism, "last10"))
          .sink(SinkSpec.collecting("averages"));
      return b.build();
    }
  }

  /** The {@code n}-th record of {@code key} saw {@code average} over its last 10 values. */
  public record Average(long key, long n, double average) {}

  /** State: {@code [n, v(n-9), ..., v(n)]} as a ring of the last 10 values plus the count. */
  static final class LastTen extends KeyedProcessFunction<Long, Long, Average> {
    private ValueState<long[]> ring;

    @Override
    public void open(KeyedStateContext ctx) {
      ring = ctx.valueState("last10", long[].class);
    }

    @Override
    public void process(Long i, Context<Long> ctx, Collector<Average> out) {
      long[] r = ring.value();
      if (r == null) {
        r = new long[11];
      }
      long n = ++r[0];
      r[1 + (int) ((n - 1) % 10)] = value(i);
      ring.update(r);
      long sum = 0;
      int m = (int) Math.min(n, 10);
      for (int k = 0; k < m; k++) {
        sum += r[1 + k];
      }
      out.collect(new Average(ctx.currentKey(), n, (double) sum / m));
    }
  }
}
