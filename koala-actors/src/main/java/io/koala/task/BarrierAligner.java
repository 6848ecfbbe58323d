package io.koala.task;

import io.koala.protocol.CheckpointMessage;
import io.koala.protocol.ProtocolViolationException;
import io.koala.protocol.TaskSetup;
import java.util.List;
import java.util.Map;

/**
 * When the task snapshots (DESIGN §8): aligned barriers, as Flink does. A barrier holds the channel
 * it came on (its later items wait in the {@link InputGate}) until every open input has delivered
 * it; then the task snapshots, between batches, so the snapshot is exactly what the items before
 * the barrier made, sends the barrier downstream after what came before it, and the held channels
 * flow again. A source snapshots when the coordinator triggers it; a retired holder once it has
 * finished. A committed checkpoint releases what no restorable checkpoint needs any more (§6.7).
 *
 * <p>A checkpoint the coordinator abandons (its timeout, with tolerable failures left) ends its
 * alignment here: the held channels flow again and its barriers that come later are dropped. A
 * barrier of a newer checkpoint ends the alignment of an older one the same way, as the coordinator
 * triggers a checkpoint only once the one before has committed or been abandoned (its abort may
 * reach this task after the newer barrier: they come by different ways).
 */
final class BarrierAligner {
  private static final long NO_CHECKPOINT = -1;

  private final TaskSetup setup;
  private final TaskHost host;
  private final OperatorChain chain;
  private final InputGate input;
  private final OutputGate output;
  private final EventTime eventTime;
  private final SourceDriver source;
  private final StatePlane keyed; // null: the chain keeps no keyed state
  private long aligning = NO_CHECKPOINT; // the barrier being aligned
  private long lastBarrier; // the checkpoint this task last snapshotted (0: none)
  private long holderSnapshot = NO_CHECKPOINT; // asked of a retired holder before it finished
  private long abandoned; // the newest checkpoint known abandoned: its late barriers are dropped

  BarrierAligner(
      TaskSetup setup,
      TaskHost host,
      OperatorChain chain,
      InputGate input,
      OutputGate output,
      EventTime eventTime,
      SourceDriver source,
      StatePlane keyed) {
    this.setup = setup;
    this.host = host;
    this.chain = chain;
    this.input = input;
    this.output = output;
    this.eventTime = eventTime;
    this.source = source;
    this.keyed = keyed;
  }

  /** The checkpoint this task last snapshotted (0: none). */
  long lastBarrier() {
    return lastBarrier;
  }

  /** Resumes from checkpoint {@code checkpointId}. */
  void restore(long checkpointId) {
    lastBarrier = checkpointId;
  }

  /**
   * Resumes the task from its snapshot {@code cp}: the last barrier, event time, what downstream
   * was told, the inputs that had ended, and the lookup table.
   */
  void restoreTask(TaskCheckpoint cp) {
    restore(cp.checkpointId());
    eventTime.restore(cp.watermark());
    output.restore(cp.forwardedWatermark(), cp.idle());
    source.restoreWatermark(cp.forwardedWatermark());
    for (int channel : cp.endedInputs()) {
      InputGate.Lane lane = input.restoreEnded(channel);
      if (lane != null) { // else a peer channel of an epoch before the checkpoint
        eventTime.onEnd(lane.watermarkIndex());
      }
    }
    if (keyed != null) {
      keyed.restore(cp);
    }
  }

