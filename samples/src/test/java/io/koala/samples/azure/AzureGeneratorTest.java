package io.koala.samples.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AzureGeneratorTest {
  static final long KEYS = 10_000;
  static final long ACTIVE = 2_000;
  final AzureGenerator g = new AzureGenerator(KEYS, ACTIVE, 0, 1000);

  @Test
  void readingsArePureFunctionsOfIndexAndSeedWithinRange() {
    for (long i = 0; i < 3 * KEYS; i += 7) {
      VmReading r = g.generate(i, 42);
      assertThat(g.generate(i, 42)).isEqualTo(r);
      assertThat(r.vmId()).isEqualTo(g.keyOf(i, 42));
      assertThat(r.minCpu()).isGreaterThanOrEqualTo(0).isLessThanOrEqualTo(r.avgCpu());
      assertThat(r.maxCpu()).isGreaterThanOrEqualTo(r.avgCpu()).isLessThanOrEqualTo(100);
      assertThat(r.timestamp() % AzureGenerator.INTERVAL_MILLIS).isZero();
      assertThat(r.timestamp()).isBetween(i - AzureGenerator.INTERVAL_MILLIS + 1, i);
    }
  }

  @Test
  void theWarmUpTouchesEveryVmOnceThenShortLivedVmsAmongTheActiveOnes() {
    for (long i = 0; i < KEYS; i++) {
      assertThat(g.keyOf(i, 1)).isEqualTo(i);
    }
    assertThat(g.alive()).isEqualTo(ACTIVE / 4);
    Map<Long, long[]> firstLastCount = new HashMap<>();
    long end = KEYS + ACTIVE * AzureGenerator.READINGS_PER_LIFETIME; // the window's first turn
    for (long i = KEYS; i < end; i++) {
      long vm = g.keyOf(i, 1);
      long offset = Math.floorMod(vm - g.aliveOf(i), ACTIVE);
      assertThat(offset).isLessThan(g.alive()); // only VMs of the moving window
      long[] flc = firstLastCount.computeIfAbsent(vm, k -> new long[] {Long.MAX_VALUE, 0, 0});
      flc[0] = Math.min(flc[0], i);
      flc[1] = Math.max(flc[1], i);
      flc[2]++;
    }
    // VMs that started and ended within the first turn: about 24 readings over a life of at
    // most alive · 24 records
    long vms = 0;
    long readings = 0;
    for (long vm = g.alive(); vm < ACTIVE; vm++) {
      long[] flc = firstLastCount.get(vm);
      assertThat(flc[1] - flc[0])
          .isLessThan((g.alive() + 1) * AzureGenerator.READINGS_PER_LIFETIME);
      vms++;
      readings += flc[2];
    }
    assertThat((double) readings / vms).isBetween(22.0, 26.0);
  }

  @Test
  void cpuFollowsADailyRhythm() {
    double sumRatio = 0;
    int vms = 200;
    for (long vm = 0; vm < vms; vm++) {
      double min = Double.MAX_VALUE;
      double max = 0;
      for (int hour = 0; hour < 24; hour++) {
        double avg = new AzureGenerator(vms, vms, hour * 3_600_000L, 1).generate(vm, 3).avgCpu();
        min = Math.min(min, avg);
        max = Math.max(max, avg);
      }
      sumRatio += max / min;
    }
    // amplitude uniform in [0, 0.6]: a peak to trough ratio of (1 + a) / (1 - a), about 2 on
    // average
    assertThat(sumRatio / vms).isBetween(1.5, 2.6);
  }

  @Test
  void refusesAnActiveRangeOutsideTheKeys() {
    assertThatThrownBy(() -> new AzureGenerator(10, 11, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("active keys");
  }
}
