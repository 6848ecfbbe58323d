package io.koala.time;

import io.koala.eventtime.WatermarkStrategy;

/**
 * The watermark of one source partition under a {@link WatermarkStrategy}: the largest timestamp
 * read minus the bound minus one, and idleness measured on the wall clock since the last record.
 * Pure: time is passed in.
 */
public final class PartitionWatermarks {
  private final WatermarkStrategy strategy;
  private long maxTimestamp = Long.MIN_VALUE;
  private long lastRecordAt;
  private long declared = WatermarkTracker.NONE;

  public PartitionWatermarks(WatermarkStrategy strategy, long nowMillis) {
    this.strategy = strategy;
    this.lastRecordAt = nowMillis;
  }

  public void onRecord(long timestamp, long nowMillis) {
    if (timestamp > maxTimestamp) {
      maxTimestamp = timestamp;
    }
    lastRecordAt = nowMillis;
  }

  /**
   * A watermark the partition's log declares ({@link
   * io.koala.connector.PartitionReader#watermark}); returns whether it raised the declared one.
   */
  public boolean declare(long watermark) {
    if (watermark > declared) {
      declared = watermark;
      return true;
    }
    return false;
  }

  /**
   * The partition's watermark: the larger of the strategy's (the largest timestamp read minus the
   * bound minus one, if the strategy is enabled) and the declared one, or {@link
   * WatermarkTracker#NONE} while there is neither.
   */
  public long watermark() {
    if (maxTimestamp == Long.MIN_VALUE || !strategy.enabled()) {
      return declared;
    }
    long w = maxTimestamp - strategy.maxDelayMillis() - 1;
    // near Long.MIN_VALUE the subtraction wraps around: nothing is complete yet
    return Math.max(declared, w > maxTimestamp ? WatermarkTracker.NONE : w);
  }

  public boolean idle(long nowMillis) {
    return nowMillis - lastRecordAt >= strategy.idlenessMillis();
  }
}
