package io.koala.samples.borg;

/** The type of a task event, numbered as in Google's cluster trace (2011): ordinal 0 to 8. */
public enum BorgEventType {
  SUBMIT(0.27),
  SCHEDULE(0.26),
  EVICT(0.03),
  FAIL(0.04),
  FINISH(0.20),
  KILL(0.15),
  LOST(0.005),
  UPDATE_PENDING(0.01),
  UPDATE_RUNNING(0.035);

  private static final BorgEventType[] ALL = values();

  private final double share;

  BorgEventType(double share) {
    this.share = share;
  }

  /** The type's relative frequency among a job's events in the generated trace. */
  public double share() {
    return share;
  }

  /** The type of ordinal {@code ordinal}. */
  public static BorgEventType of(int ordinal) {
    return ALL[ordinal];
  }

  /** How many types there are. */
  public static int count() {
    return ALL.length;
  }
}
