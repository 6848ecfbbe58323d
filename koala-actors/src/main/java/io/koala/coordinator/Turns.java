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
  /** What the turns ask of the checkpoints and epochs, and tell them. */
  interface Parts {
    /** Whether a checkpoint is in progress ({@link JobCheckpoints}). */
    boolean checkpointInProgress();

    /** Whether a checkpoint is due or asked for. */
    boolean checkpointWanted();

    /** Whether the job stops with a savepoint: nothing starts any more. */
    boolean stoppingWithSavepoint();

    /** Whether a retired task's sink keeps output only a checkpoint publishes. */
    boolean retiredSinkOutputUnpublished();

    /** Triggers a checkpoint if one is wanted and may start. */
    void maybeCheckpoint();

    /** Whether an epoch runs ({@link EpochRunner}). */
    boolean epochRunning();

    /** The last epoch run or begun. */
    long lastEpoch();

    /** The next queued epoch starts, if it may. */
    void startNextEpoch();
  }

  private final JobSetup setup;
  private final Outbox out;
  private final Attempts attempts;
  private final CurrentStatus job;
  private final Parts parts;
  private InputEnds inputEnds = new InputEnds();
  private boolean epochsTurn; // a checkpoint committed since the last epoch started

  Turns(JobSetup setup, Outbox out, Attempts attempts, CurrentStatus job, Parts parts) {
    this.setup = setup;
    this.out = out;
    this.attempts = attempts;
    this.job = job;
    this.parts = parts;
  }

  /**
   * Whether epochs must wait: while recovering, for a checkpoint in progress or due, or while the
   * job stops with a savepoint.
   */
  boolean epochsHeld() {
    if (attempts.recovering() || parts.stoppingWithSavepoint()) {
      return true;
    }
    if (setup.planted().epochDuringCheckpoint()) {
      return false; // a planted bug (hazard C1), in the simulator's tests of its checks
    }
    return setup.checkpointing() != null
        && !inputEnds.finishing()
        && (parts.checkpointInProgress() || (!epochsTurn && parts.checkpointWanted()));
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
    if (!job.running()) {
      return;
    }
    inputEnds.ended(m.task());
    parts.startNextEpoch(); // rejects what is queued, and lets the source end unless an epoch runs
  }

  /**
   * No reconfiguration or checkpoint runs, and none will start: the sources may end — after one
   * last checkpoint when a retired task's sink keeps output only a checkpoint publishes.
   */
  void releaseInputs() {
    if (!parts.epochRunning()
        && job.running()
        && !attempts.recovering()
        && !parts.checkpointInProgress()) {
      if (inputEnds.finishing() && parts.retiredSinkOutputUnpublished()) {
        parts.maybeCheckpoint(); // its commit releases the inputs
        return;
      }
      for (TaskId t : inputEnds.release()) {
        out.tell(t, new EpochMessage.EndInput(parts.lastEpoch()));
      }
    }
  }

  /** A rollback: the restored sources have not read all their input. */
  void rolledBack() {
    inputEnds = new InputEnds();
  }
}
