package io.koala.connector;

/**
 * Records a source task could read but has not, and how long the oldest of them has been available.
 */
public record Backlog(long records, double oldestSeconds) {
  /** A reader that cannot tell (the lag metric then counts it as none). */
  public static final Backlog UNKNOWN = new Backlog(0, 0);
}
