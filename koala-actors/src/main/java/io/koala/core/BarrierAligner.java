package io.koala.core;

import io.koala.core.checkpoint.TaskCheckpoint;
import java.util.ArrayList;
import java.util.List;

/**
 * When the task snapshots (DESIGN §8): aligned barriers, as Flink does. A barrier holds the channel
 * it came on (its later items wait in the {@link InputGate}) until every open input has delivered
 * it; then the task snapshots, between batches, so the snapshot is exactly what the items before
 * the barrier made, sends the barrier downstream after what came before it, and the held channels
 * flow again. A source snapshots when the coordinator triggers it; a retired holder once it has
 * finished.
 */
final class BarrierAligner {
  private static final long NO_CHECKPOINT = -1;

  private final TaskSetup setup;
  private final TaskEngine.Services services;
  private final OperatorChain chain;
  private final InputGate input;
  private final OutputGate output;
  private final EventTime eventTime;
  private final SourceDriver source; // null: not a source
  private final StatePlane keyed; // null: the chain keeps no keyed state
  private long aligning = NO_CHECKPOINT; // the barrier being aligned
  private long lastBarrier; // the checkpoint this task last snapshotted (0: none)
  private long holderSnapshot = NO_CHECKPOINT; // asked of a retired holder before it finished

  BarrierAligner(
      TaskSetup setup,
      TaskEngine.Services services,
      OperatorChain chain,
      InputGate input,
      OutputGate output,
      EventTime eventTime,
      SourceDriver source,
      StatePlane keyed) {
    this.setup = setup;
    this.services = services;
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
   * A barrier arrived on {@code lane}: the channel waits until every open input has delivered it.
   */
  void barrier(InputGate.Lane lane, long checkpointId) {
    if (checkpointId <= lastBarrier
        || (aligning != NO_CHECKPOINT && checkpointId != aligning)
        || !input.hold(lane)) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + ": barrier "
              + checkpointId
              + " on channel "
              + lane.channel.id()
              + " while aligning "
              + aligning
              + " after "
              + lastBarrier);
    }
    aligning = checkpointId;
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
    aligning = NO_CHECKPOINT;
    input.releaseHolds();
    snapshot(id, running);
    output.forwardBarrier(id);
  }

  /** The coordinator triggered checkpoint {@code checkpointId} at this source. */
  void trigger(long checkpointId, boolean running) {
    if (checkpointId > lastBarrier) {
      snapshot(checkpointId, running);
      output.forwardBarrier(checkpointId);
    }
  }

  /**
   * The coordinator asks this retired holder for a snapshot: taken now if it has {@code finished},
   * else once it has ({@link #finished}). Repeats are ignored.
   */
  void snapshotHolder(long checkpointId, boolean finished) {
    if (checkpointId <= lastBarrier) {
      return;
    }
    if (finished) {
      snapshot(checkpointId, false);
    } else {
      holderSnapshot = checkpointId; // once its outputs have delivered their ends
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
    if (chain.opened() && running) {
      chain.eachOperator(op -> op.snapshotState(checkpointId));
    }
    byte[] metadata =
        new TaskCheckpoint(
                checkpointId,
                eventTime.current(),
                output.forwardedWatermark(),
                output.idleSent(),
                input.endedChannels(),
                source == null ? new ArrayList<>() : source.offsets(),
                keyed == null ? null : keyed.snapshotLocations())
            .encode();
    lastBarrier = checkpointId;
    services.snapshot(checkpointId, keyed == null ? null : keyed.beginSnapshot(), metadata);
  }

  /** For diagnostics: the checkpoint being aligned and the inputs it still waits for. */
  String alignment(TaskEngine.Status status, int parked) {
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
