package io.koala.bench.soak;

import java.util.ArrayList;
import java.util.List;

/**
 * What the soak does at each of its steps, pure: a rescale, a migration, a task crash and a killed
 * node, in turn; the first crash is met by a restore that cannot read its checkpoint at first
 * ({@link Fault#UNREADABLE_SNAPSHOT}), and the second crash's turn is a task that hangs until its
 * checkpoint times out ({@link Fault#CHECKPOINT_TIMEOUT}).
 */
final class SoakSchedule {
  private SoakSchedule() {}

  /** A fault the soak injects. */
  enum Fault {
    RESCALE,
    MIGRATION,
    CRASH,
    NODE_KILL,
    /** A task crash whose restore finds a snapshot of the checkpoint missing for a while. */
    UNREADABLE_SNAPSHOT,
    /** A task that blocks until the checkpoint it holds up times out. */
    CHECKPOINT_TIMEOUT
  }

  /** The faults of {@code steps} steps, in order. */
  static List<Fault> of(int steps) {
    Fault[] turn = {Fault.RESCALE, Fault.MIGRATION, Fault.CRASH, Fault.NODE_KILL};
    List<Fault> faults = new ArrayList<>();
    int crashes = 0;
    for (int i = 0; i < steps; i++) {
      Fault f = turn[i % turn.length];
      if (f == Fault.CRASH) {
        crashes++;
        if (crashes == 1) {
          f = Fault.UNREADABLE_SNAPSHOT;
        } else if (crashes == 2) {
          f = Fault.CHECKPOINT_TIMEOUT;
        }
      }
      faults.add(f);
    }
    return faults;
  }
}
