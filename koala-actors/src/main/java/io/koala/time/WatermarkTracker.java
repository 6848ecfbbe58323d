package io.koala.time;

import java.util.Arrays;

/**
 * Combines the watermarks of a task's input channels (DESIGN §4.5): the task's watermark is the
 * minimum over its active channels; a channel that has not delivered a watermark yet holds
 * progress; an idle channel is left out until it delivers data again; an ended channel is left out
 * for good. The combined watermark never goes backwards. Pure; channels are numbered 0..n-1.
 */
public final class WatermarkTracker {
  /** No watermark yet. */
  public static final long NONE = Long.MIN_VALUE;

  private long[] watermarks;
  private boolean[] idle;
  private boolean[] ended;
  private long combined = NONE;

  public WatermarkTracker(int channels) {
    watermarks = new long[channels];
    Arrays.fill(watermarks, NONE);
    idle = new boolean[channels];
    ended = new boolean[channels];
  }

  /**
   * Adds a channel (a new upstream, or a peer channel during a reconfiguration): until it delivers
   * a watermark or goes idle, it holds the combined watermark where it is.
   *
   * @return the new channel's number
   */
  public int addChannel() {
    int c = watermarks.length;
    watermarks = Arrays.copyOf(watermarks, c + 1);
    watermarks[c] = NONE;
    idle = Arrays.copyOf(idle, c + 1);
    ended = Arrays.copyOf(ended, c + 1);
    return c;
  }

  /** The current combined watermark ({@link #NONE} before any progress). */
  public long combined() {
    return combined;
  }

  /**
   * A watermark arrived on {@code channel} (which is active again if it was idle).
   *
   * @return the new combined watermark if it advanced, else {@link #NONE}
   */
  public long onWatermark(int channel, long timestamp) {
    idle[channel] = false;
    if (timestamp > watermarks[channel]) {
      watermarks[channel] = timestamp;
    }
    return recompute();
  }

  /** Data arrived on {@code channel}: it is active again. */
  public void onData(int channel) {
    idle[channel] = false;
  }

  /**
   * {@code channel} went idle.
   *
   * @return the new combined watermark if it advanced, else {@link #NONE}
   */
  public long onIdle(int channel) {
    idle[channel] = true;
    return recompute();
  }

  /**
   * {@code channel} ended.
   *
   * @return the new combined watermark if it advanced, else {@link #NONE}
   */
  public long onEnd(int channel) {
    ended[channel] = true;
    return recompute();
  }

  /**
   * Sets the state of several channels at one instant, then recomputes once, so that which channel
   * is visited first cannot advance the watermark. {@code watermarks[c]} is ignored for idle or
   * ended channels, and {@link #NONE} leaves a channel's watermark as it was.
   *
   * @return the new combined watermark if it advanced, else {@link #NONE}
   */
  public long update(long[] channelWatermarks, boolean[] channelIdle) {
    for (int c = 0; c < watermarks.length; c++) {
      if (ended[c]) {
        continue;
      }
      idle[c] = channelIdle[c];
      if (!channelIdle[c] && channelWatermarks[c] > watermarks[c]) {
        watermarks[c] = channelWatermarks[c];
      }
    }
    return recompute();
  }

  /** Whether every channel that has not ended is idle (and at least one has not ended). */
  public boolean allIdle() {
    boolean any = false;
    for (int c = 0; c < watermarks.length; c++) {
      if (!ended[c]) {
        if (!idle[c]) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  private long recompute() {
    long min = Long.MAX_VALUE;
    boolean active = false;
    boolean allEnded = true;
    for (int c = 0; c < watermarks.length; c++) {
      if (ended[c]) {
        continue;
      }
      allEnded = false;
      if (idle[c]) {
        continue;
      }
      active = true;
      min = Math.min(min, watermarks[c]);
    }
    long candidate;
    if (allEnded) {
      candidate = Long.MAX_VALUE;
    } else if (!active) {
      return NONE; // every open channel is idle: no progress, no regression
    } else {
      candidate = min;
    }
    if (candidate > combined) {
      combined = candidate;
      return combined;
    }
    return NONE;
  }
}
