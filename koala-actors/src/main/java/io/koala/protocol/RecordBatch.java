package io.koala.protocol;

import java.util.Objects;

/**
 * A batch of records: values and event timestamps. Immutable by contract: the arrays are handed
 * over by the batch builder and never written again (hot path: no defensive copies).
 */
public final class RecordBatch implements ChannelItem {
  private final Object[] values;
  private final long[] timestamps;
  private final int size;

  /** Takes ownership of the arrays; only the first {@code size} elements are part of the batch. */
  public RecordBatch(Object[] values, long[] timestamps, int size) {
    this.values = Objects.requireNonNull(values);
    this.timestamps = Objects.requireNonNull(timestamps);
    if (size < 0 || size > values.length || size > timestamps.length) {
      throw new IllegalArgumentException("batch size " + size + " exceeds its arrays");
    }
    this.size = size;
  }

  public int size() {
    return size;
  }

  public Object value(int i) {
    Objects.checkIndex(i, size);
    return values[i];
  }

  public long timestamp(int i) {
    Objects.checkIndex(i, size);
    return timestamps[i];
  }

  @Override
  public String toString() {
    return "RecordBatch(" + size + " records)";
  }
}
