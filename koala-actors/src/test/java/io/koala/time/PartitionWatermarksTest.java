package io.koala.time;

import static io.koala.time.WatermarkTracker.NONE;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.eventtime.WatermarkStrategy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** One source partition's watermark: largest timestamp − bound − 1, and wall-clock idleness. */
class PartitionWatermarksTest {
  private static final WatermarkStrategy BOUNDED_5 =
      WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(5));

  @Test
  void noWatermarkBeforeTheFirstRecord() {
    PartitionWatermarks p = new PartitionWatermarks(BOUNDED_5, 1_000);
    assertThat(p.watermark()).isEqualTo(NONE);
  }

  @Test
  void theWatermarkTrailsTheLargestTimestampByTheBoundPlusOne() {
    PartitionWatermarks p = new PartitionWatermarks(BOUNDED_5, 0);
    p.onRecord(10, 0);
    assertThat(p.watermark()).isEqualTo(4);
    p.onRecord(50, 1);
    assertThat(p.watermark()).isEqualTo(44);
    p.onRecord(30, 2); // out of order, within the bound: the watermark stays
    assertThat(p.watermark()).isEqualTo(44);
    p.onRecord(51, 3);
    assertThat(p.watermark()).isEqualTo(45);
  }

  @Test
  void monotonousTimestampsTrailByOne() {
    PartitionWatermarks p = new PartitionWatermarks(WatermarkStrategy.monotonousTimestamps(), 0);
    p.onRecord(100, 0);
    assertThat(p.watermark())
        .as("another record at 100 may still come; nothing after 99 is complete")
        .isEqualTo(99);
  }

  @Test
  void negativeTimestampsWork() {
    PartitionWatermarks p = new PartitionWatermarks(BOUNDED_5, 0);
    p.onRecord(-100, 0);
    assertThat(p.watermark()).isEqualTo(-106);
    p.onRecord(-1, 0);
    assertThat(p.watermark()).isEqualTo(-7);
  }

  @Test
  void aPartitionIsIdleAfterTheTimeoutWithoutRecordsCountedFromItsOpening() {
    WatermarkStrategy s = BOUNDED_5.withIdleness(Duration.ofMillis(100));
    PartitionWatermarks p = new PartitionWatermarks(s, 1_000);
    assertThat(p.idle(1_000)).isFalse();
    assertThat(p.idle(1_099)).isFalse();
    assertThat(p.idle(1_100)).as("never produced: idle once the timeout has passed").isTrue();

    p.onRecord(7, 1_200);
    assertThat(p.idle(1_200)).isFalse();
    assertThat(p.idle(1_299)).isFalse();
    assertThat(p.idle(1_300)).isTrue();
    assertThat(p.watermark()).as("idleness does not change the watermark").isEqualTo(1);
  }

  @Test
  void idlenessIsMeasuredOnTheWallClockNotOnEventTime() {
    WatermarkStrategy s = BOUNDED_5.withIdleness(Duration.ofMillis(100));
    PartitionWatermarks p = new PartitionWatermarks(s, 0);
    p.onRecord(1_000_000, 50); // event time far ahead of the wall clock
    assertThat(p.idle(149)).isFalse();
    assertThat(p.idle(150)).isTrue();
  }

  @Test
  void withoutIdlenessAPartitionNeverIdles() {
    PartitionWatermarks p = new PartitionWatermarks(BOUNDED_5, 0);
    assertThat(p.idle(Long.MAX_VALUE - 1)).isFalse();
    assertThat(BOUNDED_5.idlenessMillis()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aTimestampNearLongMinDoesNotWrapTheWatermarkAround() {
    PartitionWatermarks p = new PartitionWatermarks(BOUNDED_5, 0);
    p.onRecord(Long.MIN_VALUE + 3, 0);
    // Nothing is complete yet; a watermark of ~Long.MAX_VALUE would fire every timer downstream.
    assertThat(p.watermark()).isLessThanOrEqualTo(Long.MIN_VALUE + 3);

    PartitionWatermarks huge =
        new PartitionWatermarks(
            WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(Long.MAX_VALUE)), 0);
    huge.onRecord(-5, 0);
    assertThat(huge.watermark()).isLessThanOrEqualTo(-5);
  }
}
