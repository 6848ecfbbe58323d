package io.koala.connector;

import java.util.List;

/**
 * A source: a replayable log split into partitions. Each source task reads the partitions {@code p}
 * with {@code p mod parallelism == taskIndex}.
 *
 * <pre>{@code
 * SourceSpec<Long> numbers = SourceSpec.generator("numbers", (index, seed) -> index)
 *     .partitions(4)
 *     .rate(RateSchedule.constant(10_000))
 *     .count(1_000_000);
 * }</pre>
 */
public interface SourceSpec<T> {

  /** The source operator's name. */
  String name();

  /** Number of partitions; at least 1. */
  int partitions();

  /**
   * Opens one partition.
   *
   * @param startMillis the job's start time, the origin of rate schedules
   */
  PartitionReader<T> open(int partition, long startMillis);

  /** A bounded source over a list, split round-robin into {@code partitions} partitions. */
  static <T> CollectionSource<T> collection(String name, List<T> elements) {
    return new CollectionSource<>(name, elements, 1, null);
  }

  /** A generator source: record {@code i} is {@code generator.generate(i, seed)}. */
  static <T> GeneratorSource<T> generator(String name, GeneratorFunction<T> generator) {
    return GeneratorSource.of(name, generator);
  }
}
