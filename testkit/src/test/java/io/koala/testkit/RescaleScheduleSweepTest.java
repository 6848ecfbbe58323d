package io.koala.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A newcomer's schedules (issue 25): a count rescaled live between large batches. The driver once
 * failed them for some seeds with "a fetch reached count#N after it was released": an owner told
 * the coordinator it referenced a retiring holder no more while a drain request to it still awaited
 * its reply, so the holder could stop before answering. Every seed must give the plain-Java counts.
 */
class RescaleScheduleSweepTest {

  static final int SEEDS = 200;

  static Dataflow counts(int parallelism) {
    DataflowBuilder b = Dataflow.builder("m").parallelism(parallelism);
    b.source(SourceSpec.<Long>collection("nums", List.of()))
        .keyBy(x -> x % 97)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  static List<Long> input(int n) {
    List<Long> in = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      in.add(i * 7919 % 10_000);
    }
    return in;
  }

  /**
   * Starts {@code count} at {@code parallelism[0]}, pipes an equal share of the input, then
   * rescales to each next parallelism and pipes the next share; checks every key's last count.
   */
  static void run(long seed, int... parallelism) {
    List<Long> in = input(400 * parallelism.length);
    Map<Long, Long> expected = new HashMap<>();
    for (long x : in) {
      expected.merge(x % 97, 1L, Long::sum);
    }
    try (DataflowTestDriver d = new DataflowTestDriver(counts(parallelism[0]), seed)) {
      TestInput<Long> nums = d.input("nums");
      for (int step = 0; step < parallelism.length; step++) {
        if (step > 0) {
          d.rescale("count", parallelism[step]);
        }
        nums.pipeAll(in.subList(400 * step, 400 * (step + 1)));
      }
      Map<Long, Long> last = new HashMap<>();
      for (KeyValue<Long, Long> kv : d.<KeyValue<Long, Long>>readOutput("counts")) {
        last.merge(kv.key(), kv.value(), Math::max);
      }
      assertThat(last).as("seed %d", seed).isEqualTo(expected);
    } catch (RuntimeException e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    }
  }

  @Test
  void outAndBackIn() {
    for (long seed = 0; seed < SEEDS; seed++) {
      run(seed, 1, 2, 1);
    }
  }

  @Test
  void upAndDownAgain() {
    for (long seed = 0; seed < SEEDS; seed++) {
      run(seed, 4, 8, 12, 9, 6);
    }
  }
}
