package io.koala.connector;

import io.koala.eventtime.TimestampFunction;
import io.koala.function.DataflowDefinitionException;
import java.util.List;
import java.util.Objects;

/**
 * A bounded source over a list: element {@code i} belongs to partition {@code i mod partitions},
 * and everything is available immediately.
 */
public final class CollectionSource<T> implements LogSource<T> {
  private final String name;
  private final List<T> elements;
  private final int partitions;
  private final TimestampFunction<T> timestamps;

  CollectionSource(String name, List<T> elements, int partitions, TimestampFunction<T> timestamps) {
    this.name = Objects.requireNonNull(name, "name");
    this.elements = List.copyOf(elements);
    if (partitions < 1) {
      throw new DataflowDefinitionException(
          "source '" + name + "': partitions must be at least 1, got " + partitions);
    }
    this.partitions = partitions;
    this.timestamps = timestamps;
  }

  /** The same source split into {@code n} partitions. */
  public CollectionSource<T> partitions(int n) {
    return new CollectionSource<>(name, elements, n, timestamps);
  }

  /** The same source with event timestamps taken from the elements. */
  public CollectionSource<T> timestamps(TimestampFunction<T> fn) {
    return new CollectionSource<>(name, elements, partitions, Objects.requireNonNull(fn));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int partitions() {
    return partitions;
  }

  @Override
  public PartitionReader<T> open(int partition, long startMillis) {
    long size =
        elements.size() <= partition ? 0 : (elements.size() - partition - 1) / partitions + 1;
    return new PartitionReader<>() {
      @Override
      public long available(long nowMillis) {
        return size;
      }

      @Override
      public long end() {
        return size;
      }

      @Override
      public T read(long offset) {
        return elements.get((int) (offset * partitions + partition));
      }

      @Override
      public long timestamp(long offset, T value) {
        return timestamps == null ? Long.MIN_VALUE : timestamps.timestamp(value);
      }

      @Override
      public long availableAt(long offset) {
        return startMillis;
      }
    };
  }
}
