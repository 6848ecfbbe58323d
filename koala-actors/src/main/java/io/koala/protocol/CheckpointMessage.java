package io.koala.protocol;

/**
 * Coordinator → task commands of checkpointing (DESIGN §8). The barriers themselves travel in-band
 * ({@link io.koala.protocol.CheckpointBarrier}); a task's host reports the snapshot it wrote.
 */
public sealed interface CheckpointMessage extends KoalaMessage {

  /** A command to one task; each is idempotent. */
  sealed interface Command extends CheckpointMessage, TaskMessage {}

  /**
   * To every source task: snapshot the offsets read so far and emit barrier {@code checkpointId} on
   * every output, after the records read before it; with {@code stopSources} (a stop with a
   * savepoint), read nothing more after it, and do not end the input.
   */
  record TriggerCheckpoint(long checkpointId, boolean stopSources) implements Command {
    /** A checkpoint the sources go on reading after. */
    public TriggerCheckpoint(long checkpointId) {
      this(checkpointId, false);
    }
  }

  /**
   * To a retired holder, which has no inputs: snapshot the state it holds once its outputs have
   * delivered their ends (its state changes afterwards only by releases).
   */
  record SnapshotHolder(long checkpointId) implements Command {}

  /**
   * To every task a checkpoint in progress reached with its barrier, once the coordinator abandoned
   * it (it was not complete within {@code koala.checkpoint.timeout}, and the job goes on without a
   * rollback): an alignment of its barrier ends, the held channels flow again, and its barriers
   * that arrive later are dropped. The next checkpoint's commit publishes what this one would have.
   */
  record AbortCheckpoint(long checkpointId) implements Command {}

  /**
   * To every task, once checkpoint {@code checkpointId} is durably recorded: the oldest checkpoint
   * a rollback may still restore is {@code oldestRestorable}, so copies installed before its
   * barrier may be released at their holders (§6.7), and output up to the checkpoint may be
   * published.
   */
  record CheckpointCommitted(long checkpointId, long oldestRestorable) implements Command {}
}
