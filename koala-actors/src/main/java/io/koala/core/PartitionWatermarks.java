package io.koala.core;

import io.koala.dataflow.WatermarkStrategy;

/**
 * The watermark of one source partition under a {@link WatermarkStrategy}: the largest timestamp
 * read minus the bound minus one, and idleness measured on the wall clock since the last record.
 * Pure: time is passed in.
 */
final class PartitionWatermarks {
  private final WatermarkStrategy strategy;
  private long maxTimestamp = Long.MIN_VALUE;
  private long lastRecordAt;

  PartitionWatermarks(WatermarkStrategy strategy, long nowMillis) {
    this.strategy = strategy;
    this.lastRecordAt = nowMillis;
  }

  void onRecord(long timestamp, long nowMillis) {
    if (timestamp > maxTimestamp) {
      maxTimestamp = timestamp;
    }
    lastRecordAt = nowMillis;
  }

  /** The partition's watermark, or {@link WatermarkTracker#NONE} before its first record. */
  long watermark() {
    if (maxTimestamp == Long.MIN_VALUE) {
      return WatermarkTracker.NONE;
    }
    long w = maxTimestamp - strategy.maxDelayMillis() - 1;
    // near Long.MIN_VALUE the subtraction wraps around: nothing is complete yet
    return w > maxTimestamp ? WatermarkTracker.NONE : w;
  }

  boolean idle(long nowMillis) {
    return nowMillis - lastRecordAt >= strategy.idlenessMillis();
  }
}
