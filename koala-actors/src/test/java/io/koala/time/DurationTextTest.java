package io.koala.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationTextTest {

  @Test
  void theLargestUnitThatStatesItExactly() {
    assertThat(DurationText.of(Duration.ofMillis(1))).isEqualTo("1 ms");
    assertThat(DurationText.of(Duration.ZERO)).isEqualTo("0 s");
    assertThat(DurationText.of(Duration.ofSeconds(90))).isEqualTo("90 s");
    assertThat(DurationText.of(Duration.ofMinutes(10))).isEqualTo("10 min");
    assertThat(DurationText.of(Duration.ofHours(24))).isEqualTo("1 d");
    assertThat(DurationText.of(Duration.ofMillis(1500))).isEqualTo("1500 ms");
    assertThat(DurationText.of(Duration.ofMillis(-1))).isEqualTo("-1 ms");
    assertThat(DurationText.of(Duration.ofNanos(2500))).isEqualTo("2500 ns");
  }
}
