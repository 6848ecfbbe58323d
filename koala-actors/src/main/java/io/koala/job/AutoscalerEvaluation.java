package io.koala.job;

import java.util.Objects;

/**
 * What the autoscaler ({@code koala.autoscaler}) last found for one operator, whether or not it
 * changed anything. Rates are in records per second; a rate not measured is {@code NaN}.
 *
 * @param atMillis the time of the metrics it evaluated
 * @param operator the operator (the first of its chain)
 * @param parallelism its live tasks
 * @param inputRate the records it was given per second, over the last interval
 * @param targetRate the records per second it must keep up with: its sources' arrival rate plus
 *     their backlog spread over {@code koala.autoscaler.catch-up}, through the selectivities of the
 *     operators between
 * @param trueRatePerTask the records one of its tasks processes per second of busy time
 * @param busiestUtilization the busy share of its busiest task at the target rate with the current
 *     bucket placement (above {@code 1 / headroom}: over the target)
 * @param wanted the parallelism the target rate needs with the headroom
 * @param verdict what it decided, or why it changed nothing, in words
 */
public record AutoscalerEvaluation(
    long atMillis,
    String operator,
    int parallelism,
    double inputRate,
    double targetRate,
    double trueRatePerTask,
    double busiestUtilization,
    int wanted,
    String verdict) {
  public AutoscalerEvaluation {
    Objects.requireNonNull(operator, "operator");
    Objects.requireNonNull(verdict, "verdict");
  }
}
