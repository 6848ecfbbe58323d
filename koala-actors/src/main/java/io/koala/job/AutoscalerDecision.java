package io.koala.job;

import java.util.Objects;

/**
 * A change the autoscaler ({@code koala.autoscaler}) decided for one operator, with its reasons.
 *
 * @param atMillis when it was decided (the time of the metrics it was decided from)
 * @param operator the operator changed (the first of its chain)
 * @param kind what changed
 * @param fromParallelism its live tasks before
 * @param toParallelism its live tasks after (the same for a rebalance)
 * @param reason the measurements and the rule that led to it, in words
 * @param outcome {@value #RUNNING} until its reconfiguration ends, then {@code "completed in N
 *     ms"}, or {@code "refused: ..."} with the reason
 */
public record AutoscalerDecision(
    long atMillis,
    String operator,
    Kind kind,
    int fromParallelism,
    int toParallelism,
    String reason,
    String outcome) {
  /** The outcome of a decision whose reconfiguration has not ended. */
  public static final String RUNNING = "running";

  public AutoscalerDecision {
    Objects.requireNonNull(operator, "operator");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** This decision with {@code outcome}. */
  public AutoscalerDecision withOutcome(String outcome) {
    return new AutoscalerDecision(
        atMillis, operator, kind, fromParallelism, toParallelism, reason, outcome);
  }

  /** What a decision changes. */
  public enum Kind {
    /** More tasks. */
    SCALE_OUT,
    /** Fewer tasks. */
    SCALE_IN,
    /** The same tasks, buckets moved from the busiest to the least busy by measured load. */
    REBALANCE
  }
}
