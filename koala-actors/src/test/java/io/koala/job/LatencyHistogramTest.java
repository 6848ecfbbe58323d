package io.koala.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
  private static final long MS = 1_000_000;

  /** 99 durations of 1 ms and one of 50 ms. */
  private static LatencyHistogram skewed() {
    long[] nanos =
        LongStream.concat(LongStream.generate(() -> MS).limit(99), LongStream.of(50 * MS))
            .toArray();
    return LatencyHistogram.of(nanos);
  }

  @Test
  void countsPercentilesAndExtremesWithinTwoDigits() {
    LatencyHistogram h = skewed();
    assertThat(h.count()).isEqualTo(100);
    assertThat((double) h.percentile(50)).isCloseTo(MS, within(MS / 100.0));
    assertThat((double) h.percentile(99)).isCloseTo(MS, within(MS / 100.0));
    assertThat((double) h.percentile(100)).isCloseTo(50 * MS, within(50 * MS / 100.0));
    assertThat((double) h.max()).isCloseTo(50 * MS, within(50 * MS / 100.0));
    assertThat((double) h.min()).isCloseTo(MS, within(MS / 100.0));
    assertThat(h.mean()).isCloseTo((99 * MS + 50 * MS) / 100.0, within(1.5 * MS / 100));
  }

  @Test
  void countAtOrBelowIsCumulative() {
    LatencyHistogram h = skewed();
    assertThat(h.countAtOrBelow(-1)).isZero();
    assertThat(h.countAtOrBelow(MS / 2)).isZero();
    assertThat(h.countAtOrBelow(2 * MS)).isEqualTo(99);
    assertThat(h.countAtOrBelow(LatencyHistogram.MAX_NANOS)).isEqualTo(100);
    assertThat(h.countAtOrBelow(Long.MAX_VALUE)).isEqualTo(100);
  }

  @Test
  void anEmptyHistogramAnswersZero() {
    LatencyHistogram h = LatencyHistogram.EMPTY;
    assertThat(h.count()).isZero();
    assertThat(h.percentile(99)).isZero();
    assertThat(h.max()).isZero();
    assertThat(h.min()).isZero();
    assertThat(h.mean()).isZero();
  }

  @Test
  void outOfRangeDurationsAreClamped() {
    LatencyHistogram h = LatencyHistogram.of(-5, Long.MAX_VALUE);
    assertThat(h.count()).isEqualTo(2);
    assertThat(h.countAtOrBelow(0)).isEqualTo(1);
    assertThat((double) h.max())
        .isCloseTo(LatencyHistogram.MAX_NANOS, within(LatencyHistogram.MAX_NANOS / 100.0));
  }

  @Test
  void theDifferenceOfTwoSnapshotsIsWhatWasMeasuredInBetween() {
    LatencyHistogram before = LatencyHistogram.of(MS, MS);
    LatencyHistogram after = LatencyHistogram.of(MS, MS, 20 * MS);
    LatencyHistogram window = after.minus(before);
    assertThat(window.count()).isEqualTo(1);
    assertThat((double) window.min()).isCloseTo(20 * MS, within(20 * MS / 100.0));
    assertThat(window).isEqualTo(LatencyHistogram.of(20 * MS));
    assertThatThrownBy(() -> before.minus(after))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a previous snapshot");
  }

  @Test
  void sumsAddCounts() {
    LatencyHistogram a = LatencyHistogram.of(MS);
    LatencyHistogram b = LatencyHistogram.of(3 * MS, 3 * MS);
    assertThat(a.plus(b)).isEqualTo(LatencyHistogram.of(MS, 3 * MS, 3 * MS));
    assertThat(LatencyHistogram.sum(List.of(a, b, a)))
        .isEqualTo(LatencyHistogram.of(MS, MS, 3 * MS, 3 * MS));
    assertThat(LatencyHistogram.sum(List.of())).isEqualTo(LatencyHistogram.EMPTY);
    assertThat(a.count()).as("operands unchanged").isEqualTo(1);
  }

  @Test
  void theCompressedFormRoundTripsAndBadBytesFailAtOnce() {
    LatencyHistogram h = skewed();
    byte[] bytes = h.toCompressed();
    LatencyHistogram back = LatencyHistogram.fromCompressed(bytes);
    bytes[0] ^= 0x7F; // both ends copy: changing the bytes changes neither histogram
    h.toCompressed()[0] ^= 0x7F;
    assertThat(back).isEqualTo(h).hasSameHashCodeAs(h);
    assertThat(back.count()).isEqualTo(100);
    assertThat(back.percentile(99)).isEqualTo(h.percentile(99));
    assertThatThrownBy(() -> LatencyHistogram.fromCompressed(new byte[] {1, 2, 3}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a compressed HdrHistogram");
  }

  @Test
  void aPercentileOutsideZeroToHundredIsRejected() {
    assertThatThrownBy(() -> skewed().percentile(101))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[0, 100]");
    assertThatThrownBy(() -> skewed().percentile(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
