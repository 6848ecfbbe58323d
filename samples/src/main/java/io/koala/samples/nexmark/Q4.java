package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.function.KeyedProcessFunction;
import io.koala.state.KeyedStateContext;
import io.koala.state.MapState;
import io.koala.state.ValueState;

/**
 * Nexmark Q4, average price per category: the average winning price of the closed auctions of each
 * category. Two keyed steps:
 *
 * <ol>
 *   <li>{@link #winningBids}: auctions and bids keyed by auction id. An auction's winning bid is
 *       its highest bid (ties: the earlier, then the lower bidder id) with {@code auction.dateTime
 *       <= bid.dateTime < auction.expires} and a price of at least the reserve. It is decided by an
 *       event-time timer at {@code expires}, when no bid placed before then can still come; an
 *       auction without such a bid closes without a winner. Bids that arrive before their auction
 *       wait in the key's state; bids for a closed auction are dropped (they are too late to win).
 *       A closed auction leaves only a marker in its key's state (so that such bids are not taken
 *       for early ones). Q6 reads this step too.
 *   <li>{@link #averagePrices}: the winners keyed by category, a running average per category
 *       emitted after every winner; a category's last (largest-count) record is its average over
 *       all its closed auctions.
 * </ol>
 *
 * <p>Needs event timestamps ({@code NexmarkEvent::dateTime}) and watermarks: without watermarks
 * every auction closes at the end of the input.
 */
public final class Q4 {
  private Q4() {}

  /**
   * A closed auction and its winning bid: {@code dateTime} is when the auction closed (its {@code
   * expires}), {@code price} the winning price in cents.
   */
  public record WinningBid(
      long auction, long seller, long category, long bidder, long price, long dateTime) {}

  /** What Q4 emits: the average winning price (cents) of the {@code auctions} closed so far. */
  public record CategoryAverage(long category, long auctions, double averagePrice) {}

  /** The running sum of a category's winning prices (Q4's state per category). */
  public record PriceSum(long count, long sum) {}

  /** Registers the records Q4 emits and keeps in state. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(WinningBid.class, CategoryAverage.class, PriceSum.class);
  }

  /**
   * Adds the closing step: operators {@code name + "-auctions"}, {@code name + "-bids"} and the
   * keyed {@code name}.
   */
  public static Stage<WinningBid> winningBids(Stage<NexmarkEvent> events, String name) {
    Stage<Auction> auctions = Nexmark.auctions(events, name + "-auctions");
    Stage<Bid> bids = Nexmark.bids(events, name + "-bids");
    return auctions
        .keyBy(Auction::id)
        .connect(bids.keyBy(Bid::auction))
        .process(name, CloseAuction::new);
  }

  /**
   * Adds the query: the closing step {@code name + "-winners"} (see {@link #winningBids}) and the
   * average per category {@code name}.
   */
  public static Stage<CategoryAverage> averagePrices(Stage<NexmarkEvent> events, String name) {
    return winningBids(events, name + "-winners")
        .keyBy(WinningBid::category)
        .process(name, AveragePerCategory::new);
  }

  /** Whether {@code bid} may win {@code auction}: in time and at least the reserve. */
  public static boolean qualifies(Auction auction, Bid bid) {
    return bid.auction() == auction.id()
        && bid.dateTime() >= auction.dateTime()
        && bid.dateTime() < auction.expires()
        && bid.price() >= auction.reserve();
  }

  /** Whether {@code a} beats {@code b} (null: no bid): higher price, then earlier, then bidder. */
  public static boolean beats(Bid a, Bid b) {
    if (b == null) {
      return true;
    }
    if (a.price() != b.price()) {
      return a.price() > b.price();
    }
    if (a.dateTime() != b.dateTime()) {
      return a.dateTime() < b.dateTime();
    }
    return a.bidder() < b.bidder();
  }

  /** Keyed by auction id: the auction, its best bid so far, and a timer at its expiry. */
  static final class CloseAuction extends KeyedCoProcessFunction<Long, Auction, Bid, WinningBid> {
    private ValueState<Auction> auction;
    private ValueState<Bid> best;
    // bids that came before their auction, numbered: a map entry is written alone, where a list
    // would be rewritten whole for every bid that waits for a lagging auction
    private MapState<Long, Bid> early;
    private ValueState<Long> earlyCount;
    private ValueState<Boolean> closed;

    @Override
    public void open(KeyedStateContext ctx) {
      auction = ctx.valueState("auction", Auction.class);
      best = ctx.valueState("best-bid", Bid.class);
      early = ctx.mapState("early-bids", Long.class, Bid.class);
      earlyCount = ctx.valueState("early-bid-count", Long.class);
      closed = ctx.valueState("closed", Boolean.class);
    }

    @Override
    public void processElement1(Auction a, Context<Long> ctx, Collector<WinningBid> out) {
      auction.update(a);
      if (earlyCount.value() != null) {
        for (Bid b : early.entries().values()) {
          offer(a, b);
        }
        early.clear();
        earlyCount.clear();
      }
      ctx.timerService().registerEventTimeTimer(a.expires());
    }

    @Override
    public void processElement2(Bid b, Context<Long> ctx, Collector<WinningBid> out) {
      if (closed.value() != null) {
        return;
      }
      Auction a = auction.value();
      if (a == null) {
        Long n = earlyCount.value();
        long next = n == null ? 0 : n + 1;
        early.put(next, b);
        earlyCount.update(next);
      } else {
        offer(a, b);
      }
    }

    private void offer(Auction a, Bid b) {
      if (qualifies(a, b) && beats(b, best.value())) {
        best.update(b);
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext<Long> ctx, Collector<WinningBid> out) {
      Auction a = auction.value();
      Bid winner = best.value();
      if (a != null && winner != null) {
        out.collect(
            new WinningBid(
                a.id(), a.seller(), a.category(), winner.bidder(), winner.price(), a.expires()));
      }
      auction.clear();
      best.clear();
      closed.update(Boolean.TRUE);
    }
  }

  /** Keyed by category: the running count and sum of winning prices. */
  static final class AveragePerCategory
      extends KeyedProcessFunction<Long, WinningBid, CategoryAverage> {
    private ValueState<PriceSum> sum;

    @Override
    public void open(KeyedStateContext ctx) {
      sum = ctx.valueState("price-sum", PriceSum.class);
    }

    @Override
    public void process(WinningBid w, Context<Long> ctx, Collector<CategoryAverage> out) {
      PriceSum before = sum.value();
      PriceSum after =
          before == null
              ? new PriceSum(1, w.price())
              : new PriceSum(before.count() + 1, before.sum() + w.price());
      sum.update(after);
      out.collect(
          new CategoryAverage(w.category(), after.count(), (double) after.sum() / after.count()));
    }
  }
}
