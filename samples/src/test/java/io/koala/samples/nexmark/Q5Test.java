package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.samples.nexmark.Q5.HotItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class Q5Test {

  @Test
  void emitsTheMostBidUponAuctionsOfEachSlidingWindowLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q5Test");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<HotItem> actual =
        NexmarkRun.run(gen, seed, Q5::registerTypes, events -> Q5.hotItems(events, "q5"));

    // window start -> auction -> bids, each bid counted in the five 10 s windows every 2 s holding
    // it
    Map<Long, Map<Long, Long>> counts = new TreeMap<>();
    for (NexmarkEvent e : NexmarkRun.events(gen, NexmarkRun.EVENTS)) {
      if (e instanceof Bid b) {
        long lastStart = Math.floorDiv(b.dateTime(), 2_000) * 2_000;
        for (long start = lastStart; start > b.dateTime() - 10_000; start -= 2_000) {
          counts.computeIfAbsent(start, k -> new HashMap<>()).merge(b.auction(), 1L, Long::sum);
        }
      }
    }
    List<HotItem> expected = new ArrayList<>();
    counts.forEach(
        (start, perAuction) -> {
          long max = perAuction.values().stream().mapToLong(Long::longValue).max().orElseThrow();
          perAuction.forEach(
              (auction, n) -> {
                if (n == max) {
                  expected.add(new HotItem(auction, start, start + 10_000, n));
                }
              });
        });
    assertThat(counts.size()).isGreaterThan(20); // 40 s of bids
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }
}
