package io.koala.job;

/**
 * A job's checkpoints as its coordinator saw them: how many it committed since it started, the
 * latest one's id, duration (from its trigger to its commit) and size (the bytes of its tasks'
 * snapshot files), how many it found corrupt and quarantined (moved aside, never deleted), how many
 * it abandoned because they were not committed within {@code koala.checkpoint.timeout}, and the
 * checkpoint in progress, if one is.
 *
 * @param pending the checkpoint triggered and not yet committed, or null
 */
public record CheckpointStats(
    long completed,
    long lastId,
    long lastDurationMillis,
    long lastBytes,
    long quarantined,
    long timedOut,
    Pending pending) {

  /** Statistics of a coordinator that abandoned no checkpoint for its timeout. */
  public CheckpointStats(
      long completed,
      long lastId,
      long lastDurationMillis,
      long lastBytes,
      long quarantined,
      Pending pending) {
    this(completed, lastId, lastDurationMillis, lastBytes, quarantined, 0, pending);
  }

  /**
   * A checkpoint in progress: its id, how long ago it was triggered ({@code
   * koala.checkpoint.timeout} abandons it), and what it waits for (each task that has not reported,
   * and for what).
   */
  public record Pending(long id, long millis, String waitingFor) {}

  /** No checkpoint committed yet (or checkpoints off). */
  public static final CheckpointStats NONE = new CheckpointStats(0, 0, 0, 0, 0, 0, null);

  /** These statistics after checkpoint {@code id} committed. */
  public CheckpointStats committed(long id, long durationMillis, long bytes) {
    return new CheckpointStats(
        completed + 1, id, durationMillis, bytes, quarantined, timedOut, null);
  }

  /** These statistics after a checkpoint was found corrupt and its files moved aside. */
  public CheckpointStats afterQuarantine() {
    return new CheckpointStats(
        completed, lastId, lastDurationMillis, lastBytes, quarantined + 1, timedOut, pending);
  }

  /** These statistics after the checkpoint in progress was abandoned for its timeout. */
  public CheckpointStats afterTimeout() {
    return new CheckpointStats(
        completed, lastId, lastDurationMillis, lastBytes, quarantined, timedOut + 1, null);
  }

  /** These statistics with {@code pending} in progress (null: none). */
  public CheckpointStats withPending(Pending pending) {
    return new CheckpointStats(
        completed, lastId, lastDurationMillis, lastBytes, quarantined, timedOut, pending);
  }
}
