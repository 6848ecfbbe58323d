package io.koala.connector;

import java.util.List;

/**
 * A source: an input cut into splits (the partitions of a log, of a Kafka topic, ...), each read
 * from a position that the job's checkpoints keep. Each source task opens one {@link SourceReader},
 * which decides which splits it reads (for example those whose number modulo the parallelism is its
 * index) and may find new ones while it runs.
 *
 * <p>A source whose readers choose their splits by {@link #slotOf} can be rescaled and its tasks
 * moved while the job runs ({@link #rescalable}): each split then moves, with its position, to the
 * task that reads it under the new parallelism.
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

  /**
   * The most tasks that can have something to read: a dataflow's default parallelism for the source
   * is capped by it, and a larger explicit one is refused at {@code build()}. Unbounded ({@link
   * Integer#MAX_VALUE}) when it is only known at run time.
   */
  default int maxParallelism() {
    return Integer.MAX_VALUE;
  }

  /**
   * Whether the job may change this source's tasks while it runs: its readers read exactly the
   * splits {@link #slotOf} gives their task ({@link SourceContext#taskIndex}), and start each split
   * they are given a position for from that position. False by default: the source keeps the
   * parallelism it was deployed with.
   */
  default boolean rescalable() {
    return false;
  }

  /**
   * The slot, {@code 0 <= slot < parallelism}, of the task that reads split {@code split} when the
   * source has {@code parallelism} tasks: the task whose {@link SourceContext#taskIndex} it is.
   * Only asked of a {@link #rescalable} source, for the splits its readers reported positions for.
   *
   * @throws UnsupportedOperationException when the source is not rescalable
   */
  default int slotOf(String split, int parallelism) {
    throw new UnsupportedOperationException(
        "source '" + name() + "' does not say which task reads split '" + split + "'");
  }

  /** Opens the reader of one source task; called on the task's thread. */
  SourceReader<T> createReader(SourceContext ctx) throws Exception;

  /** A bounded source over a list, split round-robin into {@code partitions} partitions. */
  static <T> CollectionSource<T> collection(String name, List<T> elements) {
    return new CollectionSource<>(name, elements, 1, null);
  }

  /**
   * A source the service pushes records into ({@code JobHandle.ingest(source)}), holding at most
   * {@code capacity} records it may still have to deliver: see {@link IngestSource}.
   */
  static <T> IngestSource<T> ingest(String name, int capacity) {
    return new IngestSource<>(name, capacity, Math.min(capacity, 4096), null);
  }

  /** A generator source: record {@code i} is {@code generator.generate(i, seed)}. */
  static <T> GeneratorSource<T> generator(String name, GeneratorFunction<T> generator) {
    return GeneratorSource.of(name, generator);
  }
}
