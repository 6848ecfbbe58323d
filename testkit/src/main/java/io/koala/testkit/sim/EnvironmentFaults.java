package io.koala.testkit.sim;

import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Faults of what a simulated job runs on, drawn from their own seeded random (so that a run's other
 * draws stay those of its seed until one strikes): a snapshot that cannot be read at a restore (a
 * mount not back yet), a snapshot found corrupt at a restore (once a run, when an older checkpoint
 * is retained to fall back to: the output published since that one is published again), a
 * checkpoint the journal fails to record, a snapshot whose write never reports (a hung copier or a
 * lost reply), and a source task that stalls when a checkpoint is triggered (a blocking call) until
 * after the checkpoint's timeout, while the barriers of the others hold channels downstream. The
 * first two strike with probability {@code p} where they may, the last two with {@code p / 10} (a
 * checkpoint has a snapshot per task); each makes the checkpoint or the attempt it strikes fail,
 * and the job roll back at most once for it (not at all when a timed-out checkpoint is tolerated).
 */
final class EnvironmentFaults {
  private final Random random;
  private final double p;
  private final List<String> injected = new ArrayList<>();
  private final Set<Integer> failedAttempts = new HashSet<>();
  private boolean corruptStruck; // once a run: a second fallback may find none to fall back to

  EnvironmentFaults(long seed, double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("a probability of environment faults of " + p);
    }
    this.random = new Random(seed * 31 + 0x5EED);
    this.p = p;
  }

  /** Whether the restore of {@code task}'s snapshot {@code file} for {@code attempt} fails. */
  boolean unreadable(int attempt, TaskId task, String file) {
    return strike(attempt, "snapshot " + file + " of " + task + " unreadable at a restore");
  }

  /**
   * Whether the restore of {@code task}'s snapshot {@code file} for {@code attempt} finds it
   * corrupt; {@code fallback}: an older checkpoint is retained.
   */
  boolean corrupt(int attempt, TaskId task, String file, boolean fallback) {
    if (corruptStruck || !fallback) {
      return false;
    }
    corruptStruck = strike(attempt, "snapshot " + file + " of " + task + " corrupt at a restore");
    return corruptStruck;
  }

  /** Whether the journal fails to record checkpoint {@code checkpointId} of {@code attempt}. */
  boolean journalFails(int attempt, long checkpointId) {
    return strike(attempt, "the journal failed to record checkpoint " + checkpointId);
  }

  /** Whether {@code task}'s snapshot for checkpoint {@code checkpointId} never reports. */
  boolean snapshotHangs(int attempt, TaskId task, long checkpointId) {
    return strike(
        attempt,
        p / 10,
        "the snapshot of " + task + " for checkpoint " + checkpointId + " never reports");
  }

  /** Whether source task {@code task} stalls when checkpoint {@code checkpointId} is triggered. */
  boolean sourceStalls(int attempt, TaskId task, long checkpointId) {
    return strike(
        attempt, p / 10, "source " + task + " stalls at the trigger of checkpoint " + checkpointId);
  }

  private boolean strike(int attempt, String what) {
    return strike(attempt, p, what);
  }

  private boolean strike(int attempt, double probability, String what) {
    if (random.nextDouble() >= probability) {
      return false;
    }
    injected.add(what + " (attempt " + attempt + ")");
    failedAttempts.add(attempt);
    return true;
  }

  /** The faults injected, described. */
  List<String> injected() {
    return List.copyOf(injected);
  }

  /** The attempts a fault struck: at most one rollback each. */
  int attemptsStruck() {
    return failedAttempts.size();
  }
}
