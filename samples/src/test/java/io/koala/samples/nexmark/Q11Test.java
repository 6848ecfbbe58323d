package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.samples.nexmark.Q11.BidderSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class Q11Test {

  @Test
  void countsEachBiddersBidsPerSessionLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q11Test");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<BidderSession> actual =
        NexmarkRun.run(gen, seed, Q11::registerTypes, events -> Q11.sessions(events, "q11"));

    Map<Long, List<Long>> times = new TreeMap<>(); // bidder -> bid times, in event order
    for (NexmarkEvent e : NexmarkRun.events(gen, NexmarkRun.EVENTS)) {
      if (e instanceof Bid b) {
        times.computeIfAbsent(b.bidder(), k -> new ArrayList<>()).add(b.dateTime());
      }
    }
    long gap = 10_000;
    List<BidderSession> expected = new ArrayList<>();
    times.forEach(
        (bidder, ts) -> {
          ts.sort(null);
          long first = ts.get(0);
          long count = 0;
          long previous = first;
          for (long t : ts) {
            if (t - previous > gap) { // a bid exactly a gap later still extends the session
              expected.add(new BidderSession(bidder, first, previous + gap, count));
              first = t;
              count = 0;
            }
            count++;
            previous = t;
          }
          expected.add(new BidderSession(bidder, first, previous + gap, count));
        });
    assertThat(expected.size()).isGreaterThan(times.size()); // some bidders pause for > 10 s
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }
}
