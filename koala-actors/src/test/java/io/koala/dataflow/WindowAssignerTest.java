package io.koala.dataflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Window assignment by timestamp, and the window type's overlap, cover and byte order. */
class WindowAssignerTest {

  private static WindowAssigner tumbling(long ms) {
    return WindowAssigner.tumbling(Duration.ofMillis(ms));
  }

  private static WindowAssigner sliding(long size, long slide) {
    return WindowAssigner.sliding(Duration.ofMillis(size), Duration.ofMillis(slide));
  }

  private static TimeWindow w(long start, long end) {
    return new TimeWindow(start, end);
  }

  // ------------------------------------------------------------------ tumbling

  @Test
  void tumblingWindowsAreAlignedToMultiplesOfTheSize() {
    WindowAssigner a = tumbling(10);
    assertThat(a.assign(0)).containsExactly(w(0, 10));
    assertThat(a.assign(9)).containsExactly(w(0, 10));
    assertThat(a.assign(10)).containsExactly(w(10, 20));
    assertThat(a.assign(12_345)).containsExactly(w(12_340, 12_350));
    assertThat(a.kind()).isEqualTo(WindowAssigner.Kind.TUMBLING);
    assertThat(a.isMerging()).isFalse();
  }

  @Test
  void tumblingWindowsOfNegativeTimestampsRoundDown() {
    WindowAssigner a = tumbling(10);
    assertThat(a.assign(-1)).containsExactly(w(-10, 0));
    assertThat(a.assign(-10)).containsExactly(w(-10, 0));
    assertThat(a.assign(-11)).containsExactly(w(-20, -10));
  }

  @Test
  void everyTimestampIsInExactlyOneTumblingWindowThatContainsIt() {
    for (long size : new long[] {1, 3, 10, 60_000}) {
      WindowAssigner a = tumbling(size);
      for (long t = -250; t <= 250; t++) {
        List<TimeWindow> ws = a.assign(t);
        assertThat(ws).as("size %d, t %d", size, t).hasSize(1);
        TimeWindow win = ws.get(0);
        assertThat(win.start()).isLessThanOrEqualTo(t);
        assertThat(win.maxTimestamp()).isGreaterThanOrEqualTo(t);
        assertThat(win.end() - win.start()).isEqualTo(size);
        assertThat(Math.floorMod(win.start(), size)).isZero();
      }
    }
  }

  // ------------------------------------------------------------------ sliding

  @Test
  void slidingWindowsOverlapEarliestFirst() {
    WindowAssigner a = sliding(10, 5);
    assertThat(a.assign(7)).containsExactly(w(0, 10), w(5, 15));
    assertThat(a.assign(5)).as("at a boundary").containsExactly(w(0, 10), w(5, 15));
    assertThat(a.assign(4)).containsExactly(w(-5, 5), w(0, 10));
    assertThat(a.assign(-3)).containsExactly(w(-10, 0), w(-5, 5));
    assertThat(a.assign(-5)).containsExactly(w(-10, 0), w(-5, 5));
    assertThat(a.assign(-6)).containsExactly(w(-15, -5), w(-10, 0));
    assertThat(a.kind()).isEqualTo(WindowAssigner.Kind.SLIDING);
  }

  @Test
  void aTimestampBelongsToSizeOverSlideSlidingWindowsWhenTheSlideDividesTheSize() {
    long[][] shapes = {{10, 5}, {10, 1}, {12, 4}, {60, 20}, {7, 7}};
    for (long[] shape : shapes) {
      WindowAssigner a = sliding(shape[0], shape[1]);
      for (long t = -100; t <= 100; t++) {
        List<TimeWindow> ws = a.assign(t);
        assertThat(ws).as("%s at %d", a, t).hasSize((int) (shape[0] / shape[1]));
        assertThat(ws).isEqualTo(bruteForce(shape[0], shape[1], t));
      }
    }
  }

  @Test
  void slidingWindowsWhoseSlideDoesNotDivideTheSizeAreEveryAlignedWindowContainingIt() {
    for (long[] shape : new long[][] {{10, 3}, {7, 2}, {5, 4}}) {
      WindowAssigner a = sliding(shape[0], shape[1]);
      for (long t = -50; t <= 50; t++) {
        assertThat(a.assign(t)).as("%s at %d", a, t).isEqualTo(bruteForce(shape[0], shape[1], t));
      }
    }
  }

  /** Every window {@code [k·slide, k·slide + size)} containing {@code t}, earliest first. */
  private static List<TimeWindow> bruteForce(long size, long slide, long t) {
    List<TimeWindow> out = new ArrayList<>();
    for (long k = -1_000; k <= 1_000; k++) {
      long start = k * slide;
      if (start <= t && t < start + size) {
        out.add(w(start, start + size));
      }
    }
    out.sort(Comparator.comparingLong(TimeWindow::start));
    return out;
  }

