package io.koala.connector;

import io.koala.eventtime.TimestampFunction;
import io.koala.function.DataflowDefinitionException;
import java.util.Objects;

/**
 * A generated replayable log: record {@code i} (a global index) is {@code generator.generate(i,
 * seed)}; partition {@code p} of {@code P} holds the indices {@code i ≡ p (mod P)}. Records become
 * available with wall-clock time following a {@link RateSchedule}, whatever the dataflow's speed,
 * so lag is measurable. By default a record's event time is the wall-clock time at which it became
 * available. Immutable; every setter returns a copy.
 */
public final class GeneratorSource<T> implements LogSource<T> {
  private final String name;
  private final GeneratorFunction<T> generator;
  private final int partitions;
  private final RateSchedule rate;
  private final long count;
  private final long seed;
  private final TimestampFunction<T> timestamps;

  private GeneratorSource(
      String name,
      GeneratorFunction<T> generator,
      int partitions,
      RateSchedule rate,
      long count,
      long seed,
      TimestampFunction<T> timestamps) {
    this.name = Objects.requireNonNull(name, "name");
    this.generator = Objects.requireNonNull(generator, "generator");
    if (partitions < 1) {
      throw new DataflowDefinitionException(
          "source '" + name + "': partitions must be at least 1, got " + partitions);
    }
    if (count < 0) {
      throw new DataflowDefinitionException(
          "source '" + name + "': count must not be negative, got " + count);
    }
    this.partitions = partitions;
    this.rate = Objects.requireNonNull(rate, "rate");
    this.count = count;
    this.seed = seed;
    this.timestamps = timestamps;
  }

  static <T> GeneratorSource<T> of(String name, GeneratorFunction<T> generator) {
    return new GeneratorSource<>(
        name, generator, 1, RateSchedule.unlimited(), Long.MAX_VALUE, 0L, null);
  }

  public GeneratorSource<T> partitions(int n) {
    return new GeneratorSource<>(name, generator, n, rate, count, seed, timestamps);
  }

  public GeneratorSource<T> rate(RateSchedule schedule) {
    return new GeneratorSource<>(name, generator, partitions, schedule, count, seed, timestamps);
  }

  /** Bounds the log to {@code total} records (all partitions); unbounded by default. */
  public GeneratorSource<T> count(long total) {
    return new GeneratorSource<>(name, generator, partitions, rate, total, seed, timestamps);
  }

  public GeneratorSource<T> seed(long s) {
    return new GeneratorSource<>(name, generator, partitions, rate, count, s, timestamps);
  }

  /** Takes event timestamps from the records instead of their availability time. */
  public GeneratorSource<T> eventTime(TimestampFunction<T> fn) {
    return new GeneratorSource<>(
        name, generator, partitions, rate, count, seed, Objects.requireNonNull(fn));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int partitions() {
    return partitions;
  }

  /** The rate schedule. */
  public RateSchedule rate() {
    return rate;
  }

  @Override
  public PartitionReader<T> open(int partition, long startMillis) {
    if (partition < 0 || partition >= partitions) {
      throw new IllegalArgumentException(
          "partition " + partition + " outside [0, " + partitions + ") of source " + name);
    }
    long end = count == Long.MAX_VALUE ? Long.MAX_VALUE : offsetsBelow(count, partition);
    return new PartitionReader<>() {
      @Override
      public long available(long nowMillis) {
        long total = Math.min(count, rate.available(nowMillis - startMillis));
        return total == Long.MAX_VALUE ? end : offsetsBelow(total, partition);
      }

      @Override
      public long end() {
        return end;
      }

      @Override
      public T read(long offset) {
        return generator.generate(indexOf(offset), seed);
      }

      @Override
      public long timestamp(long offset, T value) {
        return timestamps == null ? availableAt(offset) : timestamps.timestamp(value);
      }

      @Override
      public long availableAt(long offset) {
        return startMillis + rate.availableAt(indexOf(offset) + 1);
      }

      private long indexOf(long offset) {
        return offset * partitions + partition;
      }
    };
  }

  /** Number of offsets of {@code partition} whose global index is below {@code total}. */
  private long offsetsBelow(long total, int partition) {
    return total <= partition ? 0 : (total - partition - 1) / partitions + 1;
  }
}
