package io.koala.coordinator;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * When a job whose attempt failed is deployed again, and when it gives up (DESIGN §8): the wait
 * doubles with each rollback of a period of failures, up to a longest wait, with ±10 % jitter; a
 * job that has not rolled back for {@code resetAfter} starts a new period, so that incidents months
 * apart never add up to a failed job.
 *
 * @param maxRestarts rollbacks a period may take; the next failure in it fails the job
 * @param backoff the wait before the first redeployment of a period
 * @param maxBackoff the longest wait
 * @param resetAfter how long a job must go without a rollback for its next failure to start a new
 *     period
 */
public record RestartPolicy(
    int maxRestarts, Duration backoff, Duration maxBackoff, Duration resetAfter) {

  /** The share of a wait by which it is drawn longer or shorter. */
  static final double JITTER = 0.1;

  public RestartPolicy {
    if (maxRestarts < 0
        || backoff.isNegative()
        || maxBackoff.compareTo(backoff) < 0
        || resetAfter.isNegative()
        || resetAfter.isZero()) {
      throw new IllegalArgumentException(
          "restarts "
              + maxRestarts
              + ", backoff "
              + backoff
              + " up to "
              + maxBackoff
              + ", reset after "
              + resetAfter
              + ": need restarts >= 0, 0 <= backoff <= longest backoff, reset after > 0");
    }
  }

  /**
   * The wait before deploying attempt {@code attempt} of job {@code jobId} after rollback {@code
   * restart} of its period (1 for the first): {@code backoff × 2^(restart − 1)}, at most {@code
   * maxBackoff}, then longer or shorter by up to {@link #JITTER} of it, drawn from the job and the
   * attempt alone: the same in every run (and in the simulator), different across jobs, so that
   * jobs that failed together do not all come back at once.
   */
  public Duration delay(String jobId, int attempt, int restart) {
    long base = backoff.toMillis();
    for (int i = 1; i < restart && base < maxBackoff.toMillis(); i++) {
      base *= 2;
    }
    base = Math.min(base, maxBackoff.toMillis());
    double draw = new SplittableRandom(jobId.hashCode() * 1_000_003L + attempt).nextDouble(-1, 1);
    return Duration.ofMillis(Math.round(base * (1 + JITTER * draw)));
  }
}
