package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The same keyed aggregate gives the same per-key results whatever the parallelism, the number of
 * workers and whether workers talk through serialization over TCP; the expected results come from a
 * plain loop over the same generator.
 */
class KeyedAggregateEquivalenceTest {
  static final int RECORDS = 20_000;
  static final int KEYS = 97;

  /** Record i: a key and a value, both pure functions of i. */
  record Reading(String sensor, long value) {}

  static Reading reading(long i) {
    return new Reading("sensor-" + (i * 31 % KEYS), i % 11);
  }

  static Dataflow dataflow(int parallelism) {
    DataflowBuilder b =
        Dataflow.builder("sum-per-key").parallelism(parallelism).registerTypes(Reading.class);
    b.source(SourceSpec.generator("readings", (i, seed) -> reading(i)).partitions(4).count(RECORDS))
        .parallelism(Math.min(parallelism, 4))
        .keyBy(Reading::sensor)
        .reduce("sum", (a, r) -> new Reading(a.sensor(), a.value() + r.value()))
        .sink(SinkSpec.collecting("sums"));
    return b.build();
  }

  static Map<String, Long> expected() {
    Map<String, Long> sums = new TreeMap<>();
    for (long i = 0; i < RECORDS; i++) {
      Reading r = reading(i);
      sums.merge(r.sensor(), r.value(), Long::sum);
    }
    return sums;
  }

  @ParameterizedTest(name = "parallelism {0}, {1} workers, separate systems: {2}")
  @CsvSource({"1, 1, false", "3, 2, false", "8, 3, false", "3, 3, true"})
  void sameResultsAtAnyParallelism(int parallelism, int workers, boolean separate) {
    KoalaConfig config = KoalaConfig.load().withWorkers(workers).withSeparateSystems(separate);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(parallelism));
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      List<Reading> out = job.collected("sums");
      // a rolling reduce emits one running sum per input record
      assertThat(out).hasSize(RECORDS);
      Map<String, Long> last = new HashMap<>();
      Map<String, Long> seen = new HashMap<>();
      for (Reading r : out) {
        // per key, running sums never decrease (values are non-negative) and arrive in order
        assertThat(r.value()).isGreaterThanOrEqualTo(last.getOrDefault(r.sensor(), 0L));
        last.put(r.sensor(), r.value());
        seen.merge(r.sensor(), 1L, Long::sum);
      }
      assertThat(new TreeMap<>(last)).isEqualTo(expected());
      JobMetrics metrics = job.metrics();
      assertThat(metrics.recordsIn("sum")).isEqualTo(RECORDS);
      assertThat(metrics.stateEntries()).isEqualTo(KEYS);
      assertThat(metrics.tasksOf("sum")).hasSize(parallelism);
    }
  }

  @ParameterizedTest(name = "key-value pairs at parallelism {0}")
  @CsvSource({"1", "8"})
  void countPerKeyMatchesAPlainLoop(int parallelism) {
    DataflowBuilder b = Dataflow.builder("count").parallelism(parallelism);
    b.source(SourceSpec.generator("n", (i, seed) -> i % 13).partitions(2).count(5_000))
        .parallelism(2)
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      job.await(Duration.ofSeconds(60));
      List<KeyValue<Long, Long>> out = job.collected("counts");
      Map<Long, Long> last = new TreeMap<>();
      out.forEach(kv -> last.merge(kv.key(), kv.value(), Math::max));
      Map<Long, Long> expected = new TreeMap<>();
      for (long i = 0; i < 5_000; i++) {
        expected.merge(i % 13, 1L, Long::sum);
      }
      assertThat(last).isEqualTo(expected);
    }
  }
}
