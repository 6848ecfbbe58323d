package io.koala.connector;

import java.util.List;

/**
 * A source: an input cut into splits (the partitions of a log, of a Kafka topic, ...), each read
 * from a position that the job's checkpoints keep. Each source task opens one {@link SourceReader},
 * which decides which splits it reads (for example those whose number modulo the parallelism is its
 * index) and may find new ones while it runs.
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
