package io.koala.testkit.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.KeyValue;
import io.koala.protocol.ChannelSettings;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SimulationTest {
  static final ChannelSettings SMALL = new ChannelSettings(16, 1 << 20, 3, 2, 50);

  static Dataflow keyedCount(int parallelism) {
    DataflowBuilder b = Dataflow.builder("count").parallelism(parallelism);
    b.source(SourceSpec.generator("n", (i, s) -> i % 37).partitions(3).count(3_000))
        .parallelism(3)
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void keyedCountEqualsAPlainLoopWhateverTheInterleaving(long seed) {
    Simulation.Result r = Simulation.of(keyedCount(4), SMALL, seed).run(10_000_000);
    assertThat(r.failures()).isEmpty();
    assertThat(r.finished()).as("finished in %d steps", r.steps()).isTrue();
    Map<Long, Long> last = new TreeMap<>();
    for (Object o : r.collected().get("out")) {
      @SuppressWarnings("unchecked")
      KeyValue<Long, Long> kv = (KeyValue<Long, Long>) o;
      last.merge(kv.key(), kv.value(), Math::max);
    }
    Map<Long, Long> expected = new TreeMap<>();
    for (long i = 0; i < 3_000; i++) {
      expected.merge(i % 37, 1L, Long::sum);
    }
    assertThat(last).isEqualTo(expected);
    assertThat(r.collected().get("out")).hasSize(3_000);
  }

  @Test
  void aSeedReplaysExactly() {
    Simulation.Result a = Simulation.of(keyedCount(2), SMALL, 99).run(10_000_000);
    Simulation.Result b = Simulation.of(keyedCount(2), SMALL, 99).run(10_000_000);
    assertThat(a.steps()).isEqualTo(b.steps());
    assertThat(a.collected()).isEqualTo(b.collected());
    Simulation.Result c = Simulation.of(keyedCount(2), SMALL, 100).run(10_000_000);
    assertThat(c.collected().get("out"))
        .as("another seed, another interleaving of the two tasks' results")
        .isNotEqualTo(a.collected().get("out"))
        .containsExactlyInAnyOrderElementsOf(a.collected().get("out"));
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {11, 12, 13})
  void slidingWindowsOverATimedSourceEqualAPlainLoop(long seed) {
    // record i at event time i ms (100 records per second of the virtual clock), key i % 5
    DataflowBuilder b = Dataflow.builder("windows").parallelism(3);
    b.source(
            SourceSpec.generator("n", (i, s) -> i)
                .partitions(2)
                .rate(RateSchedule.constant(1_000))
                .count(2_000)
                .eventTime(i -> i),
            WatermarkStrategy.monotonousTimestamps())
        .parallelism(2)
        .keyBy(i -> i % 5)
        .window(WindowAssigner.sliding(Duration.ofMillis(100), Duration.ofMillis(50)))
        .count("count")
        .sink(SinkSpec.collecting("out"));
    Simulation.Result r = Simulation.of(b.build(), SMALL, seed).run(10_000_000);
    assertThat(r.failures()).isEmpty();
    assertThat(r.finished()).isTrue();
    Map<String, Long> got = new TreeMap<>();
    for (Object o : r.collected().get("out")) {
      @SuppressWarnings("unchecked")
      WindowResult<Long, Long> w = (WindowResult<Long, Long>) o;
      got.put(w.key() + "@" + w.start(), w.value());
    }
    Map<String, Long> expected = new TreeMap<>();
    for (long i = 0; i < 2_000; i++) {
      long start = i - Math.floorMod(i, 50);
      for (long s = start; s > i - 100; s -= 50) {
        expected.merge((i % 5) + "@" + s, 1L, Long::sum);
      }
    }
    assertThat(got).isEqualTo(expected);
    assertThat(r.virtualMillis())
        .as("the source took about 2 s of virtual time")
        .isGreaterThan(1_900);
  }

  @Test
  void collectedValuesArriveWhateverTheCreditsAre() {
    ChannelSettings tiny = new ChannelSettings(1, 1 << 20, 0, 1, 10);
    Simulation.Result r = Simulation.of(keyedCount(3), tiny, 5).run(50_000_000);
    assertThat(r.finished()).isTrue();
    List<Object> out = new ArrayList<>(r.collected().get("out"));
    assertThat(out).hasSize(3_000);
    Map<Long, Long> counts = new HashMap<>();
    for (Object o : out) {
      @SuppressWarnings("unchecked")
      KeyValue<Long, Long> kv = (KeyValue<Long, Long>) o;
      // per key, counts arrive in order: one channel per (count task, client)
      assertThat(kv.value()).isEqualTo(counts.merge(kv.key(), 1L, Long::sum));
    }
  }
}
