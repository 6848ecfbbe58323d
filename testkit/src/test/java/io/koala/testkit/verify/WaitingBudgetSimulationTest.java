package io.koala.testkit.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.StatePlaneStats;
import io.koala.job.StatePlaneStats.Stall;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.protocol.ChannelSettings;
import io.koala.testkit.sim.Simulation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The budget of waiting records (issue 20 step 6; hazards D5) in the simulator, with the verifier's
 * settings but a budget of a few records, and slow messages (8 ms), so that the records parked for
 * their state and held for peer markers fill it during a scale-out and a scale-in: upstream records
 * wait, and the run still finishes with every window equal to a run at the final parallelism from
 * the start. The budget must really have stopped upstream records, for parked and for held ones.
 */
class WaitingBudgetSimulationTest {
  private static final long RECORDS = 2_400;
  private static final double RATE = 4_000;
  private static final ChannelSettings SETTINGS =
      new ChannelSettings(
          SimVerifier.SETTINGS.maxBatchRecords(),
          SimVerifier.SETTINGS.maxBatchBytes(),
          SimVerifier.SETTINGS.lingerMillis(),
          SimVerifier.SETTINGS.credits(),
          SimVerifier.SETTINGS.watermarkIntervalMillis(),
          256);

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4})
  void aScaleOutAndAScaleInAtTheBudgetEqualTheReference(long seed) {
    Workload w = new Workloads.Windows();
    Simulation.Result run =
        Simulation.of(w.dataflow(Map.of(), RECORDS, RATE), SETTINGS, seed)
            .latency(8)
            .rescaleAt(150, "window", 4)
            .rescaleAt(400, "window", 1)
            .run(50_000_000);
    Simulation.Result reference =
        Simulation.of(w.dataflow(Map.of("window", 1), RECORDS, RATE), SETTINGS, seed)
            .latency(8)
            .run(50_000_000);

    assertThat(run.failures()).as("seed %d", seed).isEmpty();
    assertThat(run.finished()).as("seed %d: %s", seed, run.unfinished()).isTrue();
    assertThat(run.reconfigurations()).as("seed %d", seed).hasSize(2);
    assertThat(Invariants.check(run.metrics().values())).as("seed %d", seed).isEmpty();
    assertThat(
            Outcome.compare(
                "windows",
                run.collected().getOrDefault("windows", List.of()),
                reference.collected().getOrDefault("windows", List.of()),
                5))
        .as("seed %d", seed)
        .isEmpty();
    List<StatePlaneStats> window =
        run.metrics().values().stream()
            .filter(t -> t.task().operator().name().equals("window"))
            .map(TaskMetricsSnapshot::statePlane)
            .toList();
    long parked = window.stream().mapToLong(sp -> sp.stallNanos(Stall.PARKED_LIMIT)).sum();
    long held = window.stream().mapToLong(sp -> sp.stallNanos(Stall.HELD_LIMIT)).sum();
    System.out.printf(
        "seed %d: stalled at the budget %.1f ms (parked), %.1f ms (held)%n",
        seed, parked / 1e6, held / 1e6);
    assertThat(parked).as("seed %d: upstream records waited for parked ones", seed).isPositive();
    assertThat(held).as("seed %d: upstream records waited for held ones", seed).isPositive();
  }
}
