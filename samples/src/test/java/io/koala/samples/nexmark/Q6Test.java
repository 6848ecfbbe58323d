package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.samples.nexmark.Q4.WinningBid;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class Q6Test {

  @Test
  void averagesEachSellersLastTenClosedAuctionsInClosingOrderLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q6Test");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<SellerAveragePrice> out =
        NexmarkRun.run(
            gen, seed, Q6::registerTypes, events -> Q6.averageSellingPrice(events, "q6", 256));
    Map<Long, List<Double>> actual = new TreeMap<>();
    for (SellerAveragePrice a : out) {
      actual.computeIfAbsent(a.seller(), k -> new ArrayList<>()).add(a.averagePrice());
    }

    List<WinningBid> winners =
        new ArrayList<>(NexmarkReference.winningBids(NexmarkRun.events(gen, NexmarkRun.EVENTS)));
    winners.sort(
        Comparator.comparingLong(WinningBid::dateTime).thenComparingLong(WinningBid::auction));
    Map<Long, Deque<Long>> last = new TreeMap<>();
    Map<Long, List<Double>> expected = new TreeMap<>();
    for (WinningBid w : winners) {
      Deque<Long> prices = last.computeIfAbsent(w.seller(), k -> new ArrayDeque<>());
      prices.addLast(w.price());
      if (prices.size() > 10) {
        prices.removeFirst();
      }
      long sum = 0;
      for (long p : prices) {
        sum += p;
      }
      expected
          .computeIfAbsent(w.seller(), k -> new ArrayList<>())
          .add((double) sum / prices.size());
    }
    // hot sellers close more than ten auctions, so the window of ten slides
    assertThat(expected.values().stream().mapToInt(List::size).max().orElse(0)).isGreaterThan(10);
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void refusesAStateTooSmallForTheLastPricesAtDefinition() {
    assertThatThrownBy(
            () ->
                Q6.averageSellingPrice(
                    Dataflow.builder("q6")
                        .source(SourceSpec.generator("events", NexmarkRun.generator(1))),
                    "q6",
                    RecentPrices.MIN_BYTES - 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
