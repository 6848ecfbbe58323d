package io.koala.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.window.TimeWindow;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Merging a record's window into a key's sessions, and the sessions' encoding as state. */
class SessionWindowsTest {

  private static TimeWindow w(long start, long end) {
    return new TimeWindow(start, end);
  }

  @Test
  void aWindowIntersectingNothingIsANewSessionInStartOrder() {
    SessionWindows.Merge m = SessionWindows.add(List.of(w(0, 10), w(40, 50)), w(20, 30));
    assertThat(m.window()).isEqualTo(w(20, 30));
    assertThat(m.merged()).isEmpty();
    assertThat(m.unchanged()).isFalse();
    assertThat(m.sessions()).containsExactly(w(0, 10), w(20, 30), w(40, 50));
  }

  @Test
  void aWindowInsideASessionLeavesItUnchanged() {
    SessionWindows.Merge m = SessionWindows.add(List.of(w(0, 30)), w(5, 15));
    assertThat(m.window()).isEqualTo(w(0, 30));
    assertThat(m.merged()).containsExactly(w(0, 30));
    assertThat(m.unchanged()).isTrue();
    assertThat(m.sessions()).containsExactly(w(0, 30));
  }

  @Test
  void aBridgingWindowMergesBothNeighboursAndTouchingCounts() {
    SessionWindows.Merge m =
        SessionWindows.add(List.of(w(15, 25), w(0, 10), w(100, 110)), w(8, 18));
    assertThat(m.window()).isEqualTo(w(0, 25));
    assertThat(m.merged()).containsExactly(w(0, 10), w(15, 25));
    assertThat(m.unchanged()).isFalse();
    assertThat(m.sessions()).containsExactly(w(0, 25), w(100, 110));

    SessionWindows.Merge touching = SessionWindows.add(List.of(w(0, 10)), w(10, 20));
    assertThat(touching.window()).isEqualTo(w(0, 20));
    assertThat(touching.merged()).containsExactly(w(0, 10));
  }

  @Test
  void anExtendingWindowMergesWhatTheGrowingCoverReaches() {
    // [5, 15) overlaps [0, 8) only; covering it gives [0, 15), which touches nothing else.
    SessionWindows.Merge m = SessionWindows.add(List.of(w(0, 8), w(16, 20)), w(5, 15));
    assertThat(m.window()).isEqualTo(w(0, 15));
    assertThat(m.sessions()).containsExactly(w(0, 15), w(16, 20));
    // An identical window to an existing session is that session.
    assertThat(SessionWindows.add(List.of(w(0, 8)), w(0, 8)).unchanged()).isTrue();
  }

  /** The sessions of a key equal a sweep over its sorted timestamps, whatever the arrival order. */
  @Test
  void sessionsDoNotDependOnArrivalOrder() {
    long seed = new Random().nextLong();
    System.out.println("SessionWindowsTest seed " + seed);
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      long gap = 1 + random.nextInt(20);
      List<Long> timestamps = new ArrayList<>();
      for (int i = 0; i < 1 + random.nextInt(30); i++) {
        timestamps.add((long) random.nextInt(300));
      }
      List<TimeWindow> sessions = new ArrayList<>();
      for (long ts : timestamps) {
        sessions = new ArrayList<>(SessionWindows.add(sessions, w(ts, ts + gap)).sessions());
      }
      List<Long> sorted = timestamps.stream().sorted().toList();
      List<TimeWindow> expected = new ArrayList<>();
      long start = sorted.get(0);
      long end = start + gap;
      for (long ts : sorted) {
        if (ts <= end) {
          end = Math.max(end, ts + gap);
        } else {
          expected.add(w(start, end));
          start = ts;
          end = ts + gap;
        }
      }
      expected.add(w(start, end));
      assertThat(sessions).as("seed %d round %d: %s", seed, round, timestamps).isEqualTo(expected);
    }
  }

  @Test
  void theCodecRoundTripsIncludingNegativeAndExtremeTimes() {
    List<TimeWindow> windows =
        List.of(w(Long.MIN_VALUE, Long.MIN_VALUE + 1), w(-20, -10), w(0, 10), w(5, Long.MAX_VALUE));
    byte[] bytes = SessionWindows.CODEC.encode(windows);
    assertThat(bytes).hasSize(64);
    assertThat(SessionWindows.CODEC.decode(bytes)).isEqualTo(windows);
    assertThat(SessionWindows.CODEC.decode(new byte[0])).isEmpty();
    assertThatThrownBy(() -> SessionWindows.CODEC.decode(new byte[17]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiple of 16");
  }
}