  @Test
  void slideAndSizeMustBeValid() {
    assertThatThrownBy(() -> sliding(5, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not exceed size");
    assertThatThrownBy(() -> sliding(10, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> tumbling(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1 ms");
    assertThatThrownBy(() -> tumbling(-5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WindowAssigner.session(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WindowAssigner.tumbling(Duration.ofNanos(999_999)))
        .as("below a millisecond")
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ------------------------------------------------------------------ sessions

  @Test
  void aSessionWindowStartsAtTheRecordAndLastsTheGap() {
    WindowAssigner a = WindowAssigner.session(Duration.ofMillis(30));
    assertThat(a.assign(100)).containsExactly(w(100, 130));
    assertThat(a.assign(-100)).containsExactly(w(-100, -70));
    assertThat(a.isMerging()).isTrue();
    assertThat(a.kind()).isEqualTo(WindowAssigner.Kind.SESSION);
    assertThat(a.toString()).contains("30");
  }

  @Test
  void recordsCloserThanTheGapMergeIntoOneSessionAndFartherOnesDoNot() {
    WindowAssigner a = WindowAssigner.session(Duration.ofMillis(10));
    long[] timestamps = {0, 4, 14, 9, 30, 41, 40};
    List<TimeWindow> sessions = new ArrayList<>();
    for (long t : timestamps) {
      TimeWindow merged = a.assign(t).get(0);
      List<TimeWindow> rest = new ArrayList<>();
      for (TimeWindow s : sessions) {
        if (s.intersects(merged)) {
          merged = merged.cover(s);
        } else {
          rest.add(s);
        }
      }
      rest.add(merged);
      sessions = rest;
    }
    sessions.sort(Comparator.comparingLong(TimeWindow::start));
    // 0, 4, 9, 14 chain (gaps of at most 10); 30 stands alone until 40 and 41 arrive, 10 later.
    assertThat(sessions).containsExactly(w(0, 24), w(30, 51));
  }

  // ------------------------------------------------------------------ TimeWindow

  @Test
  void aWindowIsHalfOpenAndItsResultsCarryItsLastTimestamp() {
    assertThat(w(0, 10).maxTimestamp()).isEqualTo(9);
    assertThat(w(-10, 0).maxTimestamp()).isEqualTo(-1);
    assertThatThrownBy(() -> w(5, 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> w(6, 5)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void windowsIntersectWhenTheyOverlapOrTouch() {
    TimeWindow a = w(0, 10);
    assertThat(a.intersects(w(5, 15))).isTrue();
    assertThat(a.intersects(w(10, 20))).as("touching").isTrue();
    assertThat(a.intersects(w(-10, 0))).as("touching").isTrue();
    assertThat(a.intersects(w(2, 3))).as("inside").isTrue();
    assertThat(a.intersects(w(-5, 20))).as("around").isTrue();
    assertThat(a.intersects(w(11, 20))).isFalse();
    assertThat(a.intersects(w(-10, -1))).isFalse();
    for (TimeWindow b : List.of(w(5, 15), w(10, 20), w(11, 20), w(-10, -1), w(2, 3))) {
      assertThat(b.intersects(a)).as("symmetric for %s", b).isEqualTo(a.intersects(b));
    }
  }

  @Test
  void coverIsTheSmallestWindowContainingBoth() {
    assertThat(w(0, 10).cover(w(5, 15))).isEqualTo(w(0, 15));
    assertThat(w(5, 15).cover(w(0, 10))).isEqualTo(w(0, 15));
    assertThat(w(0, 10).cover(w(2, 3))).isEqualTo(w(0, 10));
    assertThat(w(-20, -10).cover(w(10, 20))).as("also when apart").isEqualTo(w(-20, 20));
  }

  private static final long[] EDGES = {
    Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L << 33, -256, -1, 0, 1, 255, 1L << 33, Long.MAX_VALUE
  };

  @Test
  void bytesRoundTripAndSortInStartThenEndOrder() {
    List<TimeWindow> windows = new ArrayList<>();
    for (long start : EDGES) {
      for (long end : EDGES) {
        if (end > start) {
          windows.add(w(start, end));
        }
      }
    }
    for (TimeWindow win : windows) {
      byte[] b = win.toBytes();
      assertThat(b).hasSize(16);
      assertThat(TimeWindow.fromBytes(b)).isEqualTo(win);
    }
    Comparator<TimeWindow> byFields =
        Comparator.comparingLong(TimeWindow::start).thenComparingLong(TimeWindow::end);
    for (TimeWindow a : windows) {
      for (TimeWindow b : windows) {
        assertThat(Integer.signum(Arrays.compareUnsigned(a.toBytes(), b.toBytes())))
            .as("%s vs %s", a, b)
            .isEqualTo(Integer.signum(byFields.compare(a, b)));
      }
    }
  }
}
