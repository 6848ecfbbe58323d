package io.koala.job;

import java.util.List;

/**
 * What the autoscaler ({@code koala.autoscaler}) of a job has found and done: its last evaluation
 * of every operator and its latest decisions, with how many of each kind it has taken since the
 * job's coordinator started.
 *
 * @param enabled whether the job is autoscaled
 * @param evaluations the last evaluation of every operator, in topological order
 * @param decisions the latest decisions, oldest first (at most {@link #KEPT})
 * @param scaleOuts scale-outs decided
 * @param scaleIns scale-ins decided
 * @param rebalances rebalances decided
 */
public record AutoscalerStatus(
    boolean enabled,
    List<AutoscalerEvaluation> evaluations,
    List<AutoscalerDecision> decisions,
    long scaleOuts,
    long scaleIns,
    long rebalances) {
  /** The most decisions a status lists. */
  public static final int KEPT = 100;

  /** The status of a job that is not autoscaled. */
  public static final AutoscalerStatus OFF =
      new AutoscalerStatus(false, List.of(), List.of(), 0, 0, 0);

  public AutoscalerStatus {
    evaluations = List.copyOf(evaluations);
    decisions = List.copyOf(decisions);
  }

  /** Decisions of every kind taken. */
  public long decided() {
    return scaleOuts + scaleIns + rebalances;
  }
}
