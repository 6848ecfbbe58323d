package io.koala.time;

import static io.koala.time.WatermarkTracker.NONE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The combination of channel watermarks (DESIGN §4.5): the minimum over active channels, held by a
 * channel without a watermark, ignoring idle and ended channels, and never going backwards.
 */
class WatermarkTrackerTest {

  @Test
  void theCombinedWatermarkIsTheMinimumOverChannels() {
    WatermarkTracker t = new WatermarkTracker(3);
    assertThat(t.onWatermark(0, 10)).isEqualTo(NONE);
    assertThat(t.onWatermark(1, 5)).isEqualTo(NONE);
    assertThat(t.onWatermark(2, 7)).as("the last channel's first watermark").isEqualTo(5);
    assertThat(t.combined()).isEqualTo(5);
    assertThat(t.onWatermark(0, 20)).as("not the minimum").isEqualTo(NONE);
    assertThat(t.onWatermark(1, 30)).isEqualTo(7);
    assertThat(t.onWatermark(2, 25)).isEqualTo(20);
    assertThat(t.combined()).isEqualTo(20);
  }

  @Test
  void aChannelWithoutAWatermarkHoldsProgress() {
    WatermarkTracker t = new WatermarkTracker(2);
    assertThat(t.combined()).isEqualTo(NONE);
    for (long w = 1; w <= 100; w++) {
      assertThat(t.onWatermark(0, w)).isEqualTo(NONE);
    }
    t.onData(1);
    assertThat(t.combined()).as("data is no watermark").isEqualTo(NONE);
    assertThat(t.onWatermark(1, 1_000)).isEqualTo(100);
  }

  @Test
  void aChannelsWatermarkNeverGoesBackwards() {
    WatermarkTracker t = new WatermarkTracker(2);
    t.onWatermark(0, 50);
    t.onWatermark(0, 10); // out of order: ignored
    assertThat(t.onWatermark(1, 100)).isEqualTo(50);
  }

  @Test
  void anIdleChannelIsLeftOutUntilDataReactivatesIt() {
    WatermarkTracker t = new WatermarkTracker(2);
    t.onWatermark(0, 10);
    assertThat(t.onIdle(1)).as("channel 1 never sent one, but is idle").isEqualTo(10);
    assertThat(t.onWatermark(0, 20)).isEqualTo(20);
    t.onData(1); // active again, still without a watermark: holds progress
    assertThat(t.onWatermark(0, 30)).isEqualTo(NONE);
    assertThat(t.combined()).isEqualTo(20);
    assertThat(t.onWatermark(1, 25)).isEqualTo(25);
    assertThat(t.onWatermark(1, 40)).isEqualTo(30);
  }

  @Test
  void anIdleChannelIsReactivatedByAWatermark() {
    WatermarkTracker t = new WatermarkTracker(2);
    t.onWatermark(0, 100);
    t.onWatermark(1, 50);
    assertThat(t.onIdle(1)).isEqualTo(100);
    assertThat(t.allIdle()).isFalse();
    assertThat(t.onWatermark(1, 150)).as("active again, ahead of channel 0").isEqualTo(NONE);
    assertThat(t.onWatermark(0, 200)).isEqualTo(150);
  }

  @Test
  void aReactivatedChannelBehindTheCombinedWatermarkDoesNotLowerIt() {
    WatermarkTracker t = new WatermarkTracker(2);
    t.onWatermark(0, 100);
    t.onWatermark(1, 10);
    assertThat(t.onIdle(1)).isEqualTo(100);
    assertThat(t.onWatermark(1, 20)).isEqualTo(NONE);
    assertThat(t.combined()).isEqualTo(100);
    t.onData(1);
    assertThat(t.onWatermark(0, 500)).as("channel 1 holds progress again").isEqualTo(NONE);
    assertThat(t.combined()).isEqualTo(100);
    assertThat(t.onWatermark(1, 300)).isEqualTo(300);
  }

  @Test
  void whenEveryOpenChannelIsIdleNothingMoves() {
    WatermarkTracker t = new WatermarkTracker(2);
    t.onWatermark(0, 5);
    t.onWatermark(1, 7);
    assertThat(t.onIdle(0)).isEqualTo(7);
    assertThat(t.onIdle(1)).isEqualTo(NONE);
    assertThat(t.combined()).isEqualTo(7);
    assertThat(t.allIdle()).isTrue();
  }

  @Test
  void endedChannelsAreLeftOutForGood() {
    WatermarkTracker t = new WatermarkTracker(3);
    t.onWatermark(0, 10);
    t.onWatermark(1, 20);
    assertThat(t.onEnd(2)).isEqualTo(10);
    assertThat(t.onEnd(0)).isEqualTo(20);
    t.onData(0); // a late item of an ended channel does not revive it
    assertThat(t.onWatermark(1, 30)).isEqualTo(30);
  }

  @Test
  void whenEveryChannelHasEndedTheWatermarkIsMax() {
    WatermarkTracker t = new WatermarkTracker(2);
    t.onWatermark(0, 10);
    assertThat(t.onEnd(0)).isEqualTo(NONE);
    assertThat(t.onEnd(1)).isEqualTo(Long.MAX_VALUE);
    assertThat(t.combined()).isEqualTo(Long.MAX_VALUE);
    assertThat(t.allIdle()).as("nothing is open").isFalse();
  }

