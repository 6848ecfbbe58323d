package io.koala.coordinator;

import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;

/**
 * Who goes next among reconfiguration epochs, checkpoints and the ends of the sources (DESIGN §8):
 * no epoch starts while a checkpoint is in progress or due, except that right after a checkpoint
 * commits the next queued epoch goes first even if another checkpoint is already due — they take
 * turns, so checkpoints that take longer than their interval do not hold reconfigurations back for
 * good; and a source that has read all its input ends only while neither an epoch nor a checkpoint
 * runs (and once one has, no epoch or checkpoint starts).
 */
final class Turns {
  private final JobCore job;
  private InputEnds inputEnds = new InputEnds();
  private boolean epochsTurn; // a checkpoint committed since the last epoch started

  Turns(JobCore job) {
    this.job = job;
  }

  /**
   * Whether epochs must wait: while recovering, for a checkpoint in progress or due, or while the
   * job stops with a savepoint.
   */
  boolean epochsHeld() {
    if (job.attempts.recovering() || job.checkpoints.stopping()) {
      return true;
    }
    if (!job.setup.epochsWaitForCheckpoints()) {
      return false; // a planted bug (hazard C1), in the simulator's tests of its checks
    }
    return job.checkpoints.on()
        && !inputEnds.finishing()
        && (job.checkpoints.inProgress() || (!epochsTurn && job.checkpoints.wanted()));
  }

  void epochStarted() {
    epochsTurn = false;
  }

  void checkpointCommitted() {
    epochsTurn = true;
  }

  /** Whether a source has read all its input: the job is finishing. */
  boolean finishing() {
    return inputEnds.finishing();
  }

  /** The first source that read all its input. */
  TaskId firstEnded() {
    return inputEnds.first();
  }

  /** A source read all its input: it ends now, or once the running epoch or checkpoint is done. */
  void onInputEnded(EpochMessage.InputEnded m) {
    if (!job.lifecycle.running()) {
      return;
    }
    inputEnds.ended(m.task());
    job.epochs.startNext(); // rejects what is queued, and lets the source end unless an epoch runs
  }

  /**
   * No reconfiguration or checkpoint runs, and none will start: the sources may end — after one
   * last checkpoint when a retired task's sink keeps output only a checkpoint publishes.
   */
  void releaseInputs() {
    if (!job.epochs.running()
        && job.lifecycle.running()
        && !job.attempts.recovering()
        && !job.checkpoints.inProgress()) {
      if (inputEnds.finishing() && job.checkpoints.retiredSinkOutputUnpublished()) {
        job.checkpoints.maybeCheckpoint(); // its commit releases the inputs
        return;
      }
      for (TaskId t : inputEnds.release()) {
        job.tell(t, new EpochMessage.EndInput(job.epochs.lastEpoch()));
      }
    }
  }

  /** A rollback: the restored sources have not read all their input. */
  void rolledBack() {
    inputEnds = new InputEnds();
  }
}
