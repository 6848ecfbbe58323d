package io.koala.samples.nexmark;

import io.koala.samples.nexmark.Q4.WinningBid;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Plain-Java computations over a list of events, the references the query tests compare with. */
final class NexmarkReference {
  private NexmarkReference() {}

  /**
   * Every auction of {@code events} with a winning bid: the highest (then earliest, then lowest
   * bidder) bid in {@code [dateTime, expires)} of at least the reserve, by brute force over all
   * bids.
   */
  static List<WinningBid> winningBids(List<NexmarkEvent> events) {
    Map<Long, Auction> auctions = new LinkedHashMap<>();
    Map<Long, List<Bid>> bids = new LinkedHashMap<>();
    for (NexmarkEvent e : events) {
      if (e instanceof Auction a) {
        auctions.put(a.id(), a);
      } else if (e instanceof Bid b) {
        bids.computeIfAbsent(b.auction(), k -> new ArrayList<>()).add(b);
      }
    }
    Comparator<Bid> best =
        Comparator.comparingLong(Bid::price)
            .reversed()
            .thenComparingLong(Bid::dateTime)
            .thenComparingLong(Bid::bidder);
    List<WinningBid> out = new ArrayList<>();
    for (Auction a : auctions.values()) {
      bids.getOrDefault(a.id(), List.of()).stream()
          .filter(b -> b.dateTime() >= a.dateTime() && b.dateTime() < a.expires())
          .filter(b -> b.price() >= a.reserve())
          .min(best)
          .ifPresent(
              b ->
                  out.add(
                      new WinningBid(
                          a.id(), a.seller(), a.category(), b.bidder(), b.price(), a.expires())));
    }
    return out;
  }
}
