package io.koala.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StoreOptionsTest {

  @Test
  void defaultsAreOneGibibyteGrowingToOneTebibyte() {
    StoreOptions options = StoreOptions.defaults();
    assertThat(options.initialMapSizeBytes()).isEqualTo(64L << 20);
    assertThat(options.maxMapSizeBytes()).isEqualTo(1L << 40);
    assertThat(options.growthFactor()).isEqualTo(2.0);
    assertThat(options.withGrowthFactor(1.5).growthFactor()).isEqualTo(1.5);
  }

  @Test
  void invalidOptionsNameTheField() {
    assertThatThrownBy(() -> new StoreOptions(1024, 1L << 40, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("initialMapSizeBytes");
    assertThatThrownBy(() -> new StoreOptions(1L << 30, 1L << 20, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxMapSizeBytes");
    for (double factor : new double[] {1.0, 0.5, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> StoreOptions.defaults().withGrowthFactor(factor))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("growthFactor");
    }
  }
}
