package io.koala.testkit;

import io.koala.connector.LogSource;
import io.koala.connector.PartitionReader;
import io.koala.eventtime.WatermarkStrategy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The log behind a {@link TestInput}: what a test driver appended to one source, in place of what
 * the source's own spec would read. Every record goes to partition 0, so the records of a key reach
 * it in the order they were appended; the other partitions (one per further task of a parallel
 * source) stay empty and carry only watermarks. Watermarks are declared on the log ({@link
 * PartitionReader#watermark}): explicit ones, and, if the source has a {@link WatermarkStrategy},
 * the strategy's after each record, so that the source emits them as soon as it reads up to them.
 * Used by one thread, the driver's.
 */
final class FedSource implements LogSource<Object> {
  private final String name;
  private final int partitions;
  private final WatermarkStrategy strategy;
  private final List<Object> records = new ArrayList<>();
  private long[] timestamps = new long[16];
  private long[] appendedAt = new long[16];
  private long[] declaredAt = new long[4]; // record count when each watermark was declared
  private long[] declared = new long[4]; // ascending
  private int declarations;
  private long maxTimestamp = Long.MIN_VALUE;
  private boolean ended;

  FedSource(String name, int partitions, WatermarkStrategy strategy) {
    this.name = name;
    this.partitions = partitions;
    this.strategy = strategy;
  }

  void append(Object value, long timestamp, long nowMillis) {
    if (ended) {
      throw new IllegalStateException("input '" + name + "' has ended");
    }
    int n = records.size();
    if (n == timestamps.length) {
      timestamps = Arrays.copyOf(timestamps, 2 * n);
      appendedAt = Arrays.copyOf(appendedAt, 2 * n);
    }
    records.add(value);
    timestamps[n] = timestamp;
    appendedAt[n] = nowMillis;
    if (timestamp > maxTimestamp) {
      maxTimestamp = timestamp;
      long w = maxTimestamp - strategy.maxDelayMillis() - 1;
      if (strategy.enabled() && w < maxTimestamp) { // no wrap-around near Long.MIN_VALUE
        declare(w);
      }
    }
  }

  /** Declares that event time up to {@code watermark} is complete after the records so far. */
  void declare(long watermark) {
    if (ended) {
      throw new IllegalStateException("input '" + name + "' has ended");
    }
    if (declarations > 0 && watermark <= declared[declarations - 1]) {
      return;
    }
    if (declarations == declared.length) {
      declared = Arrays.copyOf(declared, 2 * declarations);
      declaredAt = Arrays.copyOf(declaredAt, 2 * declarations);
    }
    declared[declarations] = watermark;
    declaredAt[declarations] = records.size();
    declarations++;
  }

  void end() {
    ended = true;
  }

  boolean ended() {
    return ended;
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
  public PartitionReader<Object> open(int partition, long startMillis) {
    boolean first = partition == 0;
    return new PartitionReader<>() {
      @Override
      public long available(long nowMillis) {
        return first ? records.size() : 0;
      }

      @Override
      public long end() {
        return ended ? available(0) : Long.MAX_VALUE;
      }

      @Override
      public Object read(long offset) {
        return records.get((int) offset);
      }

      @Override
      public long timestamp(long offset, Object value) {
        return timestamps[(int) offset];
      }

      @Override
      public long availableAt(long offset) {
        return offset < available(0) ? appendedAt[(int) offset] : Long.MAX_VALUE;
      }

      @Override
      public long watermark(long offset) {
        int lo = 0; // the declarations before lo were made after at most offset records
        int hi = declarations;
        while (first && lo < hi) {
          int mid = (lo + hi) >>> 1;
          if (declaredAt[mid] <= offset) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        int last = first ? lo - 1 : declarations - 1;
        return last < 0 ? Long.MIN_VALUE : declared[last];
      }
    };
  }
}
