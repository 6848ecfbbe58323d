package io.koala.samples.twitch;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;

/**
 * The whole Twitch viewer-loyalty dataflow (WORKLOADS.md): three keyed stages, the {@linkplain
 * RetentionAnalyser retention analyser} ({@value #RETENTION}, by streamer id), the {@linkplain
 * ViewerLoyalty viewer-loyalty calculator} ({@value #LOYALTY}, by streamer id) and the {@linkplain
 * LoyaltyTrendAnalyser loyalty trend analyser} ({@value #TREND}, by streamer name). The first two
 * keep padded state of a chosen size, so an experiment can reconfigure both at once.
 *
 * <pre>{@code
 * DataflowBuilder b = Dataflow.builder("twitch");
 * TwitchPipeline.registerTypes(b);
 * Stage<ViewerEvent> events = b.source(SourceSpec.generator("viewer-events", generator));
 * TwitchPipeline.Stages s = TwitchPipeline.build(events, 1024, 1024);
 * s.retention().parallelism(4);
 * s.loyalty().parallelism(4);
 * s.trend().sink(SinkSpec.discarding("trends"));
 * }</pre>
 */
public final class TwitchPipeline {
  /** The retention analyser's operator name. */
  public static final String RETENTION = "retention-analyser";

  /** The viewer-loyalty calculator's operator name (as in the single-stage experiments). */
  public static final String LOYALTY = "viewer-loyalty";

  /** The loyalty trend analyser's operator name. */
  public static final String TREND = "loyalty-trend";

  private TwitchPipeline() {}

  /** The outputs of the three stages; set each operator's parallelism or capacity through them. */
  public record Stages(
      Stage<StreamerRetention> retention,
      Stage<StreamerLoyalty> loyalty,
      Stage<LoyaltyTrend> trend) {}

  /** Registers the records that travel between the tasks of the dataflow. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    RetentionAnalyser.registerTypes(b);
    ViewerLoyalty.registerTypes(b);
    return LoyaltyTrendAnalyser.registerTypes(b);
  }

  /**
   * Adds the three stages after {@code events}.
   *
   * @param retentionStateBytes bytes of state per streamer of the retention analyser, at least
   *     {@link Retention#MIN_BYTES}
   * @param loyaltyStateBytes bytes of state per streamer of the calculator, at least {@link
   *     Loyalty#MIN_BYTES}
   * @throws IllegalArgumentException if a state size is too small
   */
  public static Stages build(
      Stage<ViewerEvent> events, int retentionStateBytes, int loyaltyStateBytes) {
    Stage<StreamerRetention> retention =
        RetentionAnalyser.analyser(events, RETENTION, retentionStateBytes);
    Stage<StreamerLoyalty> loyalty =
        ViewerLoyalty.calculatorAfterRetention(retention, LOYALTY, loyaltyStateBytes);
    return new Stages(retention, loyalty, LoyaltyTrendAnalyser.analyser(loyalty, TREND));
  }
}
