package io.koala.testkit.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.StatePlaneStats.Stall;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.testkit.sim.Simulation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Per-channel blocking of the state plane (issue 20, F1; hazards D2) in the simulator: 50 ms
 * event-time windows across a scale-out and a scale-in whose state replies are slow (8 ms per
 * message), so watermarks, ends and barriers-to-be queue behind parked records while other channels
 * flow. Every window must equal a run at the final parallelism from the start, no record may become
 * late, and the watermarks must really have waited (the target's parked-gate stall is positive).
 */
class ParkingSimulationTest {
  private static final long RECORDS = 2_400;
  private static final double RATE = 4_000;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void windowsAcrossAScaleOutAndAScaleInWithSlowStateRepliesEqualTheReference(long seed) {
    Workload w = new Workloads.Windows();
    // "pass" with one task runs chained in the source's: records reach the windows in order
    Simulation.Result run =
        Simulation.of(w.dataflow(Map.of("pass", 1), RECORDS, RATE), SimVerifier.SETTINGS, seed)
            .latency(8)
            .rescaleAt(150, "window", 4)
            .rescaleAt(400, "window", 1)
            .run(50_000_000);
    Simulation.Result reference =
        Simulation.of(
                w.dataflow(Map.of("pass", 1, "window", 1), RECORDS, RATE),
                SimVerifier.SETTINGS,
                seed)
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
    long gated =
        run.metrics().values().stream()
            .filter(t -> t.task().operator().name().equals("window"))
            .map(TaskMetricsSnapshot::statePlane)
            .mapToLong(sp -> sp.stallNanos(Stall.PARKED_GATE))
            .sum();
    assertThat(gated).as("seed %d: watermarks waited for parked records", seed).isPositive();
  }
}
