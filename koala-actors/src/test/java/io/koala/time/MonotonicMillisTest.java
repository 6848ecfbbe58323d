package io.koala.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MonotonicMillisTest {
  @Test
  void startsAtTheWallClockAndMovesOnlyWithTheMonotonicOne() {
    AtomicLong nanos = new AtomicLong(-5_000_000_000L); // nanoTime has an arbitrary origin
    MonotonicMillis clock = new MonotonicMillis(1_700_000_000_000L, nanos::get);
    assertThat(clock.now()).isEqualTo(1_700_000_000_000L);
    nanos.addAndGet(2_500_000_000L);
    assertThat(clock.now()).isEqualTo(1_700_000_002_500L);
    nanos.addAndGet(999_999L);
    assertThat(clock.now()).as("whole milliseconds").isEqualTo(1_700_000_002_500L);
  }

  @Test
  void theJvmsClockNeverGoesBack() {
    MonotonicMillis clock = new MonotonicMillis();
    long before = clock.now();
    assertThat(Math.abs(before - System.currentTimeMillis())).isLessThan(1_000);
    for (int i = 0; i < 1_000; i++) {
      long now = clock.now();
      assertThat(now).isGreaterThanOrEqualTo(before);
      before = now;
    }
  }
}
