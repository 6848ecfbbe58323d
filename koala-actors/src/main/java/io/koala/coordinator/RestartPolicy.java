package io.koala.coordinator;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * When a job whose attempt failed is deployed again, and when it gives up (DESIGN §8), by one of
 * two strategies. <b>Exponential delay</b> (the default): the wait doubles with each rollback of a
 * period of failures, up to a longest wait; a job that has not rolled back for {@code resetAfter}
 * starts a new period, so that incidents months apart never add up to a failed job; more than
 * {@code maxRestarts} rollbacks in one period fail it. <b>Failure rate</b> ({@code
 * failureRateInterval} not null): every wait is {@code backoff}, and the job fails when a failure
 * would make more than {@code maxRestarts} rollbacks within the last {@code failureRateInterval}.
 * Every wait is drawn up to {@link #JITTER} longer or shorter.
 *
 * @param maxRestarts rollbacks a period (or the interval) may take; the next failure fails the job
 * @param backoff the wait before the first redeployment of a period (every one, by failure rate)
 * @param maxBackoff the longest wait
 * @param resetAfter how long a job must go without a rollback for its next failure to start a new
 *     period (exponential delay)
 * @param failureRateInterval null for exponential delay; else the window in which at most {@code
 *     maxRestarts} rollbacks are allowed
 */
public record RestartPolicy(
    int maxRestarts,
    Duration backoff,
    Duration maxBackoff,
    Duration resetAfter,
    Duration failureRateInterval) {

  /** The share of a wait by which it is drawn longer or shorter. */
  static final double JITTER = 0.1;

  public RestartPolicy {
    if (maxRestarts < 0
        || backoff.isNegative()
        || maxBackoff.compareTo(backoff) < 0
        || resetAfter.isNegative()
        || resetAfter.isZero()
        || (failureRateInterval != null
            && (failureRateInterval.isNegative() || failureRateInterval.isZero()))) {
      throw new IllegalArgumentException(
          "restarts "
              + maxRestarts
              + ", backoff "
              + backoff
              + " up to "
              + maxBackoff
              + ", reset after "
              + resetAfter
              + (failureRateInterval == null
                  ? ""
                  : ", failure-rate interval " + failureRateInterval)
              + ": need restarts >= 0, 0 <= backoff <= longest backoff, reset after > 0, an"
              + " interval > 0");
    }
  }

  /** The exponential-delay strategy. */
  public RestartPolicy(
      int maxRestarts, Duration backoff, Duration maxBackoff, Duration resetAfter) {
    this(maxRestarts, backoff, maxBackoff, resetAfter, null);
  }

  /** Whether this is the failure-rate strategy. */
  public boolean failureRate() {
    return failureRateInterval != null;
  }

  /**
   * The wait before deploying attempt {@code attempt} of job {@code jobId} after rollback {@code
   * restart} of its period (1 for the first): {@code backoff × 2^(restart − 1)}, at most {@code
   * maxBackoff} ({@code backoff} by failure rate), then longer or shorter by up to {@link #JITTER}
   * of it, drawn from the job and the attempt alone: the same in every run (and in the simulator),
   * different across jobs, so that jobs that failed together do not all come back at once.
   */
  public Duration delay(String jobId, int attempt, int restart) {
    long base = backoff.toMillis();
    for (int i = 1; !failureRate() && i < restart && base < maxBackoff.toMillis(); i++) {
      base *= 2;
    }
    base = Math.min(base, maxBackoff.toMillis());
    double draw = new SplittableRandom(jobId.hashCode() * 1_000_003L + attempt).nextDouble(-1, 1);
    return Duration.ofMillis(Math.round(base * (1 + JITTER * draw)));
  }
}
