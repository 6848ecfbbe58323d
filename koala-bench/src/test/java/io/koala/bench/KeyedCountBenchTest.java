package io.koala.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.runtime.KoalaConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The bench runs in both deployment modes and reports the fields the CLI promises. */
class KeyedCountBenchTest {

  @ParameterizedTest(name = "separate systems: {0}")
  @ValueSource(booleans = {false, true})
  void benchRunsAndReports(boolean separate) throws Exception {
    BenchResult r =
        KeyedCountBench.run(
            new BenchSettings(1, 1, 2, 2, 10_000, 16, separate, 0, 7, 1_000_000),
            KoalaConfig.load());
    for (String field :
        new String[] {
          "workload",
          "parallelism",
          "records",
          "seconds",
          "recordsPerSecond",
          "p50BatchLatencyMs",
          "p99BatchLatencyMs",
          "keys",
          "stateBytes"
        }) {
      assertThat(r.get(field)).as(field).isNotNull();
    }
    assertThat((Long) r.get("records")).isPositive();
    assertThat((Long) r.get("stateKeys")).isBetween(1L, 10_000L);
    assertThat(r.toJson()).startsWith("{\"workload\":\"keyed-count\"");
  }

  @ParameterizedTest(name = "key {0}")
  @ValueSource(longs = {0, 1, 99, 1_000_000})
  void keysAreAPureFunctionOfIndexAndSeedWithinTheKeySpace(long index) {
    long k = KeyedCountBench.keyOf(index, 42, 1000);
    assertThat(k).isBetween(0L, 999L).isEqualTo(KeyedCountBench.keyOf(index, 42, 1000));
  }
}
