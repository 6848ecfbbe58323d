package io.koala.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.LatencyHistogram;
import io.koala.micrometer.MeterRows.Kind;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** What a poll adds to a counter or a timer, from a series' previous and current values. */
class IncrementsTest {

  private static Histogram millis(long... values) {
    Histogram h = new Histogram(LatencyHistogram.MAX_NANOS, 2);
    for (long v : values) {
      h.recordValue(v * 1_000_000);
    }
    return h;
  }

  @Test
  void aTasksTotalCountsAfreshAfterARollbackOrWhenItGoesDown() {
    assertThat(Increments.counter(Kind.RUN_COUNTER, 100, 130, false)).isEqualTo(30);
    assertThat(Increments.counter(Kind.RUN_COUNTER, 100, 130, true)).isEqualTo(130);
    assertThat(Increments.counter(Kind.RUN_COUNTER, 100, 40, false)).isEqualTo(40);
  }

  @Test
  void aCoordinatorsTotalThatGoesDownWasUndoneAndAddsNothing() {
    assertThat(Increments.counter(Kind.COUNTER, 5, 3, true)).isZero();
    assertThat(Increments.counter(Kind.COUNTER, 3, 4, true)).isEqualTo(1);
  }

  @Test
  void aHistogramAddsWhatWasRecordedSinceUnlessItsRunRestarted() {
    Histogram before = millis(1, 1, 5);
    Histogram after = millis(1, 1, 5, 5, 9);
    Histogram delta = Increments.histogram(before, after, false);
    assertThat(delta.getTotalCount()).isEqualTo(2);
    assertThat(delta.getCountAtValue(5_000_000)).isEqualTo(1);
    assertThat(delta.getCountAtValue(9_000_000)).isEqualTo(1);

    assertThat(Increments.histogram(before, after, true).getTotalCount())
        .as("after a rollback, all of the new run")
        .isEqualTo(5);
    // more durations than before, but fewer at 1 ms: the task restarted and recorded these since
    Histogram restarted = millis(2, 2, 3, 7);
    assertThat(Increments.histogram(before, restarted, false).getTotalCount()).isEqualTo(4);
    assertThat(Increments.histogram(null, after, false).getTotalCount())
        .as("a new series: all of it")
        .isEqualTo(5);
  }

  @Test
  void aHistogramKeptCompressedComesBackWhole() {
    Histogram h = millis(1, 2, 3, 40_000);
    assertThat(Increments.decompress(Increments.compress(h))).isEqualTo(h);
  }
}
