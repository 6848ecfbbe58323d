package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class ClosedAuctionGeneratorTest {
  static final long KEYS = 1_000;
  static final long ACTIVE = 200;
  static final long SEED = 42;
  private final ClosedAuctionGenerator gen = new ClosedAuctionGenerator(KEYS, ACTIVE, 5_000, 1_000);

  @Test
  void recordsArePureFunctionsOfIndexAndSeed() {
    ClosedAuctionGenerator again = new ClosedAuctionGenerator(KEYS, ACTIVE, 5_000, 1_000);
    int sameSellerOtherSeed = 0;
    for (long i = 0; i < 5_000; i += 7) {
      assertThat(gen.generate(i, SEED)).isEqualTo(again.generate(i, SEED));
      assertThat(gen.sellerOf(i, SEED)).isEqualTo(gen.generate(i, SEED).seller());
      if (i >= KEYS && gen.sellerOf(i, SEED) == gen.sellerOf(i, SEED + 1)) {
        sameSellerOtherSeed++;
      }
    }
    // another seed is another stream: sellers agree about as often as chance (1 in 200) says
    assertThat(sameSellerOtherSeed).isLessThan(20);
  }

  @Test
  void theWarmUpTouchesEveryKeyExactlyOnce() {
    assertThat(gen.warmupRecords()).isEqualTo(KEYS);
    int[] touches = new int[(int) KEYS];
    for (long i = 0; i < KEYS; i++) {
      touches[(int) gen.generate(i, SEED).seller()]++;
    }
    assertThat(touches).containsOnly(1);
  }

  @Test
  void afterTheWarmUpOnlyActiveKeysAreTouchedAndAllOfThem() {
    BitSet touched = new BitSet();
    for (long i = KEYS; i < KEYS + 20_000; i++) {
      long seller = gen.generate(i, SEED).seller();
      assertThat(seller).as("seller of record %d", i).isBetween(0L, ACTIVE - 1);
      touched.set((int) seller);
    }
    assertThat(touched.cardinality()).isEqualTo((int) ACTIVE);
  }

  @Test
  void withRecentSellersTheWarmUpIsTheSameAndLaterSellersFollowNexmarksModel() {
    ClosedAuctionGenerator recent =
        ClosedAuctionGenerator.recentSellers(KEYS, ACTIVE, 5_000, 1_000);
    for (long i = 0; i < KEYS; i++) {
      assertThat(recent.generate(i, SEED)).isEqualTo(gen.generate(i, SEED));
    }
    long records = 30_000;
    long hot = 0;
    for (long i = KEYS; i < KEYS + records; i++) {
      long lastPerson = KEYS + (i - KEYS) / ClosedAuctionGenerator.AUCTIONS_PER_PERSON;
      long seller = recent.generate(i, SEED).seller();
      assertThat(recent.sellerOf(i, SEED)).isEqualTo(seller);
      if (seller == (lastPerson / 100) * 100) {
        hot++;
      } else {
        assertThat(seller)
            .as("seller of record %d", i)
            .isBetween(lastPerson - ACTIVE + 1, lastPerson);
      }
    }
    // the hot seller 3 times in 4 (plus the rare uniform draw that hits it): 22,500 expected
    assertThat(hot).isBetween(22_000L, 23_300L);
    // sellers drift past the warm-up's keys: the last records sell for persons who registered late
    assertThat(recent.sellerOf(KEYS + records - 1, SEED))
        .isGreaterThan(KEYS + records / ClosedAuctionGenerator.AUCTIONS_PER_PERSON - ACTIVE - 1);
  }

  @Test
  void pricesAreLogUniformCentsAndEventTimeFollowsTheRate() {
    for (long i = 0; i < 10_000; i++) {
      ClosedAuction a = gen.generate(i, SEED);
      assertThat(a.price()).isBetween(100L, 100_000_000L);
      assertThat(a.dateTime()).isEqualTo(5_000 + i); // 1,000 events per second: 1 ms apart
    }
  }

  @Test
  void rejectsAnActiveRangeOutsideTheKeys() {
    assertThatThrownBy(() -> new ClosedAuctionGenerator(10, 11, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("active keys");
    assertThatThrownBy(() -> new ClosedAuctionGenerator(10, 0, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
