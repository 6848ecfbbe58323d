package io.koala.samples.twitch;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.state.Codec;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import java.nio.ByteBuffer;

/**
 * The loyalty trend analyser of the Twitch workload (WORKLOADS.md), its last stage: keyed by
 * streamer name ({@code String}, {@link TwitchGenerator#streamerName}), it smooths the change of
 * the loyalty score exponentially: the first update has trend 0, then {@code trend = α · (score −
 * previous score) + (1 − α) · trend} with α = {@value #SMOOTHING}. Its state is two doubles per
 * streamer, not padded.
 */
public final class LoyaltyTrendAnalyser {
  /** Weight of the newest change in the trend. */
  public static final double SMOOTHING = 0.3;

  private LoyaltyTrendAnalyser() {}

  /** Registers the records that travel between the tasks of the stage. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(StreamerLoyalty.class, LoyaltyTrend.class);
  }

  /** Adds the analyser: {@code loyalty} keyed by streamer name into the operator {@code name}. */
  public static Stage<LoyaltyTrend> analyser(Stage<StreamerLoyalty> loyalty, String name) {
    return loyalty
        .keyBy((StreamerLoyalty l) -> TwitchGenerator.streamerName(l.streamerId()))
        .process(name, Analyser::new);
  }

  /** The last score and the trend of a streamer. */
  private record Trend(double last, double trend) {}

  private static final class TrendCodec implements Codec<Trend> {
    @Override
    public byte[] encode(Trend value) {
      return ByteBuffer.allocate(16).putDouble(value.last()).putDouble(value.trend()).array();
    }

    @Override
    public Trend decode(byte[] bytes) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      return new Trend(buf.getDouble(), buf.getDouble());
    }
  }

  /** The keyed function: updates the streamer's trend and emits it. */
  static final class Analyser extends KeyedProcessFunction<String, StreamerLoyalty, LoyaltyTrend> {
    private ValueState<Trend> trend;

    @Override
    public void open(KeyedStateContext ctx) {
      trend = ctx.valueState("loyalty-trend", new TrendCodec());
    }

    @Override
    public void process(StreamerLoyalty l, Context<String> ctx, Collector<LoyaltyTrend> out) {
      Trend before = trend.value();
      double next =
          before == null
              ? 0
              : SMOOTHING * (l.loyalty() - before.last()) + (1 - SMOOTHING) * before.trend();
      trend.update(new Trend(l.loyalty(), next));
      out.collect(new LoyaltyTrend(ctx.currentKey(), l.loyalty(), next));
    }
  }
}
