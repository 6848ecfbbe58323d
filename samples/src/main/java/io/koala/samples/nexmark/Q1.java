package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;

/**
 * Nexmark Q1, currency conversion: every bid with its price converted from dollars to euros at
 * Nexmark's rate {@value #DOLLARS_TO_EUROS}. Stateless (a map).
 *
 * <pre>{@code
 * Q1.registerTypes(b);
 * Q1.euroBids(events, "q1").sink(SinkSpec.collecting("euro-bids"));
 * }</pre>
 */
public final class Q1 {
  /** Euros per dollar. */
  public static final double DOLLARS_TO_EUROS = 0.908;

  private Q1() {}

  /** A bid with its price in euro cents (rounded to the nearest cent). */
  public record EuroBid(long auction, long bidder, long price, String channel, long dateTime) {}

  /** Registers the records Q1 emits. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(EuroBid.class);
  }

  /** The price of {@code bid} in euro cents. */
  public static EuroBid convert(Bid bid) {
    return new EuroBid(
        bid.auction(),
        bid.bidder(),
        Math.round(bid.price() * DOLLARS_TO_EUROS),
        bid.channel(),
        bid.dateTime());
  }

  /** Adds the query: operators {@code name + "-bids"} and {@code name}. */
  public static Stage<EuroBid> euroBids(Stage<NexmarkEvent> events, String name) {
    return Nexmark.bids(events, name + "-bids").map(name, Q1::convert);
  }
}
