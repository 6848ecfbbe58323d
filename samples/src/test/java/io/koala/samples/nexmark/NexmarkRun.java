package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs one Nexmark query on the embedded runtime over a bounded generated input (two source
 * partitions, parallelism 2, event time from the events) and collects its output; {@link #events}
 * is the same input for the plain-Java reference.
 */
final class NexmarkRun {
  /** Events per second of event time in the tests: 20,000 events span 40 s. */
  static final double RATE = 500;

  /** Events of a test input. */
  static final long EVENTS = 20_000;

  private NexmarkRun() {}

  /**
   * A seed for a randomized test, printed so that a failure can be replayed: {@code
   * -Dnexmark.seed=S} gives every test the seed {@code S}.
   */
  static long seed(String test) {
    long seed = Long.getLong("nexmark.seed", System.nanoTime());
    System.out.println(test + " seed: " + seed);
    return seed;
  }

  /** The test generator for {@code seed}. */
  static NexmarkGenerator generator(long seed) {
    return new NexmarkGenerator(seed, 1_000_000, RATE);
  }

  /** Events {@code 0 .. n-1} of {@code gen}, in index order. */
  static List<NexmarkEvent> events(NexmarkGenerator gen, long n) {
    List<NexmarkEvent> out = new ArrayList<>();
    for (long e = 0; e < n; e++) {
      out.add(gen.event(e));
    }
    return out;
  }

  /** Runs {@code query} over {@link #EVENTS} events of {@code gen}, in order per partition. */
  static <T> List<T> run(
      NexmarkGenerator gen,
      long seed,
      Consumer<DataflowBuilder> registerTypes,
      Function<Stage<NexmarkEvent>, Stage<T>> query) {
    return run(gen, seed, EVENTS, WatermarkStrategy.monotonousTimestamps(), registerTypes, query);
  }

  /** Runs {@code query} over {@code events} in list order, without event time. */
  static <T> List<T> runInOrder(
      List<NexmarkEvent> events,
      Consumer<DataflowBuilder> registerTypes,
      Function<Stage<NexmarkEvent>, Stage<T>> query) {
    DataflowBuilder b = Dataflow.builder("nexmark-test").parallelism(2);
    Nexmark.registerTypes(b);
    registerTypes.accept(b);
    query.apply(b.source(SourceSpec.collection("events", events))).sink(SinkSpec.collecting("out"));
    return runAndCollect(b);
  }

  /** Runs {@code query} over {@code n} events of {@code gen} with {@code watermarks}. */
  static <T> List<T> run(
      NexmarkGenerator gen,
      long seed,
      long n,
      WatermarkStrategy watermarks,
      Consumer<DataflowBuilder> registerTypes,
      Function<Stage<NexmarkEvent>, Stage<T>> query) {
    DataflowBuilder b = Dataflow.builder("nexmark-test").parallelism(2);
    Nexmark.registerTypes(b);
    registerTypes.accept(b);
    Stage<NexmarkEvent> events =
        b.source(
            SourceSpec.generator("events", gen)
                .partitions(2)
                .count(n)
                .seed(seed)
                .eventTime(NexmarkEvent::dateTime),
            watermarks);
    query.apply(events).sink(SinkSpec.collecting("out"));
    return runAndCollect(b);
  }

  private static <T> List<T> runAndCollect(DataflowBuilder b) {
    try (KoalaRuntime runtime = KoalaRuntime.embedded()) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      return job.collected("out");
    }
  }
}
