package io.koala.dataflow;

/**
 * Reads one partition of a replayable log (DESIGN §4.3). Record {@code n} of a partition is always
 * the same record, so a source can restart from any offset. Called by one task thread at a time.
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
}
