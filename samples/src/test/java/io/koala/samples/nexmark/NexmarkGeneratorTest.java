package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
  void bidsKeepTheValuesOfTheBidOnlyGenerator() {
    // pinned from the bid-only generator (commit cdfe264): adding persons and auctions must not
    // change a single bid, or earlier benchmark runs could not be compared with later ones
    assertThat(gen.bid(0)).isEqualTo(new Bid(1000, 1001, 15579983, "channel-781", 1000000));
    assertThat(gen.bid(1)).isEqualTo(new Bid(1002, 1001, 186, "Facebook", 1000000));
    assertThat(gen.bid(46)).isEqualTo(new Bid(1000, 1000, 668, "Google", 1000005));
    assertThat(gen.bid(1000)).isEqualTo(new Bid(1052, 1001, 429895, "channel-6141", 1000108));
    assertThat(gen.bid(123456)).isEqualTo(new Bid(9000, 3601, 8939227, "channel-2746", 1013419));
    for (long i = 0; i < 2_000; i++) {
      assertThat(gen.event(NexmarkGenerator.bidEventIndex(i))).isEqualTo(gen.bid(i));
    }
  }

  @Test
  void everyEventIsAPureFunctionOfIndexAndSeed() {
    long seed = NexmarkRun.seed("NexmarkGeneratorTest");
    NexmarkGenerator a = new NexmarkGenerator(seed, 0, 1_000);
    NexmarkGenerator b = new NexmarkGenerator(seed, 0, 1_000);
    NexmarkGenerator other = new NexmarkGenerator(seed + 1, 0, 1_000);
    int differ = 0;
    for (long e = 9_999; e >= 0; e--) { // backwards: no event depends on those before it
      assertThat(a.event(e)).isEqualTo(b.event(e)).isEqualTo(b.generate(e, seed));
      assertThat(other.generate(e, seed)).isEqualTo(a.event(e));
      if (!other.event(e).equals(a.event(e))) {
        differ++;
      }
    }
    assertThat(differ).isGreaterThan(9_900);
  }

  @Test
  void eventsComeInProportions1To3To46WithIdsCountingTheirKind() {
    int persons = 0;
    int auctions = 0;
    int bids = 0;
    long nextPerson = 1000;
    long nextAuction = 1000;
    for (long e = 0; e < 50_000; e++) {
      NexmarkEvent ev = gen.event(e);
      assertThat(ev.dateTime()).isEqualTo(gen.timeOf(e)).isEqualTo(1_000_000 + e / 10);
      if (ev instanceof Person p) {
        assertThat(e % 50).isZero();
        assertThat(p.id()).isEqualTo(nextPerson++);
        persons++;
      } else if (ev instanceof Auction a) {
        assertThat(e % 50).isBetween(1L, 3L);
        assertThat(a.id()).isEqualTo(nextAuction++);
        assertThat(a.seller()).isBetween(Math.max(1000, nextPerson - 1000), nextPerson - 1);
        auctions++;
      } else {
        Bid b = (Bid) ev;
        assertThat(e % 50).isBetween(4L, 49L);
        assertThat(b.auction()).isBetween(Math.max(1000, nextAuction - 100), nextAuction - 1);
        // the hot bidder x01 may bid while x00 is the last person, as in Nexmark
        long lastPerson = nextPerson - 1;
        assertThat(b.bidder()).isBetween(1000L, Math.max(lastPerson, lastPerson / 100 * 100 + 1));
        bids++;
      }
    }
    assertThat(new int[] {persons, auctions, bids}).containsExactly(1_000, 3_000, 46_000);
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

  @Test
  void threeQuartersOfSellersAndBiddersAreHot() {
    int auctions = 0;
    int hotSellers = 0;
    int bids = 0;
    int hotBidders = 0;
    for (long e = 0; e < 200_000; e++) {
      long lastPerson = NexmarkGenerator.lastPersonId(e);
      NexmarkEvent ev = gen.event(e);
      if (ev instanceof Auction a) {
        auctions++;
        if (a.seller() == lastPerson / 100 * 100) {
          hotSellers++;
        }
      } else if (ev instanceof Bid b) {
        bids++;
        if (b.bidder() == lastPerson / 100 * 100 + 1) {
          hotBidders++;
        }
      }
    }
    // 3/4 hot, plus the uniform draws that hit the hot person by chance (about 1 in 1000)
    assertThat((double) hotSellers / auctions).isBetween(0.73, 0.77);
    assertThat((double) hotBidders / bids).isBetween(0.74, 0.76);
  }

  @Test
  void auctionsExpireWithinTwiceTheHorizonAndHaveSanePrices() {
    NexmarkGenerator g = new NexmarkGenerator(11, 0, 500); // 100 auctions every 3333 ms
    assertThat(g.auctionHorizonMillis()).isEqualTo(3_333);
    Set<Long> categories = new HashSet<>();
    long delays = 0;
    int auctions = 0;
    for (long e = 0; e < 100_000; e++) {
      if (g.event(e) instanceof Auction a) {
        assertThat(a.expires() - a.dateTime()).isBetween(1L, 1L + 2 * 3_333);
        assertThat(a.initialBid()).isBetween(100L, 100_000_000L);
        assertThat(a.reserve()).isBetween(a.initialBid() + 100, a.initialBid() + 100_000_000L);
        assertThat(a.category()).isBetween(10L, 14L);
        assertThat(a.itemName()).hasSize(20);
        categories.add(a.category());
        delays += a.expires() - a.dateTime() - 1;
        auctions++;
      }
    }
    assertThat(categories).hasSize(5);
    assertThat((double) delays / auctions).isBetween(3_333 * 0.95, 3_333 * 1.05); // uniform mean
  }

  @Test
  void personsHaveNamesCitiesAndStatesFromTheNexmarkLists() {
    Set<String> states = new HashSet<>();
    Set<String> names = new HashSet<>();
    for (long e = 0; e < 250_000; e += 50) {
      Person p = (Person) gen.event(e);
      String[] name = p.name().split(" ");
      assertThat(NexmarkGenerator.FIRST_NAMES).contains(name[0]);
      assertThat(NexmarkGenerator.LAST_NAMES).contains(name[1]);
      assertThat(NexmarkGenerator.CITIES).contains(p.city());
      assertThat(p.emailAddress()).matches("[a-z]{7}@[a-z]{5}\\.com");
      assertThat(p.creditCard()).matches("\\d{4} \\d{4} \\d{4} \\d{4}");
      states.add(p.state());
      names.add(p.name());
    }
    assertThat(states).containsExactlyInAnyOrder("AZ", "CA", "ID", "OR", "WA", "WY");
    assertThat(names).hasSize(11 * 9);
  }

  @Test
  void outOfOrderEventsAreAtMostTheBoundEarlyAndOtherwiseUnchanged() {
    NexmarkGenerator late = gen.withOutOfOrderness(250);
    long max = Long.MIN_VALUE;
    long furthestBehind = 0;
    for (long e = 0; e < 20_000; e++) {
      NexmarkEvent ordered = gen.event(e);
      NexmarkEvent shifted = late.event(e);
      assertThat(shifted.dateTime()).isBetween(gen.timeOf(e) - 250, gen.timeOf(e));
      if (ordered instanceof Bid b) {
        assertThat(shifted)
            .isEqualTo(
                new Bid(b.auction(), b.bidder(), b.price(), b.channel(), shifted.dateTime()));
      }
      max = Math.max(max, shifted.dateTime());
      furthestBehind = Math.max(furthestBehind, max - shifted.dateTime());
    }
    assertThat(furthestBehind).isBetween(200L, 250L); // a watermark 250 ms behind loses nothing
    assertThatThrownBy(() -> gen.withOutOfOrderness(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
