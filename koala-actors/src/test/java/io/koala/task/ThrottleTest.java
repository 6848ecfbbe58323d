package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ThrottleTest {

  /** Runs batches as fast as the throttle allows for {@code seconds} of virtual time. */
  private static long recordsIn(double perSecond, int batch, double seconds) {
    Throttle t = new Throttle(perSecond);
    long now = 0;
    long end = (long) (seconds * 1e9);
    long records = 0;
    while (now < end) {
      long wait = t.waitNanos(now);
      if (wait > 0) {
        now += wait;
        continue;
      }
      t.take(now, batch);
      records += batch;
    }
    return records;
  }

  @Test
  void sustainedRateIsTheCapacityWhateverTheBatchSize() {
    for (int batch : new int[] {1, 100, 1000, 5000}) {
      long n = recordsIn(25_000, batch, 10);
      // 10 s at 25 000/s, plus at most the initial burst and one batch of overshoot
      assertThat(n).as("batch %d", batch).isBetween(250_000L, 250_000L + 1_250 + batch);
    }
  }

  @Test
  void idleTimeBuildsAtMostFiftyMillisecondsOfCapacity() {
    Throttle t = new Throttle(10_000);
    assertThat(t.waitNanos(0)).isZero();
    t.take(0, 500); // the whole initial burst (50 ms at 10 000/s)
    assertThat(t.waitNanos(0)).isPositive();
    long later = 10_000_000_000L; // idle for 10 s
    assertThat(t.waitNanos(later)).isZero();
    t.take(later, 500);
    assertThat(t.waitNanos(later)).as("only 500 tokens saved up, not 100 000").isPositive();
  }

  @Test
  void invalidCapacityIsRefused() {
    assertThatThrownBy(() -> new Throttle(0)).hasMessageContaining("positive");
    assertThatThrownBy(() -> new Throttle(Double.POSITIVE_INFINITY))
        .hasMessageContaining("positive");
  }
}
