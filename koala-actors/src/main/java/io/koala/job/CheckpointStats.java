package io.koala.job;

/**
 * A job's checkpoints as its coordinator saw them: how many it committed since it started, and the
 * latest one's id, duration (from its trigger to its commit) and size (the bytes of its tasks'
 * snapshot files).
 */
public record CheckpointStats(
    long completed, long lastId, long lastDurationMillis, long lastBytes) {

  /** No checkpoint committed yet (or checkpoints off). */
  public static final CheckpointStats NONE = new CheckpointStats(0, 0, 0, 0);

  /** These statistics after checkpoint {@code id} committed. */
  public CheckpointStats committed(long id, long durationMillis, long bytes) {
    return new CheckpointStats(completed + 1, id, durationMillis, bytes);
  }
}
