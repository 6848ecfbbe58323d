package io.koala.connector;

/**
 * A source over a replayable log cut into numbered partitions: record {@code n} of a partition
 * never changes, so a partition's position is the offset of its next record. Source task {@code t}
 * of {@code p} reads the partitions whose number modulo {@code p} is {@code t}; split {@code "3"}
 * is partition 3. The collection and generator sources are logs.
 */
public interface LogSource<T> extends SourceSpec<T> {

  /** Number of partitions; at least 1. */
  int partitions();

  /**
   * Opens one partition.
   *
   * @param startMillis the job's start time, the origin of rate schedules
   */
  PartitionReader<T> open(int partition, long startMillis);

  /** As many tasks as partitions can read something. */
  @Override
  default int maxParallelism() {
    return partitions();
  }

  /** A log can be rescaled live: its partitions move between tasks with their offsets. */
  @Override
  default boolean rescalable() {
    return true;
  }

  /**
   * Partition {@code n} (split {@code "n"}) is read by the task at slot {@code n % parallelism}.
   */
  @Override
  default int slotOf(String split, int parallelism) {
    return Integer.parseInt(split) % parallelism;
  }

  @Override
  default SourceReader<T> createReader(SourceContext ctx) {
    return new LogReader<>(this, ctx);
  }
}
