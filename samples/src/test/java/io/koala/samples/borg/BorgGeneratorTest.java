package io.koala.samples.borg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BorgGeneratorTest {
  static final long KEYS = 9 * 2_000;
  static final long ACTIVE = 9 * 100;
  final BorgGenerator g = new BorgGenerator(KEYS, ACTIVE, 0, 1000);

  @Test
  void eventsArePureFunctionsOfIndexAndSeedAndAgreeWithTheirKey() {
    for (long i = 0; i < 3 * KEYS; i += 7) {
      TaskEvent e = g.generate(i, 42);
      assertThat(g.generate(i, 42)).isEqualTo(e);
      assertThat(e.key()).isEqualTo(g.keyOf(i, 42));
      assertThat(e.key()).isEqualTo(e.jobId() * 9 + e.type().ordinal());
      assertThat(e.timestamp()).isEqualTo(i); // 1,000 events per second from 0
      assertThat(e.taskIndex()).isBetween(0, BorgGenerator.tasksOf(e.jobId()) - 1);
      assertThat(e.machineId()).isBetween(0L, BorgGenerator.MACHINES - 1L);
      assertThat(e.priority()).isBetween(0, 11);
      for (double request : new double[] {e.cpuRequest(), e.ramRequest(), e.diskRequest()}) {
        assertThat(request).isGreaterThan(0).isLessThanOrEqualTo(1);
      }
    }
    assertThat(BorgGenerator.keyOf(7, BorgEventType.FINISH)).isEqualTo(7 * 9 + 4);
  }

  @Test
  void theWarmUpTouchesEveryKeyOnceThenOnlyActiveOnesByTasksAndType() {
    for (long i = 0; i < KEYS; i++) {
      assertThat(g.keyOf(i, 1)).isEqualTo(i);
    }
    int n = 300_000;
    long[] jobHits = new long[(int) (ACTIVE / 9)];
    long[] typeHits = new long[BorgEventType.count()];
    for (long i = KEYS; i < KEYS + n; i++) {
      long k = g.keyOf(i, 1);
      assertThat(k).isBetween(0L, ACTIVE - 1);
      jobHits[(int) (k / 9)]++;
      typeHits[(int) (k % 9)]++;
    }
    // a job's events are in proportion to its tasks (the type shares sum to 1)
    long totalTasks = 0;
    int biggest = 0;
    for (int j = 0; j < jobHits.length; j++) {
      totalTasks += BorgGenerator.tasksOf(j);
      if (BorgGenerator.tasksOf(j) > BorgGenerator.tasksOf(biggest)) {
        biggest = j;
      }
    }
    double expected = (double) BorgGenerator.tasksOf(biggest) / totalTasks;
    assertThat((double) jobHits[biggest] / n).isBetween(0.9 * expected, 1.1 * expected);
    assertThat((double) typeHits[BorgEventType.SUBMIT.ordinal()] / n).isBetween(0.26, 0.28);
    assertThat((double) typeHits[BorgEventType.LOST.ordinal()] / n).isBetween(0.003, 0.007);
  }

  @Test
  void tasksPerJobAreHeavyTailed() {
    int jobs = 200_000;
    int atLeast10 = 0;
    int atLeast100 = 0;
    int ones = 0;
    for (long j = 0; j < jobs; j++) {
      int t = BorgGenerator.tasksOf(j);
      assertThat(t).isBetween(1, BorgGenerator.MAX_TASKS);
      ones += t == 1 ? 1 : 0;
      atLeast10 += t >= 10 ? 1 : 0;
      atLeast100 += t >= 100 ? 1 : 0;
    }
    // Pareto(1.1) floored: P(tasks >= x) = x^-1.1
    assertThat((double) ones / jobs).isCloseTo(1 - Math.pow(2, -1.1), within(0.01));
    assertThat((double) atLeast10 / jobs).isCloseTo(Math.pow(10, -1.1), within(0.005));
    assertThat((double) atLeast100 / jobs).isCloseTo(Math.pow(100, -1.1), within(0.001));
  }

  @Test
  void refusesAnActiveRangeOutsideTheKeys() {
    assertThatThrownBy(() -> new BorgGenerator(10, 11, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("active keys");
  }

  private static org.assertj.core.data.Offset<Double> within(double d) {
    return org.assertj.core.data.Offset.offset(d);
  }
}
