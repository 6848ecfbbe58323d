package io.koala.testkit.verify;

import io.koala.coordinator.PlannedCrash;
import io.koala.dataflow.Dataflow;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.ReconfigurationProtocol;
import io.koala.testkit.sim.Simulation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Verifies a workload under a random reconfiguration schedule in the deterministic simulator: the
 * run with the schedule against a reference run with each operator at its final parallelism from
 * the start, plus the invariants every run must keep.
 */
public final class SimVerifier {
  /**
   * Small batches, few credits and a budget of waiting records below a batch (D5), so that channels
   * fill, interleavings vary and tasks stop taking records while records wait for their state or a
   * peer marker; and the hot set on (off by default), so hot keys asked for ahead of their records
   * race with the records' own fetches, hand-overs and releases.
   */
  public static final ChannelSettings SETTINGS =
      new ChannelSettings(16, 1 << 20, 2, 3, 20, 1024, 500, 10_000);

  /** Records per source of each run. */
  public static final long RECORDS = 2_400;

  /** Records per second per source, in virtual time. */
  public static final double RATE = 4_000;

  /**
   * A state query every {@value} ms of virtual time, of a workload's {@link Workload#readState}:
   * about a thousand per run, many of them while reconfigurations move the keys.
   */
  static final long READ_EVERY_MILLIS = 1;

  /** Up to 2 ms per message: a reconfiguration spans many records, which get forwarded, held. */
  private static final int LATENCY_MILLIS = 2;

  private static final long MAX_STEPS = 50_000_000;

  private SimVerifier() {}

  /** Runs {@code w} under the schedule of {@code seed}; {@code faults} plants bugs (tests only). */
  public static Outcome verify(Workload w, long seed, Simulation.Fault... faults) {
    return verify(w, seed, ReconfigurationProtocol.KOALA, faults);
  }

  /** Runs {@code w} under the schedule of {@code seed} with {@code protocol}. */
  public static Outcome verify(
      Workload w, long seed, ReconfigurationProtocol protocol, Simulation.Fault... faults) {
    return verify(w, seed, protocol, false, faults);
  }

  /** Checkpoints every {@value} ms of virtual time: several per reconfiguration's run. */
  public static final long CHECKPOINT_MILLIS = 40;

  /**
   * With crashes, the probability of each environment fault where it may strike ({@link
   * Simulation#environmentFaults}).
   */
  static final double ENVIRONMENT_FAULTS = 0.02;

  /**
   * Runs {@code w} under the schedule of {@code seed} with {@code protocol}, with checkpoints and,
   * when {@code crashes}, one to three crashes at seeded random points — a time, a phase of the
   * next epoch, or a checkpoint in progress — each rolling the job back to its newest checkpoint.
   */
  public static Outcome verify(
      Workload w,
      long seed,
      ReconfigurationProtocol protocol,
      boolean crashes,
      Simulation.Fault... faults) {
    return verify(w, seed, protocol, crashes, reference(w, seed), faults);
  }

  /**
   * The reference run that a run of {@code w} under the schedule of {@code seed} is judged against:
   * each operator at the schedule's final parallelism from the start, no reconfiguration,
   * checkpoint, crash or fault. The simulation is deterministic, so the runs of one workload and
   * seed (with and without crashes, or with another protocol) can share it ({@link
   * #verify(Workload, long, ReconfigurationProtocol, boolean, Simulation.Result,
   * Simulation.Fault...)}).
   */
  public static Simulation.Result reference(Workload w, long seed) {
    Schedule schedule = schedule(w, w.dataflow(Map.of(), RECORDS, RATE), seed);
    return Simulation.of(w.dataflow(schedule.finalParallelism(), RECORDS, RATE), SETTINGS, seed)
        .latency(LATENCY_MILLIS)
        .run(MAX_STEPS);
  }

  /**
   * {@link #verify(Workload, long, ReconfigurationProtocol, boolean, Simulation.Fault...)} against
   * {@code reference}, which must be {@link #reference} of the same {@code w} and {@code seed}.
   */
  public static Outcome verify(
      Workload w,
      long seed,
      ReconfigurationProtocol protocol,
      boolean crashes,
      Simulation.Result reference,
      Simulation.Fault... faults) {
    Dataflow initial = w.dataflow(Map.of(), RECORDS, RATE);
    Schedule schedule = schedule(w, initial, seed);
    Simulation sim =
        Simulation.of(initial, SETTINGS, seed).latency(LATENCY_MILLIS).protocol(protocol);
    for (Simulation.Fault f : faults) {
      sim.plant(f);
    }
    Workload.ReadState read = w.readState();
    if (read != null) {
      sim.reads(read.operator(), read.state(), read.keys(), READ_EVERY_MILLIS);
    }
    double runMillis = RECORDS / RATE * 1000;
    for (Schedule.Step s : schedule.steps()) {
      sim.changeAt((long) (s.at() * runMillis), s.change());
    }
    if (crashes) {
      sim.checkpoints(CHECKPOINT_MILLIS, 2);
      for (PlannedCrash c : crashPlan(seed, runMillis, protocol)) {
        sim.crash(c);
      }
      sim.environmentFaults(ENVIRONMENT_FAULTS);
    }
    Simulation.Result run = sim.run(MAX_STEPS);
    List<String> violations = new ArrayList<>();
    if (!reference.finished() || !reference.failures().isEmpty()) {
      violations.add("the reference run did not finish: " + reference.failures());
    }
    if (!run.failures().isEmpty()) {
      violations.add("failed: " + run.failures().get(0).describe());
    } else if (!run.finished()) {
      violations.add("did not finish: " + run.unfinished());
    }
    if (run.failures().isEmpty()
        && run.completedRequests() + run.noopRequests() + run.refusedRequests()
            != schedule.steps().size()) {
      violations.add(
          run.completedRequests()
              + " reconfigurations completed of "
              + schedule.steps().size()
              + "; at the end: "
              + run.unfinished());
    }
    violations.addAll(Invariants.check(run.metrics().values()));
    List<String> mismatches = new ArrayList<>();
    for (String sink : w.sinks()) {
      mismatches.addAll(
          Outcome.compare(
              sink,
              run.collected().getOrDefault(sink, List.of()),
              reference.collected().getOrDefault(sink, List.of()),
              run.republished().getOrDefault(sink, List.of()),
              5));
    }
    return new Outcome(
        w.name(),
        seed,
        schedule,
        mismatches,
        violations,
        run.reconfigurations().size(),
        run.faultsApplied(),
        run.refusedRequests(),
        run.crashes(),
        run.recoveries());
  }

  /** The random schedule of {@code seed} over {@code initial}, {@code w}'s initial dataflow. */
  private static Schedule schedule(Workload w, Dataflow initial, long seed) {
    return Schedule.random(w, seed, 1, initial.plan().buckets());
  }

  /** Crashes after up to this many snapshots of a checkpoint: some never strike, as planned. */
  private static final int CRASH_SNAPSHOTS = 8;

  /**
   * One to three crashes for {@code seed} ({@link CrashPlans}): at a time within the run, in a
   * phase of the next epoch that reaches it, or during a checkpoint after a number of its
   * snapshots.
   */
  static List<PlannedCrash> crashPlan(
      long seed, double runMillis, ReconfigurationProtocol protocol) {
    return CrashPlans.random(
        seed,
        runMillis,
        CrashPlans.phases(protocol, false),
        CRASH_SNAPSHOTS,
        new CrashPlans.Kinds<>(
            PlannedCrash.At::new, PlannedCrash.InPhase::new, PlannedCrash.InCheckpoint::new));
  }
}
