package io.koala.task;

import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.LogSource;
import io.koala.connector.PartitionReader;
import io.koala.connector.RateSchedule;
import io.koala.connector.ReadResult;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceContext;
import io.koala.connector.SourceOutput;
import io.koala.connector.SourceReader;
import io.koala.connector.SourceSpec;
import io.koala.connector.SplitOutput;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.Idle;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.Watermark;
import io.koala.task.FakeServices.Task;
import io.koala.time.WatermarkTracker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A source task's watermarks, driven with a manual clock: per partition the largest timestamp minus
 * the bound minus one, the minimum over the task's active partitions, sent at most once per
 * watermark interval, and Idle once every partition has been idle for the timeout.
 *
 * <p>Each source task here (one, reading two partitions) feeds {@code out} at parallelism 2, so its
 * items go out on two data channels.
 */
class SourceWatermarksTest {
  private static final TaskId OUT0 = taskId("out", 0);
  private static final TaskId OUT1 = taskId("out", 1);
  private static final long INTERVAL = 50;

  private final FakeServices services = new FakeServices();

  private static ChannelSettings settings() {
    return new ChannelSettings(10_000, 1 << 20, 5, 1_000, INTERVAL);
  }

  private Task source(SourceSpec<Long> spec, WatermarkStrategy watermarks) {
    DataflowBuilder b = Dataflow.builder("wm");
    b.source(spec, watermarks).parallelism(1).sink(SinkSpec.discarding("out")).parallelism(2);
    Task t = services.task(b.build(), spec.name(), 0, settings(), null);
    t.engine().start(0);
    return t;
  }

  /** Moves the clock to {@code now} and polls, as the host does when the POLL timer fires. */
  private void pollAt(Task t, long now) {
    services.nowMillis = now;
    services.takeTimer(TaskTimer.POLL);
    t.engine().onTimer(TaskTimer.POLL);
  }

  private List<Long> watermarks(TaskId target) {
    List<Long> out = new ArrayList<>();
    for (Deliver d : services.deliveries(target)) {
      if (d.item() instanceof Watermark w) {
        out.add(w.timestamp());
      }
    }
    return out;
  }

  private long idles(TaskId target) {
    return services.deliveries(target).stream().filter(d -> d.item() == Idle.INSTANCE).count();
  }

  /** Record i: even ones (partition 0) at ts i, odd ones (partition 1) far ahead at 100·i. */
  private static SourceSpec<Long> generated(RateSchedule rate) {
    return generated(rate, true);
  }

  /** Record i at ts i, except on the partition ahead, whose records are at 100·i. */
  private static SourceSpec<Long> generated(RateSchedule rate, boolean oddAhead) {
    return SourceSpec.generator("gen", (index, seed) -> index)
        .partitions(2)
        .rate(rate)
        .eventTime(v -> (v % 2 == 1) == oddAhead ? v * 100 : v);
  }

  @Test
  void watermarksAreTheMinimumOverPartitionsAndGoOutOncePerInterval() {
    Task t =
        source(
            generated(RateSchedule.constant(1_000)), // one record per millisecond
            WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(5)));

    pollAt(t, 0);
    pollAt(t, 10);
    assertThat(t.engine().metrics().recordsIn()).isEqualTo(10);
    assertThat(watermarks(OUT0)).as("not before the first interval has passed").isEmpty();
    for (long now = 11; now < 50; now++) {
      pollAt(t, now);
    }
    assertThat(watermarks(OUT0)).isEmpty();

    pollAt(t, 50);
    // 50 records: partition 0 has read up to 48, partition 1 up to 49·100.
    assertThat(watermarks(OUT0)).containsExactly(48L - 5 - 1);
    assertThat(watermarks(OUT1)).containsExactly(42L);
    assertThat(t.engine().metrics().watermark()).isEqualTo(42);
    for (long now = 51; now < 100; now++) {
      pollAt(t, now);
    }
    assertThat(watermarks(OUT0)).as("at most one per interval").containsExactly(42L);

    pollAt(t, 100);
    assertThat(watermarks(OUT0)).containsExactly(42L, 92L);
    assertThat(watermarks(OUT1)).containsExactly(42L, 92L);

