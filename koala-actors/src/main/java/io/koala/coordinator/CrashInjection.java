package io.koala.coordinator;

import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A job's planned crashes, for testing Koala ({@link PlannedCrash}), pure: which planned crash is
 * due given what the job is doing, which task it strikes (seeded random), and the crashes injected.
 * One at a time: from an injection until the job's next rollback nothing else is due.
 */
final class CrashInjection {
  private final List<PlannedCrash> planned = new ArrayList<>();
  private final List<PlannedCrash.Injected> injected = new ArrayList<>();
  private Random random = new Random(0);
  private boolean striking; // a crash was injected and the job has not rolled back yet

  /** Adds {@code crashes} to the plan; {@code seed} re-seeds the choice of victims. */
  void plan(long seed, List<? extends PlannedCrash> crashes) {
    random = new Random(seed);
    planned.addAll(crashes);
  }

  /** Whether a crash planned at a time has still to strike (the host polls for it). */
  boolean timed() {
    return planned.stream().anyMatch(c -> c instanceof PlannedCrash.At);
  }

  /**
   * The first planned crash due now, or null: {@code sinceStartMillis} after the job started, with
   * an epoch in {@code phase} (null: none runs) and a checkpoint in progress with {@code snapshots}
   * acknowledged ({@code -1}: none in progress). A crash planned {@link PlannedCrash.AfterCommit}
   * is due only at a commit ({@link #dueAtCommit}).
   */
  PlannedCrash due(long sinceStartMillis, EpochDriver.Phase phase, int snapshots) {
    if (striking) {
      return null;
    }
    for (PlannedCrash c : planned) {
      boolean due;
      if (c instanceof PlannedCrash.At at) {
        due = sinceStartMillis >= at.millis();
      } else if (c instanceof PlannedCrash.InPhase in) {
        due = phase == in.phase();
      } else if (c instanceof PlannedCrash.InCheckpoint in) {
        due = snapshots >= in.snapshots();
      } else if (c instanceof PlannedCrash.AfterCommit) {
        due = false;
      } else {
        throw new IllegalStateException("unhandled " + c);
      }
      if (due) {
        return c;
      }
    }
    return null;
  }

  /** The first crash planned {@link PlannedCrash.AfterCommit}, due as a checkpoint commits. */
  PlannedCrash dueAtCommit() {
    if (striking) {
      return null;
    }
    for (PlannedCrash c : planned) {
      if (c instanceof PlannedCrash.AfterCommit) {
        return c;
      }
    }
    return null;
  }

  /**
   * Carries out {@code crash}, due now: picks its victim among {@code candidates} (not empty) and
   * records it.
   */
  TaskId strike(PlannedCrash crash, List<TaskId> candidates, long sinceStartMillis, String during) {
    if (striking || !planned.remove(crash)) {
      throw new IllegalStateException("crash " + crash + " is not due");
    }
    TaskId victim = candidates.get(random.nextInt(candidates.size()));
    injected.add(new PlannedCrash.Injected(victim, sinceStartMillis, during, crash));
    striking = true;
    return victim;
  }

  /** The job rolled back: the next planned crash may strike once it runs again. */
  void rolledBack() {
    striking = false;
  }

  List<PlannedCrash.Injected> injected() {
    return List.copyOf(injected);
  }
}
