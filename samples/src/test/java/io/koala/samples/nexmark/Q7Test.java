package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.samples.nexmark.Q7.HighestBid;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class Q7Test {
  private static final Comparator<Bid> HIGHEST_FIRST =
      Comparator.comparingLong(Bid::price)
          .reversed()
          .thenComparingLong(Bid::dateTime)
          .thenComparingLong(Bid::auction)
          .thenComparingLong(Bid::bidder);

  @Test
  void emitsTheHighestBidOfEachTumblingWindowLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q7Test");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<HighestBid> actual =
        NexmarkRun.run(gen, seed, Q7::registerTypes, events -> Q7.highestBid(events, "q7"));

    Map<Long, List<Bid>> windows = new TreeMap<>();
    for (NexmarkEvent e : NexmarkRun.events(gen, NexmarkRun.EVENTS)) {
      if (e instanceof Bid b) {
        windows.computeIfAbsent(start(b), k -> new ArrayList<>()).add(b);
      }
    }
    List<HighestBid> expected = new ArrayList<>();
    windows.forEach(
        (start, bids) ->
            expected.add(
                new HighestBid(start, start + 10_000, bids.stream().min(HIGHEST_FIRST).get())));
    assertThat(expected).hasSizeGreaterThanOrEqualTo(4); // 40 s of bids
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void perBidderEmitsTheHighestBidOfEachBidderAndWindowLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q7Test per bidder");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<HighestBid> actual =
        NexmarkRun.run(
            gen, seed, Q7::registerTypes, events -> Q7.highestBidPerBidder(events, "q7"));

    Map<List<Long>, Bid> highest = new HashMap<>(); // (window start, bidder) -> highest bid
    for (NexmarkEvent e : NexmarkRun.events(gen, NexmarkRun.EVENTS)) {
      if (e instanceof Bid b) {
        highest.merge(
            List.of(start(b), b.bidder()), b, (x, y) -> HIGHEST_FIRST.compare(x, y) <= 0 ? x : y);
      }
    }
    List<HighestBid> expected = new ArrayList<>();
    highest.forEach((k, b) -> expected.add(new HighestBid(k.get(0), k.get(0) + 10_000, b)));
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }

  private static long start(Bid b) {
    return Math.floorDiv(b.dateTime(), 10_000) * 10_000;
  }
}