  /**
   * A barrier arrived on {@code lane}: the channel waits until every open input has delivered it.
   * One of an abandoned checkpoint is dropped, during an epoch too ({@code epochRunning}: the abort
   * reached this task before the epoch's commands, which the coordinator sent after it); any other
   * during an epoch breaks C1. One of a newer checkpoint than the one being aligned abandons that
   * alignment.
   */
  void barrier(InputGate.Lane lane, long checkpointId, boolean epochRunning) {
    if (checkpointId <= abandoned) {
      return;
    }
    if (epochRunning) {
      throw new ProtocolViolationException(
          "task " + setup.task() + ": barrier " + checkpointId + " during an epoch (C1)");
    }
    if (aligning != NO_CHECKPOINT && checkpointId < aligning) {
      abandoned = checkpointId; // older than the alignment: abandoned, or it would have ended
      return;
    }
    if (aligning != NO_CHECKPOINT && checkpointId > aligning) {
      abandonAlignment(aligning);
    }
    if (checkpointId <= lastBarrier || !input.hold(lane)) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + ": barrier "
              + checkpointId
              + " on channel "
              + lane.channel().id()
              + " while aligning "
              + aligning
              + " after "
              + lastBarrier);
    }
    aligning = checkpointId;
  }

  /**
   * Checkpoint {@code checkpointId} was abandoned: its alignment ends, the held channels flow again
   * (their items first), and its barriers are dropped from now on.
   */
  private void abandonAlignment(long checkpointId) {
    abandoned = Math.max(abandoned, checkpointId);
    if (aligning != NO_CHECKPOINT && aligning <= checkpointId) {
      aligning = NO_CHECKPOINT;
      input.releaseHolds();
    }
  }

  /**
   * Once every open input has delivered the barrier being aligned (an input that ended counts):
   * snapshots, emits the barrier, and lets the held items run, in their order.
   */
  void checkAligned(boolean running) {
    if (aligning == NO_CHECKPOINT || !input.allHeld()) {
      return;
    }
    long id = aligning;
    if (keyed != null && !keyed.nothingParked()) {
      // every barrier waited for the records parked before it: any still parked came after one
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + ": checkpoint "
              + id
              + " aligned with "
              + keyed.parkedCount()
              + " records parked");
    }
    aligning = NO_CHECKPOINT;
    input.releaseHolds();
    snapshot(id, running);
    output.forwardBarrier(id);
  }

  /**
   * Carries out a checkpoint command at a task in {@code status} (see {@link
   * TaskEngine#onCheckpoint}): a source snapshots and emits the barrier (and reads nothing more
   * when the job stops with that checkpoint, until resumed); a retired holder snapshots once it has
   * finished ({@link #finished}); an abandoned checkpoint's alignment ends; a committed checkpoint
   * releases the copies installed before the barrier of the oldest checkpoint still restorable, and
   * tells the operators. Repeats are ignored.
   */
  void onCommand(CheckpointMessage.Command c, TaskStatus status) {
    if (c instanceof CheckpointMessage.TriggerCheckpoint t) {
      if (!source.isSource()) {
        throw new ProtocolViolationException(
            "checkpoint " + t.checkpointId() + " triggered at " + setup.task() + ", no source");
      }
      if (t.checkpointId() > lastBarrier) {
        snapshot(t.checkpointId(), status == TaskStatus.RUNNING);
        output.forwardBarrier(t.checkpointId());
        if (t.stopSources()) {
          source.pause(); // a stop with a savepoint: nothing after the barrier, and no end
        }
      }
    } else if (c instanceof CheckpointMessage.SnapshotHolder h) {
      if (h.checkpointId() <= lastBarrier) {
        return;
      }
      if (status == TaskStatus.FINISHED) {
        snapshot(h.checkpointId(), false);
      } else {
        holderSnapshot = h.checkpointId(); // once its outputs have delivered their ends
      }
    } else if (c instanceof CheckpointMessage.AbortCheckpoint a) {
      abandonAlignment(a.checkpointId());
    } else if (c instanceof CheckpointMessage.CheckpointCommitted cc) {
      if (keyed != null) {
        keyed.releaseBefore(cc.oldestRestorable());
      }
      chain.checkpointCommitted(cc.checkpointId());
      if (source.isSource()) {
        source.checkpointCompleted(cc.checkpointId());
      }
    }
  }

  /** The task has finished: a holder snapshot asked for before is taken now. */
  void finished() {
    if (holderSnapshot != NO_CHECKPOINT) {
      snapshot(holderSnapshot, false);
      holderSnapshot = NO_CHECKPOINT;
    }
  }

  /**
   * Hands the host this task's snapshot: a read transaction of its store opened now, between
   * batches (so it sees exactly what the records before the barrier did, C2), and the rest of its
   * state ({@link TaskCheckpoint}). A {@code running} task's operators snapshot first, in chain
   * order, so what they emit precedes the barrier.
   */
  private void snapshot(long checkpointId, boolean running) {
    Map<String, byte[]> sinkStates = Map.of(); // a finished sink has published everything
    if (chain.opened() && running) {
      chain.eachOperator(op -> op.snapshotState(checkpointId));
      sinkStates = chain.sinkStates();
    } else if (chain.sinkPending()) {
      chain.prepareSink(checkpointId); // a retired sink's output waits for this checkpoint
      sinkStates = chain.sinkStates();
    }
    byte[] metadata =
        new TaskCheckpoint(
                checkpointId,
                eventTime.current(),
                output.forwardedWatermark(),
                output.idleSent(),
                input.endedChannels(),
                source.positions(checkpointId),
                keyed == null ? null : keyed.snapshotLocations(),
                sinkStates)
            .encode();
    lastBarrier = checkpointId;
    host.snapshot(checkpointId, keyed == null ? null : keyed.beginSnapshot(), metadata);
  }

  /** For diagnostics: the checkpoint being aligned and the inputs it still waits for. */
  String alignment(TaskStatus status, int parked) {
    if (aligning == NO_CHECKPOINT) {
      return "not aligning (last barrier " + lastBarrier + ", status " + status + ")";
    }
    List<String> waiting = input.waitingForBarrier();
    return "aligning "
        + aligning
        + ", waiting for "
        + waiting
        + ", "
        + input.pending()
        + " pending, parked "
        + parked;
  }
}
