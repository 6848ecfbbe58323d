package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.eventtime.WatermarkStrategy;
import io.koala.samples.nexmark.Q1.EuroBid;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class Q1Test {

  @Test
  void convertsEveryBidToEurosLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q1Test");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    long n = 5_000; // every bid is collected: fewer events keep the test fast
    List<EuroBid> actual =
        NexmarkRun.run(
            gen,
            seed,
            n,
            WatermarkStrategy.monotonousTimestamps(),
            Q1::registerTypes,
            events -> Q1.euroBids(events, "q1"));

    List<EuroBid> expected = new ArrayList<>();
    for (NexmarkEvent e : NexmarkRun.events(gen, n)) {
      if (e instanceof Bid b) {
        long euroCents = Math.round(b.price() * 0.908);
        expected.add(new EuroBid(b.auction(), b.bidder(), euroCents, b.channel(), b.dateTime()));
      }
    }
    assertThat(expected).hasSize((int) (n / 50 * 46));
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }
}
