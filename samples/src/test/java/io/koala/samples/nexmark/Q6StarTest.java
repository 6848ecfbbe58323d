package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.state.Codec;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class Q6StarTest {

  @Test
  void averagesTheLastTenPricesOfEachSellerLikeAPlainLoop() {
    int records = 1_500;
    ClosedAuctionGenerator gen = new ClosedAuctionGenerator(40, 12, 0, 1_000);
    long seed = 3;
    DataflowBuilder b = Dataflow.builder("q6star-test").parallelism(2);
    Q6Star.registerTypes(b);
    // one partition: each seller's records arrive in index order, so its averages are determined
    Q6Star.averagePrice(
            b.source(SourceSpec.generator("auctions", gen).partitions(1).count(records).seed(seed)),
            "q6",
            200)
        .sink(SinkSpec.collecting("averages"));

    Map<Long, List<Double>> actual = new TreeMap<>();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      for (SellerAveragePrice a : job.<SellerAveragePrice>collected("averages")) {
        actual.computeIfAbsent(a.seller(), k -> new ArrayList<>()).add(a.averagePrice());
      }
    }

    Map<Long, Deque<Long>> last = new TreeMap<>();
    Map<Long, List<Double>> expected = new TreeMap<>();
    for (long i = 0; i < records; i++) {
      ClosedAuction a = gen.generate(i, seed);
      Deque<Long> prices = last.computeIfAbsent(a.seller(), k -> new ArrayDeque<>());
      prices.addLast(a.price());
      if (prices.size() > 10) {
        prices.removeFirst();
      }
      long sum = 0;
      for (long p : prices) {
        sum += p;
      }
      expected
          .computeIfAbsent(a.seller(), k -> new ArrayList<>())
          .add((double) sum / prices.size());
    }
    assertThat(expected.get(0L)).hasSizeGreaterThan(20); // hot sellers go past 10 prices
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void stateIsEncodedInExactlyTheChosenBytesAndReadBack() {
    Codec<RecentPrices> codec = RecentPrices.codec(512);
    RecentPrices p = RecentPrices.empty(512);
    for (long price = 1; price <= 13; price++) {
      p = p.plus(price);
      byte[] bytes = codec.encode(p);
      assertThat(bytes).hasSize(512);
      p = codec.decode(bytes);
    }
    assertThat(p.size()).isEqualTo(10);
    assertThat(p.average()).isEqualTo((4 + 13) / 2.0); // prices 4..13
    RecentPrices other = RecentPrices.empty(RecentPrices.MIN_BYTES).plus(1);
    assertThatThrownBy(() -> codec.encode(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("padded for " + RecentPrices.MIN_BYTES);
  }

  @Test
  void refusesAStateTooSmallForTheLastPrices() {
    assertThatThrownBy(() -> RecentPrices.codec(RecentPrices.MIN_BYTES - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least " + RecentPrices.MIN_BYTES);
  }
}
