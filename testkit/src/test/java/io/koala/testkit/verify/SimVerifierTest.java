package io.koala.testkit.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.ReconfigurationProtocol;
import io.koala.testkit.sim.Simulation;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random reconfiguration schedules over every verification workload, in the simulator, against
 * reference runs; and planted bugs that the same checks must catch. Its runs share nothing (each
 * simulation owns its state; no static mutable state in the simulator or the cores it drives), so
 * they run on every core ({@code junit-platform.properties}).
 */
@Execution(ExecutionMode.CONCURRENT)
class SimVerifierTest {
  /**
   * Seeds of every workload, with and without crashes: the simulator runs the coordinator's own
   * decisions (the job core), so a sweep this wide reaches interleavings of checkpoints, rollbacks
   * and epochs that a few seeds miss (seed 59 with crashes found a lost output).
   */
  static final int SEEDS = 250;

  /** Seeds of the baselines, and of the coverage of crash points. */
  static final int FEW_SEEDS = 20;

  /**
   * Seeds within which every kind of environment fault strikes (the rarest, at a tenth of the
   * others' probability, need more than {@link #FEW_SEEDS}).
   */
  static final int ENVIRONMENT_SEEDS = 60;

  static Stream<Arguments> runs() {
    return runs(SEEDS);
  }

  static Stream<Arguments> runs(int seeds) {
    List<Arguments> out = new ArrayList<>();
    for (Workload w : Workloads.all()) {
      for (long seed = 1; seed <= seeds; seed++) {
        out.add(Arguments.of(w.name(), seed));
      }
    }
    return out.stream();
  }

  /**
   * Each workload and seed under its random reconfiguration schedule; and (issue 7) the same
   * schedule with crashes at random points — a time, each phase of an epoch, a checkpoint in
   * progress — each rolling the job back to its newest checkpoint: in both the published output is
   * exactly the reference run's. The simulation is deterministic, so both runs share one reference
   * run ({@link SimVerifier#reference}; computing it once saves a fifth of the pair's CPU time).
   */
  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("runs")
  void reconfigurationsAndCrashesChangeNoOutput(String workload, long seed) {
    Workload w = Workloads.named(workload);
    Simulation.Result reference = SimVerifier.reference(w, seed);
    Outcome o = SimVerifier.verify(w, seed, ReconfigurationProtocol.KOALA, false, reference);
    Outcome crashed = SimVerifier.verify(w, seed, ReconfigurationProtocol.KOALA, true, reference);
    SoftAssertions.assertSoftly(
        softly -> {
          softly.assertThat(o.violations()).as("%s", o).isEmpty();
          softly.assertThat(o.mismatches()).as("%s", o).isEmpty();
          softly.assertThat(crashed.violations()).as("with crashes: %s", crashed).isEmpty();
          softly.assertThat(crashed.mismatches()).as("with crashes: %s", crashed).isEmpty();
        });
  }

  /**
   * A seed drawn by {@code --random-seeds} that crashed retired holder join#1 as it finished
   * handing its buckets over: released without a rollback, its final counts were lost and the
   * handover invariant failed (0 buckets handed over, 64 taken over). Its counts at the crash are
   * kept now.
   */
  @Test
  void aRetiredHolderCrashedOnceDrainedKeepsItsCounts() {
    Outcome o =
        SimVerifier.verify(
            Workloads.named("join"), 54084543368770L, ReconfigurationProtocol.KOALA, true);
    assertThat(o.crashes()).as("%s", o).anyMatch(c -> c.startsWith("join#1"));
    assertThat(o.violations()).as("%s", o).isEmpty();
    assertThat(o.mismatches()).as("%s", o).isEmpty();
  }

  /** Every baseline passes the same checks (issue 5: one correctness machinery). */
  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("baselineRuns")
  void baselinesChangeNoOutput(String workload, long seed) {
    Workload w = Workloads.named(workload);
    Simulation.Result reference = SimVerifier.reference(w, seed); // one for every baseline
    SoftAssertions.assertSoftly(
        softly -> {
          for (ReconfigurationProtocol protocol : ReconfigurationProtocol.values()) {
            if (protocol != ReconfigurationProtocol.KOALA) {
              Outcome o = SimVerifier.verify(w, seed, protocol, false, reference);
              softly.assertThat(o.violations()).as("%s: %s", protocol, o).isEmpty();
              softly.assertThat(o.mismatches()).as("%s: %s", protocol, o).isEmpty();
              softly
                  .assertThat(o.reconfigurations())
                  .as("%s: reconfigurations before the input ended: %s", protocol, o)
                  .isPositive();
            }
          }
        });
  }

  /** The first half of the {@link #FEW_SEEDS} of every workload. */
  static Stream<Arguments> baselineRuns() {
    return runs(FEW_SEEDS / 2);
  }

  /** What {@link #crashesCoverEveryPhase} must see crashes hit. */
  static final List<String> PHASES =
      List.of(
          "processing",
          "checkpoint",
          "PREPARING",
          "CATCHING_UP",
          "HANDING_OVER",
          "SWITCHING",
          "DRAINING");

