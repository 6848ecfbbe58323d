package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;

/**
 * Nexmark Q6* (WORKLOADS.md): for every closed auction, the average price of its seller's last
 * {@value #LAST_AUCTIONS} closed auctions, fed directly from a closed-auction stream keyed by
 * seller. Each seller's state ({@link RecentPrices}) is padded to {@code stateBytes} bytes. This is
 * the paper's workhorse "stateful mapper": one read and one write of one key per record.
 *
 * <pre>{@code
 * DataflowBuilder b = Dataflow.builder("q6star");
 * Q6Star.registerTypes(b);
 * Stage<ClosedAuction> auctions = b.source(SourceSpec.generator("auctions", generator));
 * Q6Star.averagePrice(auctions, "q6", 512).sink(SinkSpec.discarding("averages"));
 * }</pre>
 */
public final class Q6Star {
  /** How many of a seller's last auctions are averaged. */
  public static final int LAST_AUCTIONS = 10;

  private Q6Star() {}

  /** Registers the records that travel between the tasks of Q6*. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(ClosedAuction.class, SellerAveragePrice.class);
  }

  /**
   * Adds the query: {@code auctions} keyed by seller into the operator {@code name}.
   *
   * @param stateBytes bytes of state per seller, at least {@link RecentPrices#MIN_BYTES}
   */
  public static Stage<SellerAveragePrice> averagePrice(
      Stage<ClosedAuction> auctions, String name, int stateBytes) {
    RecentPrices.codec(stateBytes); // fails here, at definition, on a size that is too small
    return auctions.keyBy(ClosedAuction::seller).process(name, () -> new AveragePrice(stateBytes));
  }

  /** The keyed function: updates the seller's last prices and emits their average. */
  static final class AveragePrice
      extends KeyedProcessFunction<Long, ClosedAuction, SellerAveragePrice> {
    private final int stateBytes;
    private ValueState<RecentPrices> recent;

    AveragePrice(int stateBytes) {
      this.stateBytes = stateBytes;
    }

    @Override
    public void open(KeyedStateContext ctx) {
      recent = ctx.valueState("last-prices", RecentPrices.codec(stateBytes));
    }

    @Override
    public void process(
        ClosedAuction auction, Context<Long> ctx, Collector<SellerAveragePrice> out) {
      RecentPrices before = recent.value();
      RecentPrices after =
          (before == null ? RecentPrices.empty(stateBytes) : before).plus(auction.price());
      recent.update(after);
      out.collect(new SellerAveragePrice(auction.seller(), after.average()));
    }
  }
}
