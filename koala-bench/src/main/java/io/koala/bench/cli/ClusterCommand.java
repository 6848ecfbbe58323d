package io.koala.bench.cli;

import io.koala.bench.cluster.ClusterExperiment;
import io.koala.samples.cluster.ClusterWorkload;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code koala experiment cluster}: see {@link ClusterExperiment}. */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = {
      "Runs a workload across koala node processes on loopback (a Pekko cluster): this process"
          + " coordinates; NODES-1 nodes run the job, one more joins (the count operator is"
          + " scaled onto it) and one leaves gracefully. Compares the output with the reference"
          + " run; the last line is JSON with throughput, state transferred, remoting drops and"
          + " outputEquivalent."
    })
final class ClusterCommand implements Callable<Integer> {
  @Option(names = "--nodes", defaultValue = "3", description = "Node processes (default 3).")
  int nodes;

  @Option(
      names = "--records",
      defaultValue = "1200000",
      description = "Records (default 1200000: a minute at the default rate).")
  long records;

  @Option(names = "--keys", defaultValue = "20000", description = "Keys (default 20000).")
  int keys;

  @Option(
      names = "--rate",
      defaultValue = "20000",
      description = "Offered records/s over all sources (default 20000).")
  double rate;

  @Option(
      names = "--state-bytes",
      defaultValue = "1024",
      description = "Bytes of state per key (default 1024).")
  int stateBytes;

  @Option(
      names = "--capacity",
      defaultValue = "0",
      description =
          "Records/s each count task processes at most (emulated, DESIGN 4.7; default 0: no"
              + " limit). A rate 10x the tasks' capacity holds a sustained 10x overload.")
  double capacity;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    ClusterWorkload w = new ClusterWorkload(records, keys, 2, 2, rate, stateBytes, capacity);
    Path dir = output.dir("cluster-experiment");
    ClusterExperiment.Result r =
        ClusterExperiment.run(nodes, w, dir, line -> System.err.println("cluster: " + line));
    System.out.printf(
        "cluster: %d nodes, %.1f s, %.0f records/s, %d bytes of state transferred, %d remoting"
            + " drops, reconfigurations %s, output %s%n",
        r.nodes(),
        r.seconds(),
        r.throughput(),
        r.stateBytesTransferred(),
        r.remotingDrops(),
        r.reconfigurations(),
        r.outputEquivalent() ? "equals the reference run" : "DIFFERS from the reference run");
    System.out.println(r.json());
    return r.outputEquivalent() && r.remotingDrops() == 0 ? 0 : 1;
  }
}
