package io.koala.autoscaler;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The autoscaler's settings ({@code koala.autoscaler}); checked when the configuration is read.
 *
 * @param enabled whether jobs are autoscaled
 * @param interval how often it decides, from the load measured over the last interval
 * @param headroom an operator's parallelism is {@code ceil(target rate × headroom ÷ true rate per
 *     task)}: its busiest task runs at most {@code 1 / headroom} of its time at the target rate
 * @param scaleInHysteresis a scale-in is taken only when the smaller parallelism would still serve
 *     the target rate with {@code headroom × (1 + scaleInHysteresis)}
 * @param cooldown how long after a scale-out of an operator it is not scaled in (scale-outs,
 *     rebalances and a scale-in after a scale-in do not wait), so that its parallelism cannot
 *     change direction twice within it
 * @param maxStep the most tasks one decision adds or removes
 * @param minParallelism the fewest tasks it leaves an operator
 * @param maxParallelism the most tasks it gives an operator
 * @param catchUp a source's backlog counts as input to be read within this time
 * @param lead how far ahead a source's arrival rate is projected along its trend since the previous
 *     interval: a rise, so that a rising input is served when the change takes effect; a fall only
 *     in sizing a scale-in, which never leaves fewer tasks than the rate now needs
 * @param operators the operators it may change; empty: every one that can be rescaled live
 */
public record AutoscalerSettings(
    boolean enabled,
    Duration interval,
    double headroom,
    double scaleInHysteresis,
    Duration cooldown,
    int maxStep,
    int minParallelism,
    int maxParallelism,
    Duration catchUp,
    Duration lead,
    List<String> operators) {

  /** Off, with the defaults of {@code reference.conf}. */
  public static final AutoscalerSettings OFF =
      new AutoscalerSettings(
          false,
          Duration.ofSeconds(5),
          1.25,
          0.2,
          Duration.ofSeconds(30),
          4,
          1,
          16,
          Duration.ofSeconds(10),
          Duration.ofSeconds(10),
          List.of());

  /**
   * @throws IllegalArgumentException naming the setting out of range
   */
  public AutoscalerSettings {
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(cooldown, "cooldown");
    Objects.requireNonNull(catchUp, "catchUp");
    Objects.requireNonNull(lead, "lead");
    operators = List.copyOf(operators);
    if (!(headroom >= 1) || Double.isInfinite(headroom)) {
      throw new IllegalArgumentException(
          "koala.autoscaler.headroom must be at least 1: " + headroom);
    }
    if (!(scaleInHysteresis >= 0) || Double.isInfinite(scaleInHysteresis)) {
      throw new IllegalArgumentException(
          "koala.autoscaler.scale-in-hysteresis must not be negative: " + scaleInHysteresis);
    }
    if (minParallelism < 1 || maxParallelism < minParallelism) {
      throw new IllegalArgumentException(
          "koala.autoscaler.min-parallelism ("
              + minParallelism
              + ") must be at least 1 and at most koala.autoscaler.max-parallelism ("
              + maxParallelism
              + ")");
    }
    if (maxStep < 1) {
      throw new IllegalArgumentException(
          "koala.autoscaler.max-step must be at least 1: " + maxStep);
    }
  }

  /** Whether it may change {@code operator}. */
  public boolean covers(String operator) {
    return operators.isEmpty() || operators.contains(operator);
  }
}
