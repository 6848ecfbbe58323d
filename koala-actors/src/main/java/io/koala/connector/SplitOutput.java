package io.koala.connector;

/** Where the records of one split go, with the split's event time. */
public interface SplitOutput<T> {
  /** Emits a record of event time {@code timestamp} ({@link Long#MIN_VALUE}: none). */
  void emit(T value, long timestamp);

  /**
   * A watermark the split's data carries: event time up to {@code watermark} is complete in this
   * split after the records emitted so far (combined with the source's {@code WatermarkStrategy}:
   * the split's watermark is the larger).
   */
  void watermark(long watermark);

  /** The split has no more records (a bounded split read to its end). */
  void end();
}
