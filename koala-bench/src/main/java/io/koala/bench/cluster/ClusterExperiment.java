package io.koala.bench.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.cli.NodeProcess;
import io.koala.cluster.KoalaCluster;
import io.koala.function.KeyValue;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.plan.TaskId;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.samples.cluster.ClusterWorkload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * {@code koala experiment cluster}: the {@link ClusterWorkload} on node processes on loopback
 * (DESIGN §9). This JVM is a member that coordinates the job and runs no task; {@code nodes - 1}
 * node processes run it from the start, one more joins while it runs (the target operator is scaled
 * onto it: {@code koala.cluster.scale-on-join}), then one of the first leaves gracefully (SIGTERM:
 * its tasks are moved off first). The output is compared with the reference run (the same input on
 * an embedded runtime, no reconfiguration); every node reports the messages its remoting dropped.
 */
public final class ClusterExperiment {
  private static final Duration STEP = Duration.ofSeconds(120);

  /** What a run measured. */
  public record Result(
      int nodes,
      ClusterWorkload workload,
      double seconds,
      double throughput,
      long stateBytesTransferred,
      List<String> reconfigurations,
      int rollbacks,
      long remotingDrops,
      boolean outputEquivalent) {

    public String json() {
      return "{\"experiment\":\"cluster\",\"nodes\":"
          + nodes
          + ",\"records\":"
          + workload.records()
          + ",\"keys\":"
          + workload.keys()
          + ",\"stateBytesPerKey\":"
          + workload.stateBytes()
          + ",\"offeredRate\":"
          + Math.round(workload.rate())
          + ",\"capacityPerTask\":"
          + Math.round(workload.capacity())
          + ",\"seconds\":"
          + String.format(java.util.Locale.ROOT, "%.1f", seconds)
          + ",\"throughput\":"
          + Math.round(throughput)
          + ",\"stateBytesTransferred\":"
          + stateBytesTransferred
          + ",\"reconfigurations\":\""
          + String.join(",", reconfigurations)
          + "\",\"rollbacks\":"
          + rollbacks
          + ",\"remotingDrops\":"
          + remotingDrops
          + ",\"outputEquivalent\":"
          + outputEquivalent
          + "}";
    }
  }

  private ClusterExperiment() {}

  /**
   * Runs the experiment with {@code nodes} node processes (at least 3) in {@code dir}, reporting
   * progress to {@code log}.
   */
  public static Result run(int nodes, ClusterWorkload w, Path dir, Consumer<String> log) {
    if (nodes < 3) {
      throw new IllegalArgumentException("--nodes must be at least 3 (one joins, one leaves)");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<Long, List<Long>> reference = reference(w);
    log.accept("reference run: " + reference.size() + " keys");
    int[] ports = NodeProcess.freePorts(nodes);
    List<NodeProcess> processes = new ArrayList<>();
    long drops = 0;
    ActorSystem<Void> driverSystem = null;
    Transferred transferred = null;
    try {
      for (int i = 0; i < nodes - 1; i++) {
        processes.add(NodeProcess.start("node-" + i, nodeConfig(dir, i, ports, w)));
      }
      for (NodeProcess p : processes) {
        p.awaitUp(STEP);
      }
      driverSystem = driverSystem(dir, common(dir, ports, w));
      KoalaCluster driver =
          KoalaCluster.start(driverSystem, KoalaConfig.from(driverSystem.settings().config()));
      await("the workers of " + (nodes - 1) + " nodes", () -> driver.workers() == nodes - 1);
      log.accept((nodes - 1) + " nodes up; submitting " + ClusterWorkload.NAME);
      long start = System.nanoTime();
      JobHandle job = driver.submit(w.dataflow());
      transferred = new Transferred(job);
      log.accept("node-" + (nodes - 1) + " joins");
      processes.add(NodeProcess.start("node-" + (nodes - 1), nodeConfig(dir, nodes - 1, ports, w)));
      processes.get(nodes - 1).awaitUp(STEP);
      await(
          job, "the rescale onto the new node", () -> !job.metrics().reconfigurations().isEmpty());
      log.accept("rescaled: " + job.metrics().reconfigurations().get(0));
      await(job, "60% of the input", () -> processed(job) > w.records() * 6 / 10);

      NodeProcess leaving = processes.get(1);
      log.accept(leaving.name() + " leaves gracefully");
      drops += leaving.stop(STEP);
      log.accept(leaving.name() + " left");
      JobStatus status = job.await(Duration.ofHours(1));
      double seconds = (System.nanoTime() - start) / 1e9;
      JobMetrics m = job.metrics();
      long bytes = transferred.stop(m);
      Map<Long, List<Long>> out = outputs(job);
      for (NodeProcess p : processes) {
        if (p.alive()) {
          drops += p.stop(STEP);
        }
      }
      drops += driver.remotingDrops();
      List<String> kinds = new ArrayList<>();
      for (ReconfigurationReport r : m.reconfigurations()) {
        kinds.add(r.kind());
      }
      return new Result(
          nodes,
          w,
          seconds,
          w.records() / seconds,
          bytes,
          kinds,
          m.rollbacks(),
          drops,
          status == JobStatus.FINISHED && out.equals(reference));
    } finally {
      if (transferred != null) {
        transferred.stop(null);
      }
      stop(driverSystem, processes);
    }
  }

  /**
   * The bytes of state tasks installed from other tasks over the whole run, sampled every 200 ms: a
   * rollback restarts the tasks' counters, so the count before it is kept.
   */
  private static final class Transferred {
    private final java.util.concurrent.ScheduledExecutorService timer =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cluster-experiment-sampler");
              t.setDaemon(true);
              return t;
            });
    private long before; // counted by attempts that rolled back
    private long last;

