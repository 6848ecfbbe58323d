package io.koala.protocol;

import java.util.Objects;

/**
 * Records a sender forwards to a receiver on a peer channel (DESIGN §6.1): records of buckets it
 * handed over that reached it on the old routing, each with the input edge it arrived on. Immutable
 * by contract, like {@link RecordBatch}.
 */
public final class ForwardedBatch implements ChannelItem {
  private final Object[] values;
  private final long[] timestamps;
  private final int[] edges;
  private final int size;

  /** Takes ownership of the arrays; only the first {@code size} elements are part of the batch. */
  public ForwardedBatch(Object[] values, long[] timestamps, int[] edges, int size) {
    this.values = Objects.requireNonNull(values);
    this.timestamps = Objects.requireNonNull(timestamps);
    this.edges = Objects.requireNonNull(edges);
    if (size < 0 || size > values.length || size > timestamps.length || size > edges.length) {
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

  /** The input edge record {@code i} arrived on at the sender. */
  public int edge(int i) {
    Objects.checkIndex(i, size);
    return edges[i];
  }

  @Override
  public String toString() {
    return "ForwardedBatch(" + size + " records)";
  }
}
