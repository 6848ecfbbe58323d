package io.koala.job;

/**
 * A job's checkpoints as its coordinator saw them: how many it committed since it started, and the
 * latest one's id, duration (from its trigger to its commit) and size (the bytes of its tasks'
 * snapshot files), and how many it found corrupt and quarantined (moved aside, never deleted).
 */
public record CheckpointStats(
    long completed, long lastId, long lastDurationMillis, long lastBytes, long quarantined) {

  /** No checkpoint committed yet (or checkpoints off). */
  public static final CheckpointStats NONE = new CheckpointStats(0, 0, 0, 0, 0);

  /** These statistics after checkpoint {@code id} committed. */
  public CheckpointStats committed(long id, long durationMillis, long bytes) {
    return new CheckpointStats(completed + 1, id, durationMillis, bytes, quarantined);
  }

  /** These statistics after a checkpoint was found corrupt and its files moved aside. */
  public CheckpointStats afterQuarantine() {
    return new CheckpointStats(completed, lastId, lastDurationMillis, lastBytes, quarantined + 1);
  }
}
