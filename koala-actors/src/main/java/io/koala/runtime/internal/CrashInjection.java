package io.koala.runtime.internal;

import io.koala.core.reconfig.EpochDriver;
import io.koala.plan.TaskId;
import io.koala.runtime.testing.TaskCrashes;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A job coordinator's planned crashes, for testing Koala ({@link TaskCrashes}), pure: which planned
 * crash is due given what the job is doing, which task it strikes (seeded random), and the crashes
 * injected. One at a time: from an injection until the job's next rollback nothing else is due.
 */
final class CrashInjection {
  private final List<TaskCrashes.Crash> planned = new ArrayList<>();
  private final List<TaskCrashes.Injected> injected = new ArrayList<>();
  private Random random = new Random(0);
  private boolean striking; // a crash was injected and the job has not rolled back yet

  /** Adds {@code crashes} to the plan; {@code seed} re-seeds the choice of victims. */
  void plan(long seed, List<TaskCrashes.Crash> crashes) {
    random = new Random(seed);
    planned.addAll(crashes);
  }

  /** Whether a crash planned at a time has still to strike (the host polls for it). */
  boolean timed() {
    return planned.stream().anyMatch(c -> c instanceof TaskCrashes.At);
  }

  /**
   * The first planned crash due now, or null: {@code sinceStartMillis} after the job started, with
   * an epoch in {@code phase} (null: none runs) and a checkpoint in progress with {@code snapshots}
   * acknowledged ({@code -1}: none in progress).
   */
  TaskCrashes.Crash due(long sinceStartMillis, EpochDriver.Phase phase, int snapshots) {
    if (striking) {
      return null;
    }
    for (TaskCrashes.Crash c : planned) {
      boolean due;
      if (c instanceof TaskCrashes.At at) {
        due = sinceStartMillis >= at.millis();
      } else if (c instanceof TaskCrashes.InPhase in) {
        due = phase == in.phase();
      } else if (c instanceof TaskCrashes.InCheckpoint in) {
        due = snapshots >= in.snapshots();
      } else {
        throw new IllegalStateException("unhandled " + c);
      }
      if (due) {
        return c;
      }
    }
    return null;
  }

  /**
   * Carries out {@code crash}, due now: picks its victim among {@code candidates} (not empty) and
   * records it.
   */
  TaskId strike(
      TaskCrashes.Crash crash, List<TaskId> candidates, long sinceStartMillis, String during) {
    if (striking || !planned.remove(crash)) {
      throw new IllegalStateException("crash " + crash + " is not due");
    }
    TaskId victim = candidates.get(random.nextInt(candidates.size()));
    injected.add(new TaskCrashes.Injected(victim, sinceStartMillis, during, crash));
    striking = true;
    return victim;
  }

  /** The job rolled back: the next planned crash may strike once it runs again. */
  void rolledBack() {
    striking = false;
  }

  List<TaskCrashes.Injected> injected() {
    return List.copyOf(injected);
  }
}
