package io.koala.bench.cli;

import io.koala.bench.BenchResult;
import io.koala.bench.BenchSettings;
import io.koala.bench.CheckpointBench;
import io.koala.bench.IngestBench;
import io.koala.bench.KafkaCountBench;
import io.koala.bench.KeyedCountBench;
import io.koala.bench.QueryBench;
import io.koala.bench.SnapshotBench;
import io.koala.bench.WindowCountBench;
import io.koala.bench.klt.KltBench;
import io.koala.bench.serve.ServeBench;
import io.koala.runtime.KoalaConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code koala bench WORKLOAD}: one benchmark run; with --json the last line is its JSON. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Runs a benchmark workload and prints its figures (last line JSON with --json).")
final class BenchCommand implements Callable<Integer> {

  @Parameters(
      index = "0",
      description =
          "Workload: ${COMPLETION-CANDIDATES} (klt: JMH microbenchmark of the key lookup table;"
              + " --seconds sets its warm-up and measured iterations, at most 10;"
              + " serve: JMH microbenchmark of a holder answering a fetch of 1,000 keys from LMDB"
              + " and serializing the reply, and of decoding it, iterations as for klt;"
              + " checkpoint-overhead: keyed-count with checkpoints off, then every"
              + " --checkpoint-interval-ms; checkpoint-restart: fills --keys keys of --state-bytes,"
              + " checkpoints, restarts the runtime on the same data directory and times the"
              + " resume; snapshot: writes the snapshot file of one LMDB store of --keys entries of"
              + " --state-bytes again and again for --seconds, then restores it once; ingest: 4"
              + " threads put random keys into an ingest source feeding a keyed count, --warmup"
              + " then --seconds measured, then --seconds more with a sink that sleeps 1 ms every"
              + " 10 records, sampling the heap; kafka-count: a broker in this process, a topic"
              + " preloaded with uniform keys over --keys, keyed count (LMDB) to a second topic"
              + " through an exactly-once Kafka sink, a checkpoint every --checkpoint-interval-ms;"
              + " query: a keyed count fed at --rate (default 50,000/s) over --keys while 2 threads"
              + " query random keys' counts, 32 reads in flight each; --warmup, then --seconds / 2"
              + " steady, then --seconds / 2 from a rescale to twice --parallelism)")
  Workload workload;

  @Option(names = "--seconds", defaultValue = "20", description = "Measured seconds (default 20).")
  int seconds;

  @Option(names = "--warmup", defaultValue = "5", description = "Warm-up seconds (default 5).")
  int warmup;

  @Option(names = "--parallelism", defaultValue = "2", description = "Parallelism (default 2).")
  int parallelism;

  @Option(names = "--workers", description = "Workers (default: the parallelism).")
  Integer workers;

  @Option(names = "--keys", defaultValue = "1000000", description = "Key space (default 1M).")
  long keys;

  @Option(
      names = "--state-bytes",
      defaultValue = "8",
      description = "Bytes of state per key (default 8: the count).")
  int stateBytes;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description = "Input records per second; 0: as fast as the dataflow reads (default).")
  double rate;

  @Option(
      names = "--separate-systems",
      description = "Each worker in its own ActorSystem over Artery TCP (default: one system).")
  boolean separate;

  @Option(names = "--seed", defaultValue = "42", description = "Generator seed (default 42).")
  long seed;

  @Option(
      names = "--events-per-second",
      defaultValue = "100000",
      description =
          "Event-time rate of generated events (window-count; default 100k/s: event time moves"
              + " 10 s per million events).")
  double eventsPerSecond;

  @Option(names = "--json", description = "Print the figures as one JSON line (the last line).")
  boolean json;

  @Option(
      names = "--checkpoint-interval-ms",
      defaultValue = "1000",
      description =
          "checkpoint-overhead, kafka-count: the checkpoint interval in ms (default"
              + " ${DEFAULT-VALUE}).")
  long checkpointIntervalMs;

  enum Workload {
    keyed_count,
    window_count,
    klt,
    serve,
    checkpoint_overhead,
    checkpoint_restart,
    snapshot,
    ingest,
    kafka_count,
    query;

    @Override
    public String toString() {
      return name().replace('_', '-');
    }
  }

  @Override
  public Integer call() throws Exception {
    BenchSettings settings =
        new BenchSettings(
            seconds,
            warmup,
            parallelism,
            workers == null ? parallelism : workers,
            keys,
            stateBytes,
            separate,
            rate,
            seed,
            eventsPerSecond);
    switch (workload) {
      case keyed_count -> print(KeyedCountBench.run(settings, KoalaConfig.load()));
      case window_count -> print(WindowCountBench.run(settings, KoalaConfig.load()));
      case checkpoint_overhead ->
          print(
              CheckpointBench.overhead(
                  settings, KoalaConfig.load(), java.time.Duration.ofMillis(checkpointIntervalMs)));
      case checkpoint_restart -> print(CheckpointBench.restart(settings, KoalaConfig.load()));
      case snapshot -> print(SnapshotBench.run(settings));
      case ingest -> print(IngestBench.run(settings, KoalaConfig.load()));
      case query -> print(QueryBench.run(settings, KoalaConfig.load()));
      case kafka_count ->
          print(
              KafkaCountBench.run(
                  settings, KoalaConfig.load(), java.time.Duration.ofMillis(checkpointIntervalMs)));
      case klt -> {
        // a JMH microbenchmark of the key lookup table: --seconds sets its iterations
        KltBench.Result r = KltBench.run(Math.max(1, Math.min(seconds, 10)));
        System.out.println(json ? r.toJson() : r.toText());
      }
      case serve -> {
        // a JMH microbenchmark of a holder's answer to a fetch: --seconds sets its iterations
        ServeBench.Result r = ServeBench.run(Math.max(1, Math.min(seconds, 10)));
        System.out.println(json ? r.toJson() : r.toText());
      }
    }
    return 0;
  }

  private void print(BenchResult result) {
    System.out.println(json ? result.toJson() : result.toText());
  }
}
