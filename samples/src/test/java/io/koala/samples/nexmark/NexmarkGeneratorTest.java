package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NexmarkGeneratorTest {
  private final NexmarkGenerator gen = new NexmarkGenerator(7, 1_000_000, 10_000);

  @Test
  void bidsArePureFunctionsOfIndexAndSeed() {
    for (long i = 0; i < 1000; i += 37) {
      assertThat(gen.bid(i)).isEqualTo(new NexmarkGenerator(7, 1_000_000, 10_000).bid(i));
    }
    assertThat(gen.bid(5)).isNotEqualTo(new NexmarkGenerator(8, 1_000_000, 10_000).bid(5));
  }

  @Test
  void bidIndicesSkipPersonsAndAuctions() {
    for (long i = 0; i < 5_000; i++) {
      long e = NexmarkGenerator.bidEventIndex(i);
      assertThat(e % 50).as("event %d of bid %d", e, i).isBetween(4L, 49L);
      if (i > 0) {
        assertThat(e).isGreaterThan(NexmarkGenerator.bidEventIndex(i - 1));
      }
    }
  }

  @Test
  void bidsGoToRecentAuctionsHalfOfThemHot() {
    Map<Boolean, Integer> hot = new HashMap<>();
    for (long i = 0; i < 20_000; i++) {
      long e = NexmarkGenerator.bidEventIndex(i);
      Bid b = gen.bid(i);
      long last = NexmarkGenerator.lastAuctionId(e);
      assertThat(b.auction()).isBetween(Math.max(1000, last - 100), last);
      hot.merge(b.auction() == (last / 100) * 100, 1, Integer::sum);
      assertThat(b.price()).isBetween(100L, 100_000_000L);
      assertThat(b.dateTime()).isEqualTo(1_000_000 + (long) (e / 10.0));
    }
    assertThat(hot.get(true) / 20_000.0).isBetween(0.45, 0.60);
  }
}
