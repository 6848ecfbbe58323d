package io.koala.kafka;

/**
 * What a {@link KafkaFetcher} hands to its {@link KafkaReader} through the {@link Handoff}, in the
 * order it happened: per partition, an {@link Assigned} before its first {@link Batch}.
 */
sealed interface Fetched {

  /**
   * The fetcher reads {@code partition} from offset {@code start}; a bounded source ends it at
   * {@code end} ({@link Long#MAX_VALUE}: no end).
   */
  record Assigned(int partition, long start, long end) implements Fetched {}

  /** Every partition the reader had when it started is assigned (discovery may add more). */
  enum Ready implements Fetched {
    INSTANCE
  }

  /**
   * The records of one partition from one poll, deserialized: {@code size} values with their
   * timestamps and offsets; then the partition's position is {@code next} (past transaction markers
   * and aborted records too). When {@code failure} is set, the record after the {@code size} values
   * could not be deserialized: the reader emits them, then fails.
   */
  record Batch(
      int partition,
      Object[] values,
      long[] timestamps,
      long[] offsets,
      int size,
      long next,
      KafkaSourceException failure)
      implements Fetched {}

  /** The fetcher stopped on {@code error}; nothing follows. */
  record Failed(KafkaSourceException error) implements Fetched {}
}
