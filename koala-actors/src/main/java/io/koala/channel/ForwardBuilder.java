package io.koala.channel;

import io.koala.protocol.ForwardedBatch;

/** Accumulates the records a sender forwards on one peer channel, with their input edges. */
public final class ForwardBuilder {
  private final int maxRecords;
  private Object[] values;
  private long[] timestamps;
  private int[] edges;
  private int size;

  public ForwardBuilder(int maxRecords) {
    this.maxRecords = maxRecords;
    allocate();
  }

  /**
   * @return whether the batch is now full
   */
  public boolean add(Object value, long timestamp, int edge) {
    values[size] = value;
    timestamps[size] = timestamp;
    edges[size] = edge;
    size++;
    return size >= maxRecords;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  public ForwardedBatch take() {
    ForwardedBatch b = new ForwardedBatch(values, timestamps, edges, size);
    allocate();
    return b;
  }

  private void allocate() {
    values = new Object[maxRecords];
    timestamps = new long[maxRecords];
    edges = new int[maxRecords];
    size = 0;
  }
}
