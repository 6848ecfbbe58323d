package io.koala.samples.twitch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TwitchGeneratorTest {
  static final long KEYS = 10_000;
  static final long ACTIVE = 1_000;
  final TwitchGenerator g = new TwitchGenerator(KEYS, ACTIVE, 0, 1000);

  @Test
  void recordsArePureFunctionsOfIndexAndSeedAndAgreeWithTheirStreamer() {
    for (long i = 0; i < 3 * KEYS; i += 7) {
      ViewerEvent e = g.generate(i, 42);
      assertThat(g.generate(i, 42)).isEqualTo(e);
      assertThat(e.streamerId()).isEqualTo(g.streamerOf(i, 42));
      assertThat(e.streamerName()).isEqualTo("streamer-" + e.streamerId());
      assertThat(e.eventTime()).isEqualTo(i); // 1,000 events per second from 0
      if (e.enter()) {
        assertThat(e.watchedMinutes()).isZero();
      } else {
        assertThat(e.watchedMinutes()).isBetween(10, 240).matches(m -> m % 10 == 0);
      }
    }
  }

  @Test
  void theWarmUpTouchesEveryStreamerOnceThenOnlyActiveOnesSkewed() {
    for (long i = 0; i < KEYS; i++) {
      assertThat(g.streamerOf(i, 1)).isEqualTo(i);
    }
    long[] hits = new long[(int) ACTIVE];
    for (long i = KEYS; i < KEYS + 200_000; i++) {
      long s = g.streamerOf(i, 1);
      assertThat(s).isBetween(0L, ACTIVE - 1);
      hits[(int) s]++;
    }
    // Zipf(0.8): rank 1 is 1000^0.8 ≈ 251 times as likely as rank 1000
    double ratio = (double) hits[0] / Math.max(1, hits[(int) ACTIVE - 1]);
    assertThat(ratio).isBetween(100.0, 700.0);
    assertThat(hits[0]).isGreaterThan(hits[1]).isGreaterThan(hits[10]);
  }

  @Test
  void refusesAnActiveRangeOutsideTheKeys() {
    assertThatThrownBy(() -> new TwitchGenerator(10, 11, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("active keys");
  }
}
