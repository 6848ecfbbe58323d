package io.koala.testkit.verify;

import io.koala.coordinator.EpochDriver;
import io.koala.protocol.ReconfigurationProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongFunction;

/**
 * The seeded crash plans of both verifiers ({@link SimVerifier} in the simulator, {@link
 * RuntimeVerifier} on actors): one to three crashes per run, each at a time within the run, when
 * the next epoch reaches a phase, or during a checkpoint once some of its snapshots are in. One
 * generator; each engine names the three kinds of crash with its own hook's types.
 */
final class CrashPlans {
  private CrashPlans() {}

  /** How an engine names a crash at a time, in an epoch's phase, and during a checkpoint. */
  record Kinds<C>(
      LongFunction<C> at, Function<EpochDriver.Phase, C> inPhase, IntFunction<C> inCheckpoint) {}

  /**
   * One to three crashes for {@code seed}: at a time within the first {@code runMillis}, in one of
   * {@code phases}, or during a checkpoint once fewer than {@code snapshots} of its snapshots are
   * in.
   */
  static <C> List<C> random(
      long seed, double runMillis, List<EpochDriver.Phase> phases, int snapshots, Kinds<C> kinds) {
    Random rnd = new Random(seed * 0x9E3779B97F4A7C15L + 17);
    List<C> out = new ArrayList<>();
    int n = 1 + rnd.nextInt(3);
    for (int i = 0; i < n; i++) {
      switch (rnd.nextInt(3)) {
        case 0 -> out.add(kinds.at().apply((long) (rnd.nextDouble() * runMillis)));
        case 1 -> out.add(kinds.inPhase().apply(phases.get(rnd.nextInt(phases.size()))));
        default -> out.add(kinds.inCheckpoint().apply(rnd.nextInt(snapshots)));
      }
    }
    return out;
  }

  /**
   * The phases an epoch of {@code protocol} goes through (DONE aside): PAUSING only for
   * stop-and-restart, DEPLOYING only where deploying new tasks takes time ({@code deploys}: on
   * actors; the simulator deploys them at once).
   */
  static List<EpochDriver.Phase> phases(ReconfigurationProtocol protocol, boolean deploys) {
    List<EpochDriver.Phase> phases = new ArrayList<>(List.of(EpochDriver.Phase.values()));
    phases.remove(EpochDriver.Phase.DONE);
    if (!deploys) {
      phases.remove(EpochDriver.Phase.DEPLOYING);
    }
    if (protocol != ReconfigurationProtocol.STOP_RESTART) {
      phases.remove(EpochDriver.Phase.PAUSING);
    }
    return phases;
  }
}
