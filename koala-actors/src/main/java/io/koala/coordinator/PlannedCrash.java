package io.koala.coordinator;

import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import java.util.Objects;

/**
 * When a crash planned for testing Koala strikes ({@code io.koala.runtime.testing.TaskCrashes} in
 * the runtime, {@code Simulation.crash} in the simulator): the job core decides when one is due,
 * since it knows the epoch's phase and the checkpoint in progress, and picks its victim.
 */
public sealed interface PlannedCrash extends KoalaMessage {

  /** {@code millis} after the job started running. */
  record At(long millis) implements PlannedCrash {
    public At {
      if (millis < 0) {
        throw new IllegalArgumentException("a crash time must not be negative, got " + millis);
      }
    }
  }

  /**
   * When the next epoch that reaches {@code phase} enters it, once the coordinator has sent that
   * phase's commands (so they are in flight when the victim dies).
   */
  record InPhase(EpochDriver.Phase phase) implements PlannedCrash {
    public InPhase {
      Objects.requireNonNull(phase, "phase");
      if (phase == EpochDriver.Phase.DONE) {
        throw new IllegalArgumentException("an epoch is never in phase DONE: crash in DRAINING");
      }
    }
  }

  /**
   * While the next checkpoint that gets that far is in progress, once {@code snapshots} of its task
   * snapshots are acknowledged ({@code 0}: as soon as it is triggered; all of them: while its
   * completion is being recorded, before it is committed).
   */
  record InCheckpoint(int snapshots) implements PlannedCrash {
    public InCheckpoint {
      if (snapshots < 0) {
        throw new IllegalArgumentException(
            "a snapshot count must not be negative, got " + snapshots);
      }
    }
  }

  /**
   * Right after the next checkpoint is durably recorded and its commit sent to the tasks, before
   * any of them has heard it: what tasks publish on commit must then be published by their restore.
   */
  record AfterCommit() implements PlannedCrash {}

  /**
   * A crash carried out: its victim, when ({@code atMillis} after the job started running), what
   * the job was doing ({@code during}: "processing", "epoch 3 HANDING_OVER", "checkpoint 7 (2
   * snapshots)"), and the planned crash it was.
   */
  record Injected(TaskId task, long atMillis, String during, PlannedCrash crash)
      implements KoalaMessage {
    @Override
    public String toString() {
      return task + " at " + atMillis + " ms during " + during + " (" + crash + ")";
    }
  }
}
