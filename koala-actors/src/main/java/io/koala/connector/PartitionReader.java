package io.koala.connector;

import io.koala.eventtime.WatermarkStrategy;

/**
 * Reads one partition of a replayable log. Record {@code n} of a partition is always the same
 * record, so a source can restart from any offset. Called by one task thread at a time.
 */
public interface PartitionReader<T> {

  /**
   * Offsets {@code [0, available)} can be read at wall-clock time {@code nowMillis}. Never
   * decreases and never exceeds {@link #end()}; grows with time independently of how fast the
   * dataflow reads, which is what makes lag measurable.
   */
  long available(long nowMillis);

  /** One past the last offset of a bounded partition, or {@link Long#MAX_VALUE}. */
  long end();

  /** The record at {@code offset}; only called for offsets below {@link #available}. */
  T read(long offset) throws Exception;

  /** The event timestamp of the record at {@code offset}, in milliseconds. */
  long timestamp(long offset, T value);

  /**
   * Wall-clock millis at which {@code offset} became (or becomes) available; for lag in seconds.
   */
  long availableAt(long offset);

  /**
   * A watermark the log itself carries: event time up to which the partition is complete once the
   * offsets below {@code offset} have been read, or {@link Long#MIN_VALUE} (the default) when the
   * log carries none. Never decreases with {@code offset}. A source emits such a watermark as soon
   * as it has read up to it, whatever its {@link WatermarkStrategy} (a strategy's watermark is
   * combined with it: the partition's watermark is the larger of the two). Test inputs declare
   * watermarks this way.
   */
  default long watermark(long offset) {
    return Long.MIN_VALUE;
  }
}
