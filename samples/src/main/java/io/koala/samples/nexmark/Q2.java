package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;

/**
 * Nexmark Q2, selection: the auction and price of every bid on an auction whose id is a multiple of
 * {@value #AUCTION_MODULUS}. Stateless (a filter and a map).
 */
public final class Q2 {
  /** Bids on auctions whose id is a multiple of this are selected. */
  public static final long AUCTION_MODULUS = 123;

  private Q2() {}

  /** What Q2 emits: a selected bid's auction and price (cents). */
  public record AuctionPrice(long auction, long price) {}

  /** Registers the records Q2 emits. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(AuctionPrice.class);
  }

  /**
   * Adds the query: operators {@code name + "-bids"}, {@code name} and {@code name + "-project"}.
   */
  public static Stage<AuctionPrice> selection(Stage<NexmarkEvent> events, String name) {
    return Nexmark.bids(events, name + "-bids")
        .filter(name, b -> b.auction() % AUCTION_MODULUS == 0)
        .map(name + "-project", b -> new AuctionPrice(b.auction(), b.price()));
  }
}
