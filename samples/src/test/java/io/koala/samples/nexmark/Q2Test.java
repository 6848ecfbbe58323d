package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.samples.nexmark.Q2.AuctionPrice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class Q2Test {

  @Test
  void selectsTheBidsOnEvery123rdAuctionLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q2Test");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<AuctionPrice> actual =
        NexmarkRun.run(gen, seed, Q2::registerTypes, events -> Q2.selection(events, "q2"));

    List<AuctionPrice> expected = new ArrayList<>();
    for (NexmarkEvent e : NexmarkRun.events(gen, NexmarkRun.EVENTS)) {
      if (e instanceof Bid b && b.auction() % 123 == 0) {
        expected.add(new AuctionPrice(b.auction(), b.price()));
      }
    }
    assertThat(expected).isNotEmpty();
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }
}
