package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.eventtime.WatermarkStrategy;
import io.koala.samples.nexmark.Q4.CategoryAverage;
import io.koala.samples.nexmark.Q4.WinningBid;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class Q4Test {

  @Test
  void averagesTheWinningBidsPerCategoryLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q4Test");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<CategoryAverage> actual =
        NexmarkRun.run(gen, seed, Q4::registerTypes, events -> Q4.averagePrices(events, "q4"));
    assertMatchesReference(actual, NexmarkRun.events(gen, NexmarkRun.EVENTS));
  }

  @Test
  void closesEachAuctionWithItsHighestBidInTimeAndAboveTheReserveLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q4Test winners");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<WinningBid> actual =
        NexmarkRun.run(gen, seed, Q4::registerTypes, events -> Q4.winningBids(events, "q4"));
    List<WinningBid> expected =
        NexmarkReference.winningBids(NexmarkRun.events(gen, NexmarkRun.EVENTS));
    // some auctions close without a winner: below the reserve, or no bid in time
    assertThat(expected).hasSizeBetween(100, (int) (NexmarkRun.EVENTS / 50 * 3 - 1));
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void eventsOutOfOrderWithinTheWatermarkBoundChangeNothing() {
    long seed = NexmarkRun.seed("Q4Test out of order");
    NexmarkGenerator gen = NexmarkRun.generator(seed).withOutOfOrderness(300);
    List<CategoryAverage> actual =
        NexmarkRun.run(
            gen,
            seed,
            NexmarkRun.EVENTS,
            WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(300)),
            Q4::registerTypes,
            events -> Q4.averagePrices(events, "q4"));
    assertMatchesReference(actual, NexmarkRun.events(gen, NexmarkRun.EVENTS));
  }

  private static void assertMatchesReference(
      List<CategoryAverage> actual, List<NexmarkEvent> events) {
    Map<Long, long[]> sums = new TreeMap<>(); // category -> {count, sum}
    for (WinningBid w : NexmarkReference.winningBids(events)) {
      long[] s = sums.computeIfAbsent(w.category(), k -> new long[2]);
      s[0]++;
      s[1] += w.price();
    }
    Map<Long, CategoryAverage> expected = new TreeMap<>();
    sums.forEach((c, s) -> expected.put(c, new CategoryAverage(c, s[0], (double) s[1] / s[0])));
    assertThat(expected).hasSize(5);

    // a running average per category: one record per winner, the last one over all of them
    Map<Long, List<Long>> counts = new TreeMap<>();
    Map<Long, CategoryAverage> last = new TreeMap<>();
    for (CategoryAverage a : actual) {
      counts.computeIfAbsent(a.category(), k -> new ArrayList<>()).add(a.auctions());
      last.merge(a.category(), a, (x, y) -> x.auctions() >= y.auctions() ? x : y);
    }
    assertThat(last).isEqualTo(expected);
    counts.forEach(
        (c, n) ->
            assertThat(n).as("counts of category %d", c).hasSize((int) expected.get(c).auctions()));
  }
}
