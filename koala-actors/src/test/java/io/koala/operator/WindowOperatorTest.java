package io.koala.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.function.AggregateFunction;
import io.koala.window.TimeWindow;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The window operator's pure helpers: lateness, cleanup time, timer namespaces, merge detection.
 */
class WindowOperatorTest {

  @Test
  void aWindowIsLateOnceTheWatermarkReachesItsMaxTimestampPlusTheLateness() {
    TimeWindow w = new TimeWindow(0, 10);
    assertThat(WindowOperator.isLate(w, 0, 8)).isFalse();
    assertThat(WindowOperator.isLate(w, 0, 9)).isTrue();
    assertThat(WindowOperator.isLate(w, 5, 13)).isFalse();
    assertThat(WindowOperator.isLate(w, 5, 14)).isTrue();
    assertThat(WindowOperator.isLate(w, 0, Long.MIN_VALUE)).as("before any watermark").isFalse();
  }

  @Test
  void theCleanupTimeSaturatesInsteadOfOverflowing() {
    assertThat(WindowOperator.cleanupTime(new TimeWindow(0, 10), 5)).isEqualTo(14);
    TimeWindow last = new TimeWindow(Long.MAX_VALUE - 10, Long.MAX_VALUE);
    assertThat(WindowOperator.cleanupTime(last, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(WindowOperator.isLate(last, Long.MAX_VALUE, Long.MAX_VALUE - 1)).isFalse();
  }

  @Test
  void aTimerNamespaceIsTheWindowFollowedByItsMarker() {
    TimeWindow w = new TimeWindow(-5, 5);
    byte[] fire = WindowOperator.timerNamespace(w, WindowOperator.FIRE);
    byte[] cleanup = WindowOperator.timerNamespace(w, WindowOperator.CLEANUP);
    assertThat(fire).hasSize(17);
    assertThat(TimeWindow.fromBytes(Arrays.copyOf(fire, 16))).isEqualTo(w);
    assertThat(fire[16]).isEqualTo(WindowOperator.FIRE);
    assertThat(cleanup[16]).isEqualTo(WindowOperator.CLEANUP);
    assertThat(Arrays.compareUnsigned(fire, cleanup)).isNegative();
  }

  static class NoMerge implements AggregateFunction<Long, Long, Long> {
    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Long value, Long acc) {
      return acc + value;
    }

    @Override
    public Long result(Long acc) {
      return acc;
    }
  }

  static class WithMerge extends NoMerge {
    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  /** A function inheriting merge from an interface of its own. */
  interface Summing extends AggregateFunction<Long, Long, Long> {
    @Override
    default Long merge(Long a, Long b) {
      return a + b;
    }
  }

  @Test
  void mergeIsDetectedWhereverItIsImplemented() {
    assertThat(WindowOperator.implementsMerge(new NoMerge())).isFalse();
    assertThat(WindowOperator.implementsMerge(new WithMerge())).isTrue();
    assertThat(WindowOperator.implementsMerge(new WithMerge() {})).as("a subclass").isTrue();
    Summing summing =
        new Summing() {
          @Override
          public Long createAccumulator() {
            return 0L;
          }

          @Override
          public Long add(Long value, Long acc) {
            return acc + value;
          }

          @Override
          public Long result(Long acc) {
            return acc;
          }
        };
    assertThat(WindowOperator.implementsMerge(summing)).isTrue();
  }
}
