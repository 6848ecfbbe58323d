package io.koala.bench.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.samples.nexmark.ClosedAuctionGenerator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The state a protocol had to move, as the generator's keys tell it. */
class KeySpaceTest {
  private static final List<Integer> ALL = IntStream.range(0, 128).boxed().toList();

  @Test
  void withTheUniformHotRangeEveryKeyTouchedAfterTheWarmUpHadState() {
    RescaleSettings s = PlansTest.settings(RescaleWorkload.Q6STAR, 4, 8);
    RescaleWorkload w = RescaleWorkload.of(s);
    KeySpace keys = new KeySpace(s, w);
    long from = s.keys() + 5_000;
    long to = from + 20_000;
    Set<Long> touched = new HashSet<>();
    for (long i = from; i < to; i++) {
      touched.add(w.keyOf(i, s.seed()));
    }
    assertThat(keys.touchedIn(ALL, from, to)).isEqualTo(touched.size());
    assertThat(keys.keysIn(ALL, from)).isEqualTo(s.keys());
    // before the warm-up ended, only the keys it had reached had state
    assertThat(keys.keysIn(ALL, s.keys() / 2)).isEqualTo(s.keys() / 2);
  }

  @Test
  void withRecentSellersTheNewPersonsTouchedAfterTheRescaleHadNoStateToMove() {
    RescaleSettings s = PlansTest.settings(RescaleWorkload.Q6STAR_SELLERS, 4, 8);
    RescaleWorkload w = RescaleWorkload.of(s);
    KeySpace keys = new KeySpace(s, w);
    long from = s.keys() + 30_000;
    long to = from + 30_000;
    long lastPersonBefore =
        s.keys() + (from - 1 - s.keys()) / ClosedAuctionGenerator.AUCTIONS_PER_PERSON;
    Set<Long> touched = new HashSet<>();
    Set<Long> registeredBefore = new HashSet<>();
    for (long i = from; i < to; i++) {
      long k = w.keyOf(i, s.seed());
      touched.add(k);
      if (k <= lastPersonBefore) {
        registeredBefore.add(k);
      }
    }
    long accessed = keys.touchedIn(ALL, from, to);
    // a key with state was registered before the rescale; many sellers after it registered later
    assertThat(accessed).isLessThanOrEqualTo(registeredBefore.size());
    assertThat(accessed).isLessThan(touched.size());
    assertThat(registeredBefore.size()).isLessThan(touched.size());
    // and the warm-up's keys plus the sellers of the records since had state at the rescale
    assertThat(keys.keysIn(ALL, from))
        .isGreaterThan(s.keys())
        .isLessThanOrEqualTo(lastPersonBefore + 1);
  }
}
