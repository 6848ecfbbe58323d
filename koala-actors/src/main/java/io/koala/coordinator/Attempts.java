package io.koala.coordinator;

import java.util.ArrayDeque;

/**
 * The job's deployment attempts as numbers (DESIGN §8): the current attempt, whether it is
 * recovering — from a rollback until its tasks have all started — and the restarts and rollbacks so
 * far. {@link Recovery} moves them; the other parts read them. Attempts only ever go up: what a
 * task of an older attempt says is dropped.
 */
final class Attempts {
  private int current;
  private int restarts; // rollbacks that failures spent this period (koala.checkpoint.max-restarts)
  private long lastRestartMillis;
  // when the restarts were spent, oldest first: those within a failure-rate interval
  private final ArrayDeque<Long> restartTimes = new ArrayDeque<>();
  private int rollbacks; // since this coordinator started (its takeover counts as one)
  private boolean recovering;

  /** The current attempt. */
  int current() {
    return current;
  }

  /** Whether {@code attempt} is the current one. */
  boolean isCurrent(int attempt) {
    return attempt == current;
  }

  /** Whether the job is recovering: from a rollback until the new attempt's tasks are started. */
  boolean recovering() {
    return recovering;
  }

  int restarts() {
    return restarts;
  }

  int rollbacks() {
    return rollbacks;
  }

  /** When the last restart was spent (0: none yet). */
  long lastRestartMillis() {
    return lastRestartMillis;
  }

  /** A failure at {@code nowMillis} spends one of the restarts. */
  void restart(long nowMillis) {
    restarts++;
    lastRestartMillis = nowMillis;
    restartTimes.addLast(nowMillis);
  }

  /**
   * The restarts spent at or after {@code fromMillis}; those before it are forgotten (by failure
   * rate, the job keeps only the restarts of its last interval).
   */
  int restartsSince(long fromMillis) {
    while (!restartTimes.isEmpty() && restartTimes.peekFirst() < fromMillis) {
      restartTimes.removeFirst();
    }
    return restartTimes.size();
  }

  /**
   * The job went long enough without a rollback ({@link RestartPolicy#resetAfter}): its restarts
   * count from 0 again.
   */
  void newPeriod() {
    restarts = 0;
    restartTimes.clear(); // by exponential delay, a period's times are all it ever keeps
  }

  /** The job rolls back: the next attempt recovers. */
  void rollingBack() {
    current++;
    rollbacks++;
    recovering = true;
  }

  /**
   * A coordinator taking over from an earlier one of the job numbers its attempts from {@code
   * attempt}, above any the earlier ones used.
   */
  void startAt(int attempt) {
    if (attempt < current) {
      throw new IllegalStateException("attempt " + attempt + " after attempt " + current);
    }
    current = attempt;
  }

  /** The takeover's first attempt recovers, as after a rollback, from the journal's checkpoint. */
  void recoveringFromPredecessor() {
    rollbacks++;
    recovering = true;
  }

  /** Every task of the recovering attempt started. */
  void resumed() {
    recovering = false;
  }
}
