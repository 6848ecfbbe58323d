package io.koala.samples.recovery;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Run by {@link KillNineRecoveryIT} in a child JVM: a bounded keyed running count with checkpoints
 * every {@code interval} ms into an exactly-once {@link SinkSpec#jsonLines} sink. Arguments: data
 * dir, output dir, records, records per second, keys, seed, checkpoint interval in ms. Waits for
 * the job to finish, prints {@code finished records-in=<n>} (the records the count operator took in
 * this process) and exits 0; a run on a data dir where the job has checkpoints resumes from the
 * latest one.
 */
public final class KillNineMain {
  static final String NAME = "kill-nine";
  static final String JOB_ID = NAME + "-1"; // the first submission of the name on a runtime
  static final String SINK = "counts";

  private KillNineMain() {}

  /** The key of record {@code i}: a seeded mix of the index, in {@code [0, keys)}. */
  static long key(long i, long seed, int keys) {
    long z = (i + seed) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
    return Math.floorMod(z ^ (z >>> 29), keys);
  }

  static Dataflow dataflow(Path out, long records, double rate, int keys, long seed) {
    DataflowBuilder b = Dataflow.builder(NAME).parallelism(2);
    b.source(
            SourceSpec.generator("gen", (i, s) -> key(i, s, keys))
                .partitions(2)
                .count(records)
                .seed(seed)
                .rate(RateSchedule.constant(rate)))
        .keyBy(k -> k)
        .count("count")
        .sink(SinkSpec.jsonLines(SINK, out));
    return b.build();
  }

  public static void main(String[] args) throws Exception {
    Path data = Path.of(args[0]);
    Path out = Path.of(args[1]);
    long records = Long.parseLong(args[2]);
    double rate = Double.parseDouble(args[3]);
    int keys = Integer.parseInt(args[4]);
    long seed = Long.parseLong(args[5]);
    Duration interval = Duration.ofMillis(Long.parseLong(args[6]));
    KoalaConfig config =
        KoalaConfig.load()
            .with("pekko.actor.serialize-messages", "on")
            .withWorkers(2)
            .withDataDir(data)
            .withCheckpointInterval(interval)
            .withRestartBackoff(Duration.ofMillis(100));
    long t0 = System.nanoTime();
    try {
      run(config, dataflow(out, records, rate, keys, seed), t0);
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0); // not waiting for any non-daemon thread a library left behind
  }

  private static void run(KoalaConfig config, Dataflow dataflow, long t0) throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow);
      System.out.println("submitted " + job.id());
      JobStatus status = job.await(Duration.ofMinutes(3));
      if (status != JobStatus.FINISHED) {
        throw new IllegalStateException("job ended " + status);
      }
      System.out.printf(
          "finished records-in=%d in %d ms%n",
          job.metrics().recordsIn("count"), (System.nanoTime() - t0) / 1_000_000);
    }
  }
}
