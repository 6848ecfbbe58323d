package io.koala.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.state.Codec;
import org.junit.jupiter.api.Test;

class BoundedSeriesTest {

  @Test
  void keepsTheLastValuesInExactlyTheChosenBytesAndReadsThemBack() {
    Codec<BoundedSeries> codec = BoundedSeries.codec(4, 100);
    BoundedSeries s = BoundedSeries.empty(4, 100);
    assertThat(s.median()).isNaN();
    assertThat(s.mean()).isNaN();
    assertThat(s.max()).isNaN();
    for (double v : new double[] {5, 1, 9, 3, 7, 2}) {
      s = s.plus(v);
      byte[] bytes = codec.encode(s);
      assertThat(bytes).hasSize(100);
      s = codec.decode(bytes);
    }
    assertThat(s.values()).containsExactly(9, 3, 7, 2); // oldest first
    assertThat(s.median()).isEqualTo((3 + 7) / 2.0);
    assertThat(s.mean()).isEqualTo(21 / 4.0);
    assertThat(s.max()).isEqualTo(9);
    assertThat(s.plus(4).median()).isEqualTo(3.5); // 3 7 2 4 -> 2 3 4 7
    assertThat(s.plus(4).plus(1).median()).isEqualTo(3); // 7 2 4 1 -> 1 2 4 7 -> 3
    assertThat(BoundedSeries.empty(3, 28).plus(4).plus(-1).plus(6).median()).isEqualTo(4);
  }

  @Test
  void refusesAStateTooSmallOrOfAnotherShape() {
    assertThat(BoundedSeries.minBytes(150)).isEqualTo(1204);
    assertThatThrownBy(() -> BoundedSeries.codec(150, 1203))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1204");
    BoundedSeries other = BoundedSeries.empty(4, 64).plus(1);
    assertThatThrownBy(() -> BoundedSeries.codec(4, 100).encode(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("padded for 64");
  }

  @Test
  void weightedKeysFollowTheirWeights() {
    WeightedKeys zipf = WeightedKeys.zipf(3, 1);
    double h = 1 + 1 / 2.0 + 1 / 3.0;
    assertThat(zipf.probability(0)).isCloseTo(1 / h, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(zipf.probability(2))
        .isCloseTo(1 / (3 * h), org.assertj.core.data.Offset.offset(1e-12));
    assertThat(zipf.sample(0)).isZero();
    assertThat(zipf.sample(0.999999)).isEqualTo(2);
    WeightedKeys skipping = new WeightedKeys(3, k -> k == 1 ? 0 : 1);
    assertThat(skipping.sample(0.5)).isEqualTo(2); // never the key of weight 0
    assertThatThrownBy(() -> new WeightedKeys(2, k -> 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
