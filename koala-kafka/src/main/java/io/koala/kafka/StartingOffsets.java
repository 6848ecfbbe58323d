package io.koala.kafka;

/**
 * Where a {@link KafkaSource} starts reading a partition that no checkpoint has a position for: on
 * the job's first start, and for partitions found while it runs (those always from {@link
 * #EARLIEST}: they are new, and their first records were written after the discovery began).
 */
public enum StartingOffsets {
  /** The partition's first retained record. */
  EARLIEST,
  /** The partition's end when the reader starts: only records written afterwards. */
  LATEST,
  /**
   * The consumer group's committed offset ({@code group.id} must be set), or the earliest where the
   * group has none.
   */
  COMMITTED
}
