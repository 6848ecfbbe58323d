package io.koala.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.runtime.KoalaConfig;
import org.junit.jupiter.api.Test;

/** {@code koala bench ingest} runs both phases and reports what the CLI promises. */
class IngestBenchTest {

  @Test
  void benchRunsBothPhasesAndTheSlowSinkHoldsTheProducersWithinTheCapacity() throws Exception {
    BenchResult r =
        IngestBench.run(
            new BenchSettings(1, 1, 2, 2, 10_000, 8, false, 0, 7, 1_000_000), KoalaConfig.load());
    assertThat((Long) r.get("records")).isPositive();
    assertThat((Long) r.get("recordsPerSecond")).isPositive();
    assertThat((Long) r.get("slowSinkAcceptedPerSecond")).isPositive();
    assertThat((Long) r.get("slowSinkHeldMax"))
        .isPositive()
        .isLessThanOrEqualTo((long) (Integer) r.get("capacity"));
    assertThat(r.toJson()).startsWith("{\"workload\":\"ingest\"");
  }
}
