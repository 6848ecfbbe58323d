package io.koala.bench.cli;

import io.koala.bench.Directories;
import io.koala.bench.soak.SoakExperiment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code koala experiment soak}: see {@link SoakExperiment}. */
@Command(
    name = "soak",
    mixinStandardHelpOptions = true,
    description = {
      "Runs a checkpointed keyed count with Kafka in and exactly-once Kafka out on 3 koala node"
          + " processes for MINUTES, a broker in this process. Every step (2 minutes) a rescale,"
          + " a migration, a task crash or a SIGKILLed node (replaced), in turn; the first crash's"
          + " restore finds a snapshot missing for a while, and the second crash's turn is a task"
          + " that hangs until its checkpoint times out. The committed output (read_committed) is"
          + " checked: every record counted once. With --json the last line is JSON. The exit code"
          + " is 0 when"
          + " nothing was lost, duplicated or deleted, the heap after GC in the last minute is at"
          + " most 1.2x the first minute's and no metrics reply exceeds 256 KiB."
    })
final class SoakCommand implements Callable<Integer> {
  @Option(names = "--minutes", defaultValue = "30", description = "Duration (default 30).")
  double minutes;

  @Option(
      names = "--step-seconds",
      defaultValue = "120",
      description = "Seconds between faults (default 120).")
  int stepSeconds;

  @Option(names = "--rate", defaultValue = "2000", description = "Input records/s (default 2000).")
  double rate;

  @Option(names = "--keys", defaultValue = "10000", description = "Keys (default 10000).")
  int keys;

  @Option(
      names = "--out",
      description = "Working directory, deleted at the end unless --keep (default koala-soak).")
  Path out;

  @Option(names = "--keep", description = "Keeps the working directory (logs, checkpoints).")
  boolean keep;

  @Option(names = "--json", description = "Prints the figures as a JSON line, last.")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    Duration step = Duration.ofSeconds(stepSeconds);
    SoakExperiment.Settings s =
        Experiments.checked(
            spec, () -> SoakExperiment.Settings.defaults(minutes).with(step, rate, keys));
    Path dir = out != null ? out : Path.of("koala-soak");
    SoakExperiment.Result r =
        SoakExperiment.run(s, dir, line -> System.err.println("soak: " + line));
    if (!keep && r.targetsMet()) {
      Directories.delete(dir);
    } else {
      System.err.println("soak: the working directory is kept: " + dir);
    }
    System.out.printf(
        "soak: %.1f min, %d records, %d reconfigurations, %d crashes, %d node kills, %d"
            + " checkpoints (%d timed out, %d quarantined, %d deleted), %d rollbacks; %d records"
            + " lost, %d duplicated; heap after GC %d -> %d bytes; largest metrics reply %d bytes;"
            + " job %s%s%n",
        r.minutes(),
        r.records(),
        r.reconfigurations(),
        r.crashes(),
        r.nodeKills(),
        r.checkpoints(),
        r.checkpointsTimedOut(),
        r.checkpointsQuarantined(),
        r.checkpointsDeleted(),
        r.rollbacks(),
        r.recordsLost(),
        r.recordsDuplicated(),
        r.heapAfterGcFirstMinuteBytes(),
        r.heapAfterGcLastMinuteBytes(),
        r.metricsReplyBytesMax(),
        r.status(),
        r.error() == null ? "" : "; failed: " + r.error());
    if (json) {
      System.out.println(r.json());
    }
    return r.targetsMet() ? 0 : 1;
  }
}
