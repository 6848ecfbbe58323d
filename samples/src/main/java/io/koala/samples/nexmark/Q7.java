package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;

/**
 * Nexmark Q7, highest bid: the highest bid of each tumbling window of {@link #SIZE}. Bids are
 * ordered by {@link #higher}: price, then the earlier, then the lower auction and bidder id, so a
 * window has exactly one highest bid. Two steps, so that no single task sees every bid: the highest
 * bid per bidder and window ({@link #highestBidPerBidder}, keyed by bidder: the per-bidder variant
 * of WORKLOADS.md), then the highest of those per window ({@link #highestBid}, keyed by window).
 */
public final class Q7 {
  /** The window size. */
  public static final Duration SIZE = Duration.ofSeconds(10);

  private Q7() {}

  /** What Q7 emits: the highest bid of window {@code [start, end)} (of one bidder, or of all). */
  public record HighestBid(long start, long end, Bid bid) {}

  /** Registers the records Q7 emits. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(HighestBid.class);
  }

  /** The higher of two bids: price, then the earlier, then the lower auction, then bidder. */
  public static Bid higher(Bid a, Bid b) {
    if (a.price() != b.price()) {
      return a.price() > b.price() ? a : b;
    }
    if (a.dateTime() != b.dateTime()) {
      return a.dateTime() < b.dateTime() ? a : b;
    }
    if (a.auction() != b.auction()) {
      return a.auction() < b.auction() ? a : b;
    }
    return a.bidder() <= b.bidder() ? a : b;
  }

  /**
   * Adds the per-bidder step: operators {@code name + "-bids"} and {@code name}, keyed by bidder;
   * emits each bidder's highest bid per window.
   */
  public static Stage<HighestBid> highestBidPerBidder(Stage<NexmarkEvent> events, String name) {
    return Nexmark.bids(events, name + "-bids")
        .keyBy(Bid::bidder)
        .window(WindowAssigner.tumbling(SIZE))
        .reduce(name, Q7::higher)
        .map(name + "-result", (WindowResult<Long, Bid> r) -> highest(r));
  }

  /**
   * Adds the query: the per-bidder step {@code name + "-per-bidder"} (see {@link
   * #highestBidPerBidder}), then {@code name}, keyed by window; emits one highest bid per window.
   */
  public static Stage<HighestBid> highestBid(Stage<NexmarkEvent> events, String name) {
    return highestBidPerBidder(events, name + "-per-bidder")
        .keyBy(HighestBid::start)
        // a per-bidder result carries its window's max timestamp, so falls in the same window
        .window(WindowAssigner.tumbling(SIZE))
        .reduce(name, (a, b) -> higher(a.bid(), b.bid()) == a.bid() ? a : b)
        .map(name + "-result", (WindowResult<Long, HighestBid> r) -> r.value());
  }

  private static HighestBid highest(WindowResult<Long, Bid> r) {
    return new HighestBid(r.start(), r.end(), r.value());
  }
}
