package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.samples.nexmark.Q4.WinningBid;
import io.koala.state.KeyedStateContext;
import io.koala.state.MapState;
import io.koala.state.ValueState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Nexmark Q6, average selling price by seller: for every auction a seller closes with a winner, the
 * average winning price of that seller's last {@value Q6Star#LAST_AUCTIONS} such auctions. It reads
 * the closing step of {@link Q4} ({@link Q4#winningBids}) keyed by seller, and keeps the same state
 * as {@link Q6Star} ({@link RecentPrices}, padded to {@code stateBytes}).
 *
 * <p>"Last" is by closing time, not by arrival: the winners of one seller come from the tasks of
 * many auctions in no fixed order, so each waits in the seller's state until the watermark passes
 * its closing time, and then the waiting ones are applied in (closing time, auction id) order. The
 * output is thereby the same whatever the parallelism.
 */
public final class Q6 {
  private Q6() {}

  /** Registers the records Q6 emits and keeps in state (those of {@link Q4}'s first step too). */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    Q4.registerTypes(b);
    return b.registerTypes(SellerAveragePrice.class);
  }

  /**
   * Adds the query: the closing step {@code name + "-winners"} (see {@link Q4#winningBids}) and the
   * average per seller {@code name}.
   *
   * @param stateBytes bytes of the recent prices per seller, at least {@link
   *     RecentPrices#MIN_BYTES}
   */
  public static Stage<SellerAveragePrice> averageSellingPrice(
      Stage<NexmarkEvent> events, String name, int stateBytes) {
    RecentPrices.codec(stateBytes); // fails here, at definition, on a size that is too small
    return Q4.winningBids(events, name + "-winners")
        .keyBy(WinningBid::seller)
        .process(name, () -> new AveragePrice(stateBytes));
  }

  /** The order in which a seller's closed auctions count: by closing time, then auction id. */
  public static final Comparator<WinningBid> CLOSING_ORDER =
      Comparator.comparingLong(WinningBid::dateTime).thenComparingLong(WinningBid::auction);

  /** Keyed by seller: closed auctions waiting for the watermark, and the recent prices. */
  static final class AveragePrice
      extends KeyedProcessFunction<Long, WinningBid, SellerAveragePrice> {
    private final int stateBytes;
    private MapState<Long, WinningBid> waiting; // by auction id: one entry written per winner
    private ValueState<RecentPrices> recent;

    AveragePrice(int stateBytes) {
      this.stateBytes = stateBytes;
    }

    @Override
    public void open(KeyedStateContext ctx) {
      waiting = ctx.mapState("waiting", Long.class, WinningBid.class);
      recent = ctx.valueState("last-prices", RecentPrices.codec(stateBytes));
    }

    @Override
    public void process(WinningBid w, Context<Long> ctx, Collector<SellerAveragePrice> out) {
      waiting.put(w.auction(), w);
      ctx.timerService().registerEventTimeTimer(w.dateTime());
    }

    @Override
    public void onTimer(
        long timestamp, OnTimerContext<Long> ctx, Collector<SellerAveragePrice> out) {
      List<WinningBid> ready = new ArrayList<>();
      for (WinningBid w : waiting.entries().values()) {
        if (w.dateTime() <= timestamp) {
          ready.add(w);
        }
      }
      ready.sort(CLOSING_ORDER);
      RecentPrices prices = recent.value();
      if (prices == null) {
        prices = RecentPrices.empty(stateBytes);
      }
      for (WinningBid w : ready) {
        prices = prices.plus(w.price());
        out.collect(new SellerAveragePrice(w.seller(), prices.average()));
        waiting.remove(w.auction());
      }
      recent.update(prices);
    }
  }
}