  /**
   * The keyed-count workload's poison records reach its dead letters exactly once in its reference
   * run (the oracle of every other run, which the comparisons above hold to the same), and once in
   * a run with reconfigurations, crashes and environment faults.
   */
  @Test
  void eachPoisonRecordReachesTheDeadLettersOnce() {
    Workload w = Workloads.named("keyed-count");
    List<Object> poison = new java.util.ArrayList<>();
    for (long i = 50; i < SimVerifier.RECORDS; i += 101) {
      poison.add("scale " + i + ": java.lang.IllegalArgumentException: poison " + i);
    }
    Simulation.Result reference = SimVerifier.reference(w, 7);
    assertThat(reference.collected().get("dead-letters"))
        .containsExactlyInAnyOrderElementsOf(poison);
    Outcome o = SimVerifier.verify(w, 7, ReconfigurationProtocol.KOALA, true, reference);
    assertThat(o.violations()).as("%s", o).isEmpty();
    assertThat(o.mismatches()).as("%s", o).isEmpty();
    assertThat(o.reconfigurations()).as("%s", o).isPositive();
  }

  /**
   * With crashes come environment faults: within the first {@link #ENVIRONMENT_SEEDS} seeds each
   * kind strikes — a snapshot unreadable at a restore, one corrupt (the job falls back to the
   * checkpoint before, and what was published since may come twice, no more), the journal failing
   * to record a checkpoint, a snapshot that never reports and a source that stalls at a
   * checkpoint's trigger while the others' barriers hold channels downstream (only the checkpoint
   * timeout, a timer of the simulator, ends them; odd seeds abandon the checkpoint and go on, even
   * ones roll back) — and no run's output changes.
   */
  @Test
  void environmentFaultsOfEveryKindStrikeAndChangeNoOutput() {
    List<String> kinds =
        List.of(
            "unreadable at a restore",
            "corrupt at a restore",
            "journal failed",
            "never reports",
            "stalls at the trigger");
    java.util.Set<String> struck = new java.util.TreeSet<>();
    long seed = 0;
    while (seed < ENVIRONMENT_SEEDS && struck.size() < kinds.size()) {
      seed++;
      for (Workload w : Workloads.all()) {
        Outcome o = SimVerifier.verify(w, seed, ReconfigurationProtocol.KOALA, true);
        assertThat(o.violations()).as("%s", o).isEmpty();
        assertThat(o.mismatches()).as("%s", o).isEmpty();
        for (String c : o.crashes()) {
          kinds.stream().filter(c::contains).forEach(struck::add);
        }
      }
    }
    System.out.println("environment faults struck: " + struck + " by seed " + seed);
    assertThat(struck).containsExactlyInAnyOrderElementsOf(kinds);
  }

  /**
   * Across the first {@link #FEW_SEEDS} seeds, crashes hit every phase of an epoch and checkpoints
   * in progress (the seeds stop once they have: the rest could not make it fail).
   */
  @org.junit.jupiter.api.Test
  void crashesCoverEveryPhase() {
    java.util.Set<String> hit = new java.util.TreeSet<>();
    int recoveries = 0;
    long seed = 0;
    while (seed < FEW_SEEDS && !hit.containsAll(PHASES)) {
      seed++;
      for (Workload w : Workloads.all()) {
        Outcome o = SimVerifier.verify(w, seed, ReconfigurationProtocol.KOALA, true);
        recoveries += o.recoveries();
        for (String c : o.crashes()) {
          if (!c.contains(" during ")) {
            continue; // an environment fault (environmentFaultsOfEveryKind...)
          }
          hit.add(
              c.substring(c.indexOf(" during ") + 8)
                  .replaceAll("epoch \\d+ ", "")
                  .replaceAll("checkpoint \\d+.*", "checkpoint")
                  .replaceAll(" \\(.*", ""));
        }
      }
    }
    System.out.println("crashes hit: " + hit + " by seed " + seed + "; recoveries " + recoveries);
    assertThat(hit).containsAll(PHASES);
  }

  /**
   * Each planted bug is applied and caught by the checks in at least one of 30 seeds (the seeds
   * stop at the first run that catches it: the rest could not make it fail).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("plantedBugs")
  void plantedBugsAreCaught(Simulation.Fault fault, String workload) {
    int applied = 0;
    int caught = 0;
    List<String> examples = new ArrayList<>();
    long seed = 0;
    while (seed < 30 && caught == 0) {
      seed++;
      Outcome o =
          SimVerifier.verify(
              Workloads.named(workload),
              seed,
              ReconfigurationProtocol.KOALA,
              fault == Simulation.Fault.SNAPSHOT_AFTER_BARRIER
                  || fault == Simulation.Fault.EPOCH_DURING_CHECKPOINT,
              fault);
      if (o.faultsApplied() > 0) {
        applied++;
        if (!o.ok()) {
          caught++;
          examples.add(o.toString());
        }
      }
    }
    System.out.printf(
        "%s: seeds 1 to %d, applied in %d runs, caught in %d%n", fault, seed, applied, caught);
    examples.stream().limit(2).forEach(System.out::println);
    assertThat(applied).as("the fault found something to break").isPositive();
    assertThat(caught).as("runs with %s caught by the checks", fault).isPositive();
  }

  static Stream<Arguments> plantedBugs() {
    return Stream.of(
        Arguments.of(Simulation.Fault.LOSE_STATE_LOCATION, "keyed-count"),
        Arguments.of(Simulation.Fault.PEER_MARKER_BEFORE_FORWARDED, "last10-avg"),
        Arguments.of(Simulation.Fault.SNAPSHOT_AFTER_BARRIER, "keyed-count"),
        Arguments.of(Simulation.Fault.EPOCH_DURING_CHECKPOINT, "keyed-count"),
        Arguments.of(Simulation.Fault.RELEASE_AHEAD_OF_READS, "keyed-count"));
  }
}