  @Test
  void idleAndEndedChannelsEndingLastGiveMax() {
    WatermarkTracker t = new WatermarkTracker(2);
    t.onIdle(0);
    t.onIdle(1);
    assertThat(t.onEnd(0)).isEqualTo(NONE);
    assertThat(t.onEnd(1)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void allIdleNeedsEveryOpenChannelIdleAndOneOpen() {
    WatermarkTracker t = new WatermarkTracker(3);
    assertThat(t.allIdle()).isFalse();
    t.onIdle(0);
    t.onIdle(1);
    assertThat(t.allIdle()).isFalse();
    t.onEnd(2);
    assertThat(t.allIdle()).isTrue();
    t.onData(1);
    assertThat(t.allIdle()).isFalse();
    t.onIdle(1);
    t.onWatermark(0, 3);
    assertThat(t.allIdle()).isFalse();
    t.onEnd(0);
    assertThat(t.allIdle()).isTrue();
    t.onEnd(1);
    assertThat(t.allIdle()).isFalse();
  }

  @Test
  void aTrackerWithoutChannelsHasEndedAtOnce() {
    WatermarkTracker t = new WatermarkTracker(0);
    assertThat(t.allIdle()).isFalse();
    assertThat(t.combined()).isEqualTo(NONE);
  }

  // ------------------------------------------------------------------ against a model

  @Test
  void randomEventsMatchASimpleModel() {
    String replay = System.getProperty("koala.watermark.seed");
    long[] seeds =
        replay != null
            ? new long[] {Long.parseLong(replay)}
            : new long[] {1, 2, 3, 42, System.nanoTime()};
    System.out.println(
        "WatermarkTrackerTest seeds "
            + Arrays.toString(seeds)
            + " (replay one with -Dkoala.watermark.seed=N)");
    for (long seed : seeds) {
      for (int run = 0; run < 50; run++) {
        simulate(seed * 1_000 + run, seed);
      }
    }
  }

  /** The obvious specification, kept separately from the tracker's. */
  private static final class Model {
    final long[] wm;
    final boolean[] idle;
    final boolean[] ended;
    long combined = NONE;

    Model(int n) {
      wm = new long[n];
      Arrays.fill(wm, NONE);
      idle = new boolean[n];
      ended = new boolean[n];
    }

    /** The value the combined watermark should reach now, or null for "stay". */
    Long target() {
      boolean anyOpen = false;
      boolean anyActive = false;
      long min = Long.MAX_VALUE;
      for (int c = 0; c < wm.length; c++) {
        if (ended[c]) {
          continue;
        }
        anyOpen = true;
        if (!idle[c]) {
          anyActive = true;
          min = Math.min(min, wm[c]);
        }
      }
      if (!anyOpen) {
        return Long.MAX_VALUE;
      }
      return anyActive ? min : null;
    }

    /** Applies the rule "advance, never regress"; returns the advance or NONE. */
    long settle() {
      Long target = target();
      if (target != null && target > combined) {
        combined = target;
        return combined;
      }
      return NONE;
    }

    boolean allIdle() {
      boolean anyOpen = false;
      for (int c = 0; c < wm.length; c++) {
        if (!ended[c]) {
          anyOpen = true;
          if (!idle[c]) {
            return false;
          }
        }
      }
      return anyOpen;
    }
  }

  private static void simulate(long runSeed, long seed) {
    Random random = new Random(runSeed);
    int n = 1 + random.nextInt(5);
    WatermarkTracker tracker = new WatermarkTracker(n);
    Model model = new Model(n);
    long[] sent = new long[n]; // per channel, watermarks increase like a real sender's
    StringBuilder trace = new StringBuilder("seed " + seed + " run " + runSeed + ", " + n + " ch:");
    long previous = NONE;
    for (int step = 0; step < 200; step++) {
      int c = random.nextInt(n);
      int op = random.nextInt(20);
      long got;
      if (model.ended[c]) {
        continue; // nothing follows end-of-channel
      }
      if (op < 10) {
        sent[c] += random.nextInt(random.nextBoolean() ? 3 : 50) - (op == 0 ? 5 : 0);
        long w = sent[c];
        trace.append(" wm(").append(c).append(',').append(w).append(')');
        got = tracker.onWatermark(c, w);
        model.idle[c] = false;
        model.wm[c] = Math.max(model.wm[c], w);
      } else if (op < 14) {
        trace.append(" data(").append(c).append(')');
        tracker.onData(c);
        model.idle[c] = false;
        got = NONE;
        assertThat(tracker.combined()).as(trace.toString()).isEqualTo(model.combined);
        continue;
      } else if (op < 19) {
        trace.append(" idle(").append(c).append(')');
        got = tracker.onIdle(c);
        model.idle[c] = true;
      } else {
        trace.append(" end(").append(c).append(')');
        got = tracker.onEnd(c);
        model.ended[c] = true;
      }
      long expected = model.settle();
      assertThat(got).as(trace.toString()).isEqualTo(expected);
      assertThat(tracker.combined()).as(trace.toString()).isEqualTo(model.combined);
      assertThat(tracker.allIdle()).as(trace.toString()).isEqualTo(model.allIdle());
      assertThat(tracker.combined())
          .as("never regresses: " + trace)
          .isGreaterThanOrEqualTo(previous);
      previous = tracker.combined();
    }
  }
}