    Transferred(JobHandle job) {
      timer.scheduleWithFixedDelay(
          () -> {
            try {
              sample(job.metrics());
            } catch (RuntimeException e) {
              // the job ended, or did not answer in time: the next sample or the end counts
            }
          },
          200,
          200,
          java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private synchronized void sample(JobMetrics m) {
      long now = m.stateBytesTransferred();
      if (now < last) {
        before += last;
      }
      last = now;
    }

    /** Stops sampling; returns the total, with {@code end} as the last sample if not null. */
    long stop(JobMetrics end) {
      timer.shutdownNow();
      if (end != null) {
        sample(end);
      }
      synchronized (this) {
        return before + last;
      }
    }
  }

  /**
   * The ActorSystem of a member in this JVM that coordinates jobs and runs no task, with the {@code
   * common} settings of the nodes.
   */
  public static ActorSystem<Void> driverSystem(Path dir, String common) {
    Config config =
        KoalaCluster.systemConfig(
            ConfigFactory.parseString(common)
                .withFallback(
                    ConfigFactory.parseString(
                        "koala.node.port = 0\nkoala.node.worker = off\n"
                            + "koala.data-dir = \""
                            + dir.resolve("driver")
                            + "\"\n"
                            + "pekko.coordinated-shutdown.exit-jvm = off\n"
                            + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"))
                .withFallback(ConfigFactory.load()));
    return ActorSystem.create(Behaviors.empty(), "koala", config);
  }

  /**
   * Stops a run's members: {@code driver} (this JVM's member, may be null) leaves first, while the
   * node processes can still see it go (about a second; with the nodes killed first it would wait
   * to find them unreachable and down itself, about 8 s), then every node process still running is
   * killed.
   */
  public static void stop(ActorSystem<Void> driver, List<NodeProcess> nodes) {
    try {
      if (driver != null) {
        driver.terminate();
        driver.getWhenTerminated().toCompletableFuture().join();
      }
    } finally {
      for (NodeProcess p : nodes) {
        p.close();
      }
    }
  }

  /** A task of {@code operator} in {@code m}'s placement. */
  public static TaskId aTask(JobMetrics m, String operator) {
    return m.placement().keySet().stream()
        .filter(t -> t.operator().name().equals(operator))
        .findFirst()
        .orElseThrow(
            () -> new IllegalStateException("no " + operator + " task in " + m.placement()));
  }

  /** Records the target operator has consumed so far. */
  private static long processed(JobHandle job) {
    return job.metrics().recordsIn(ClusterWorkload.TARGET);
  }

  /** The reference run: the same input on one embedded worker, at full speed. */
  public static Map<Long, List<Long>> reference(ClusterWorkload w) {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(1))) {
      JobHandle job = runtime.submit(w.flatOut().dataflow());
      job.await(Duration.ofHours(1));
      return outputs(job);
    }
  }

  /** Per key, the counts the sink received, sorted. */
  public static Map<Long, List<Long>> outputs(JobHandle job) {
    List<KeyValue<Long, Long>> counts = job.collected(ClusterWorkload.SINK);
    Map<Long, List<Long>> byKey = new TreeMap<>();
    for (KeyValue<Long, Long> kv : counts) {
      byKey.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
    }
    byKey.values().forEach(l -> l.sort(null));
    return byKey;
  }

  /** Settings every member shares: the seed node, checkpoints, the workload, the timeouts. */
  static String common(Path dir, int[] ports, ClusterWorkload w) {
    return common(dir, ports, w, true);
  }

  /** {@link #common}, with the target scaled onto a node that joins or not. */
  static String common(Path dir, int[] ports, ClusterWorkload w, boolean scaleOnJoin) {
    return common(dir, "127.0.0.1:" + ports[0], w, scaleOnJoin);
  }

  /** {@link #common}, the cluster's seed at {@code seed} ({@code host:port}). */
  static String common(Path dir, String seed, ClusterWorkload w, boolean scaleOnJoin) {
    return "koala.node.seed-nodes = [\""
        + seed
        + "\"]\n"
        + "koala.checkpoint.interval = 1 s\n"
        + "koala.checkpoint.directory = \""
        + dir.resolve("checkpoints")
        + "\"\n"
        + "koala.cluster.scale-on-join = ["
        + (scaleOnJoin ? ClusterWorkload.TARGET : "")
        + "]\n"
        + "koala.cluster.leave-timeout = 2 minutes\n"
        + "koala.node.down-unreachable-after = 5 s\n"
        + w.hocon();
  }

  /** Writes node {@code i}'s configuration file and returns it. */
  static Path nodeConfig(Path dir, int i, int[] ports, ClusterWorkload w) {
    return NodeProcess.configFile(dir, i, ports, common(dir, ports, w));
  }

  /** Waits for {@code what}, which must happen while {@code job} runs. */
  static void await(JobHandle job, String what, BooleanSupplier condition) {
    await(
        what,
        () -> {
          if (job.status().isTerminal()) {
            throw new IllegalStateException(
                "job "
                    + job.id()
                    + " is "
                    + job.status()
                    + " before "
                    + what
                    + "; give it more --records or a lower --rate");
          }
          return condition.getAsBoolean();
        });
  }

  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + STEP.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + STEP + " waiting for " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }
}