    pollAt(t, 175); // the next is due at 150: it goes out at the first poll after
    assertThat(watermarks(OUT0)).containsExactly(42L, 92L, 168L);
    pollAt(t, 200);
    assertThat(watermarks(OUT0)).as("the interval counts from the last one").hasSize(3);
    pollAt(t, 225);
    assertThat(watermarks(OUT0)).containsExactly(42L, 92L, 168L, 218L);
    assertThat(idles(OUT0)).isZero();
    assertThat(services.failures).isEmpty();
  }

  @Test
  void aWatermarkFollowsTheRecordsReadBeforeIt() {
    Task t =
        source(
            generated(RateSchedule.constant(1_000)),
            WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(5)));
    pollAt(t, 0);
    pollAt(t, 50);
    for (TaskId out : List.of(OUT0, OUT1)) {
      List<Deliver> items = services.deliveries(out);
      assertThat(items).last().extracting(Deliver::item).isEqualTo(new Watermark(42));
      assertThat(items.subList(0, items.size() - 1))
          .allSatisfy(d -> assertThat(d.item()).isInstanceOf(RecordBatch.class));
    }
    assertThat(services.records(OUT0).size() + services.records(OUT1).size()).isEqualTo(50);
  }

  /** A log of 10 records, at timestamps 0..9, that declares watermark {@code declared}. */
  private static final class DeclaringSource implements LogSource<Long> {
    long available = 5;
    long declaredAfter = 5; // the records read before the declared watermark holds
    long declared = Long.MIN_VALUE;

    @Override
    public String name() {
      return "declaring";
    }

    @Override
    public int partitions() {
      return 1;
    }

    @Override
    public PartitionReader<Long> open(int partition, long startMillis) {
      return new PartitionReader<>() {
        @Override
        public long available(long nowMillis) {
          return available;
        }

        @Override
        public long end() {
          return 10;
        }

        @Override
        public Long read(long offset) {
          return offset;
        }

        @Override
        public long timestamp(long offset, Long value) {
          return value;
        }

        @Override
        public long availableAt(long offset) {
          return 0;
        }

        @Override
        public long watermark(long offset) {
          return offset >= declaredAfter ? declared : Long.MIN_VALUE;
        }
      };
    }
  }

  @ParameterizedTest(name = "with a strategy: {0}")
  @ValueSource(booleans = {false, true})
  void aWatermarkTheLogDeclaresGoesOutAtOnce(boolean withStrategy) {
    DeclaringSource log = new DeclaringSource();
    Task t =
        source(
            log,
            withStrategy
                ? WatermarkStrategy.boundedOutOfOrderness(Duration.ZERO)
                : WatermarkStrategy.none());
    log.declared = 1;
    pollAt(t, 0);
    // with the strategy, its watermark is higher: max timestamp 4, bound 0
    List<Long> expected = new ArrayList<>(List.of(withStrategy ? 4L - 1 : 1L));
    assertThat(watermarks(OUT0)).isEqualTo(expected);
    log.declared = 7;
    log.declaredAfter = 7; // holds only once records 5 and 6 have been read
    pollAt(t, 1);
    assertThat(watermarks(OUT0)).isEqualTo(expected);
    log.available = 7;
    pollAt(t, 2); // within the interval: a declared watermark does not wait for the next one
    expected.add(7L);
    assertThat(watermarks(OUT0)).isEqualTo(expected);
    assertThat(services.deliveries(OUT0))
        .last()
        .extracting(Deliver::item)
        .isEqualTo(new Watermark(7));
    assertThat(services.failures).isEmpty();
  }

  @Test
  void aSourceWithoutAWatermarkStrategySendsNone() {
    Task t = source(generated(RateSchedule.constant(1_000)), WatermarkStrategy.none());
    for (long now = 0; now <= 300; now += 10) {
      pollAt(t, now);
    }
    assertThat(watermarks(OUT0)).isEmpty();
    assertThat(idles(OUT0)).isZero();
    assertThat(t.engine().metrics().recordsIn()).isEqualTo(300);
  }

  /** 1000/s for 100 ms, then (in effect) nothing. */
  private static final RateSchedule BURST =
      RateSchedule.constant(1_000).then(Duration.ofMillis(100), 0.001);

  private static final WatermarkStrategy IDLE_AFTER_200 =
      WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(5))
          .withIdleness(Duration.ofMillis(200));

  @Test
  void aFullyIdleSourceSendsIdleOnce() {
    // Partition 0 is ahead: 0, 200, ...; partition 1 (1, 3, ...) holds the watermark.
    Task t = source(generated(BURST, false), IDLE_AFTER_200);
    for (long now = 0; now <= 250; now += 10) {
      pollAt(t, now);
    }
    assertThat(t.engine().metrics().recordsIn()).isEqualTo(100);
    assertThat(watermarks(OUT0)).containsExactly(49L - 5 - 1, 99L - 5 - 1);
    assertThat(idles(OUT0)).as("the last records were read at 100 ms").isZero();

    pollAt(t, 300);
    assertThat(idles(OUT0)).isEqualTo(1);
    assertThat(idles(OUT1)).isEqualTo(1);
    assertThat(services.deliveries(OUT0)).last().extracting(Deliver::item).isEqualTo(Idle.INSTANCE);
    for (long now = 310; now <= 1_000; now += 10) {
      pollAt(t, now);
    }
    assertThat(idles(OUT0)).as("once").isEqualTo(1);
    assertThat(watermarks(OUT0)).as("idleness moves no watermark").containsExactly(43L, 93L);
  }

  @Test
  void partitionsIdleAtTheSameCheckDoNotAdvanceTheWatermarkByVisitOrder() {
    // The same as above with partition 1 ahead: only the order of the partitions differs.
    Task t = source(generated(BURST, true), IDLE_AFTER_200);
    for (long now = 0; now <= 250; now += 10) {
      pollAt(t, now);
    }
    assertThat(watermarks(OUT0)).containsExactly(42L, 92L);

    pollAt(t, 300);
    assertThat(watermarks(OUT0))
        .as("both partitions went idle together; partition 0 is still at 92, not 99·100 − 6")
        .containsExactly(42L, 92L);
    assertThat(idles(OUT0)).isEqualTo(1);
  }

  /**
   * A reader that knows its split only once {@code announceAt} has passed (as a Kafka reader knows
   * its partitions once its consumer has connected), then reads records at 1,000 + i, one per
   * millisecond.
   */
  private record LateSplit(long announceAt) implements SourceSpec<Long> {
    @Override
    public String name() {
      return "late";
    }

    @Override
    public SourceReader<Long> createReader(SourceContext ctx) {
      return new SourceReader<>() {
        SourceOutput<Long> output;
        SplitOutput<Long> split;
        long next;

        @Override
        public void start(Map<String, Long> restored, SourceOutput<Long> output) {
          this.output = output;
        }

        @Override
        public ReadResult read(int max) {
          long now = ctx.currentTimeMillis();
          if (now < announceAt) {
            return ReadResult.waitUntil(announceAt);
          }
          if (split == null) {
            split = output.split("0");
          }
          for (; next < now - announceAt; next++) {
            split.emit(next, 1_000 + next);
          }
          return ReadResult.waitUntil(now + 1);
        }

        @Override
        public Map<String, Long> positions() {
          return split == null ? Map.of() : Map.of("0", next);
        }
      };
    }
  }

  @Test
  void aTaskWithoutASplitYetIsIdleAndGivesNoWatermark() {
    Task t = source(new LateSplit(200), WatermarkStrategy.monotonousTimestamps());
    for (long now = 0; now < 200; now += 10) {
      pollAt(t, now);
    }
    assertThat(watermarks(OUT0))
        .as("no event time before its split is known (not the end of the input's)")
        .isEmpty();
    assertThat(idles(OUT0)).isEqualTo(1);
    assertThat(t.engine().metrics().watermark())
        .as("the task's own event time (its chained operators' timers)")
        .isEqualTo(WatermarkTracker.NONE);
    for (long now = 200; now <= 400; now += 10) {
      pollAt(t, now);
    }
    assertThat(watermarks(OUT0))
        .isNotEmpty()
        .allSatisfy(w -> assertThat(w).isBetween(1_000L, 1_200L));
    assertThat(t.engine().metrics().recordsIn()).isEqualTo(200);
    assertThat(services.failures).isEmpty();
  }

  private List<Long> caughtUp() {
    List<Long> out = new ArrayList<>();
    for (FakeServices.Sent m : services.sent) {
      if (m.message() instanceof EpochMessage.CaughtUp c) {
        out.add(c.epoch());
      }
    }
    return out;
  }

  /**
   * A source epoch's catch-up: a split the task keeps, or gives to a new task, does not wait; a
   * split going to a task that had emitted a higher watermark waits until it is there. Partition 1
   * stalls after 20 records (watermark 18, no idleness), partition 0 goes on (watermark now − 2).
   */
  @Test
  void aSplitCatchesUpOnlyWithTheWatermarkOfTheTaskItGoesTo() {
    Task t = source(new Stalling(20), WatermarkStrategy.monotonousTimestamps());
    for (long now = 0; now <= 100; now += 10) {
      pollAt(t, now);
    }
    long none = WatermarkTracker.NONE;
    // 2 tasks: partition 0 stays here, the stalled partition 1 goes to new task 1
    t.engine().onCommand(new EpochMessage.CatchUpSplits(1, List.of(0, 1), List.of(90L, none)));
    assertThat(caughtUp()).containsExactly(1L);

    // partition 1 goes to task 1, which had emitted 50: the stalled partition never gets there
    t.engine().onCommand(new EpochMessage.CatchUpSplits(2, List.of(0, 1), List.of(90L, 50L)));
    for (long now = 110; now <= 300; now += 10) {
      pollAt(t, now);
    }
    assertThat(caughtUp()).containsExactly(1L);

    // this task retires: partition 0 goes to task 2, at 350, partition 1 to new task 3
    t.engine().onCommand(new EpochMessage.CatchUpSplits(3, List.of(2, 3), List.of(350L, none)));
    for (long now = 310; now <= 350; now += 10) {
      pollAt(t, now);
    }
    assertThat(caughtUp()).as("partition 0 is at 348").containsExactly(1L);
    pollAt(t, 360);
    assertThat(caughtUp()).containsExactly(1L, 3L);
    assertThat(services.failures).isEmpty();
  }

  /**
   * Two partitions of {@code i ↦ i} at one record per millisecond; partition 1 stops after {@code
   * stopAfter} records (without ending: it is unbounded).
   */
  private record Stalling(long stopAfter) implements LogSource<Long> {
    @Override
    public String name() {
      return "stalling";
    }

    @Override
    public int partitions() {
      return 2;
    }

    @Override
    public PartitionReader<Long> open(int partition, long startMillis) {
      return new PartitionReader<>() {
        @Override
        public long available(long nowMillis) {
          long n = Math.max(0, nowMillis - startMillis);
          return partition == 0 ? n : Math.min(n, stopAfter);
        }

        @Override
        public long end() {
          return Long.MAX_VALUE;
        }

        @Override
        public Long read(long offset) {
          return offset;
        }

        @Override
        public long timestamp(long offset, Long value) {
          return value;
        }

        @Override
        public long availableAt(long offset) {
          return startMillis + offset + 1;
        }
      };
    }
  }

  @Test
  void aPartitionThatStopsProducingIsLeftOutAfterTheIdleTimeout() {
    Task t =
        source(
            new Stalling(20),
            WatermarkStrategy.monotonousTimestamps().withIdleness(Duration.ofMillis(100)));
    for (long now = 0; now <= 100; now += 10) {
      pollAt(t, now);
    }
    // Partition 1 read its last record (ts 19) at 20 ms; partition 0 is at 99.
    assertThat(watermarks(OUT0)).as("partition 1 holds the watermark").containsExactly(18L);
    pollAt(t, 119);
    pollAt(t, 150);
    assertThat(watermarks(OUT0))
        .as("idle since 120 ms: left out, partition 0 alone decides")
        .containsExactly(18L, 148L);
    assertThat(idles(OUT0)).as("partition 0 is still active").isZero();
    pollAt(t, 200);
    assertThat(watermarks(OUT0)).containsExactly(18L, 148L, 198L);
  }

  @Test
  void aPartitionWithoutRecordsHoldsTheWatermarkUntilItIsIdle() {
    Task t =
        source(
            new Stalling(0),
            WatermarkStrategy.monotonousTimestamps().withIdleness(Duration.ofMillis(100)));
    for (long now = 0; now <= 50; now += 10) {
      pollAt(t, now);
    }
    assertThat(watermarks(OUT0)).as("partition 1 has no watermark yet").isEmpty();
    pollAt(t, 100);
    assertThat(watermarks(OUT0)).as("idle since its opening at 0").containsExactly(98L);
  }
}
