package io.koala.bench.soak;

import io.koala.bench.cluster.ClusterExperiment;
import io.koala.checkpoint.CheckpointStorage;
import io.koala.cli.NodeProcess;
import io.koala.cluster.KoalaCluster;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.kafka.testing.EmbeddedKafka;
import io.koala.plan.TaskId;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.serialization.SerializationExtension;

/**
 * {@code koala experiment soak}: the {@link SoakWorkload} on three node processes on loopback, its
 * input written to a Kafka broker in this process at a steady rate, for {@code minutes}. This JVM
 * is the member that coordinates the job (and the cluster's seed); every {@code step} it injects
 * the next fault of the {@link SoakSchedule} and waits for the job to be running again with a
 * checkpoint committed after it. A killed node is replaced by a new process. At the end the input
 * stops, the job is stopped once its committed output holds every record's count, and that output
 * (read {@code read_committed} throughout) is judged by an {@link OutputTally}.
 */
public final class SoakExperiment {
  private static final Duration WAIT = Duration.ofMinutes(3);
  private static final int NODES = 3;

  /**
   * How the soak runs.
   *
   * @param minutes how long the input is written, faults injected meanwhile
   * @param step the time between faults
   * @param rate records per second written to the input topic
   * @param keys distinct keys
   * @param stateBytes bytes of state per key
   * @param partitions input partitions (source tasks) and output partitions
   * @param parallelism count tasks at the start; the rescales alternate between it and one more
   * @param checkpointInterval {@code koala.checkpoint.interval}
   * @param checkpointTimeout {@code koala.checkpoint.timeout}
   * @param restartsResetAfter {@code koala.checkpoint.restarts-reset-after}: shorter than {@code
   *     step}, so that each fault starts a new period of failures
   */
  public record Settings(
      double minutes,
      Duration step,
      double rate,
      int keys,
      int stateBytes,
      int partitions,
      int parallelism,
      Duration checkpointInterval,
      Duration checkpointTimeout,
      Duration restartsResetAfter) {

    public Settings {
      if (minutes < 2 || step.toMillis() < 1_000 || rate <= 0 || keys < 1) {
        throw new IllegalArgumentException(
            "--minutes must be at least 2 (the heap is measured after the first minute and in the"
                + " last), --rate above 0, --step-seconds and --keys at least 1");
      }
      if (restartsResetAfter.compareTo(step) >= 0) {
        throw new IllegalArgumentException(
            "restarts-reset-after ("
                + restartsResetAfter
                + ") must be shorter than a step ("
                + step
                + "): each fault starts a new period of failures");
      }
    }

    /**
     * 2,000 records/s over 10,000 keys of 512 B, 4 partitions, 2 count tasks, a fault every 2 min.
     */
    public static Settings defaults(double minutes) {
      return new Settings(
          minutes,
          Duration.ofMinutes(2),
          2_000,
          10_000,
          512,
          4,
          2,
          Duration.ofSeconds(2),
          Duration.ofSeconds(20),
          Duration.ofSeconds(60));
    }

    /**
     * These settings with a fault every {@code step}, {@code rate} records/s over {@code keys}
     * keys, and a new period of failures after half a step without a rollback.
     */
    public Settings with(Duration step, double rate, int keys) {
      return new Settings(
          minutes,
          step,
          rate,
          keys,
          stateBytes,
          partitions,
          parallelism,
          checkpointInterval,
          checkpointTimeout,
          step.dividedBy(2));
    }

    /** The faults injected. */
    List<SoakSchedule.Fault> faults() {
      return SoakSchedule.of((int) Math.floor(minutes * 60_000 / step.toMillis() - 1e-9));
    }
  }

  /** What a soak counted and measured. */
  public record Result(
      double minutes,
      long records,
      int reconfigurations,
      int crashes,
      int nodeKills,
      long checkpoints,
      long checkpointsTimedOut,
      long checkpointsQuarantined,
      int checkpointsDeleted,
      int unreadableRestores,
      int rollbacks,
      long recordsLost,
      long recordsDuplicated,
      long heapAfterGcFirstMinuteBytes,
      long heapAfterGcLastMinuteBytes,
      long metricsReplyBytesMax,
      JobStatus status,
      String error) {

    /** Whether nothing was lost, duplicated or deleted, and memory and replies stayed bounded. */
    public boolean targetsMet() {
      return error == null
          && status == JobStatus.STOPPED
          && recordsLost == 0
          && recordsDuplicated == 0
          && checkpointsDeleted == 0
          && heapAfterGcLastMinuteBytes <= 1.2 * heapAfterGcFirstMinuteBytes
          && metricsReplyBytesMax <= 256 * 1024;
    }

    public String json() {
      return "{\"soak\":true,\"minutes\":"
          + String.format(java.util.Locale.ROOT, "%.1f", minutes)
          + ",\"records\":"
          + records
          + ",\"reconfigurations\":"
          + reconfigurations
          + ",\"crashes\":"
          + crashes
          + ",\"nodeKills\":"
          + nodeKills
          + ",\"checkpoints\":"
          + checkpoints
          + ",\"checkpointsTimedOut\":"
          + checkpointsTimedOut
          + ",\"checkpointsQuarantined\":"
          + checkpointsQuarantined
          + ",\"checkpointsDeleted\":"
          + checkpointsDeleted
          + ",\"unreadableRestores\":"
          + unreadableRestores
          + ",\"rollbacks\":"
          + rollbacks
          + ",\"recordsLost\":"
          + recordsLost
          + ",\"recordsDuplicated\":"
          + recordsDuplicated
          + ",\"heapAfterGcFirstMinuteBytes\":"
          + heapAfterGcFirstMinuteBytes
          + ",\"heapAfterGcLastMinuteBytes\":"
          + heapAfterGcLastMinuteBytes
          + ",\"metricsReplyBytesMax\":"
          + metricsReplyBytesMax
          + ",\"status\":\""
          + status
          + "\",\"targetsMet\":"
          + targetsMet()
          + (error == null ? "" : ",\"error\":" + io.koala.connector.Json.encode(error))
          + "}";
    }
  }

  private final Settings s;
  private final Path dir;
  private final Consumer<String> log;
  private final OutputTally tally = new OutputTally();
  private final List<NodeProcess> nodes = new ArrayList<>();
  private int[] ports;
  private String common;
  private KoalaCluster driver;
  private ActorSystem<Void> system;
  private JobHandle job;
  private InjectedFaults faults;
  private long metricsReplyBytesMax;
  private int crashes;
  private int nodeKills;
  private int unreadableRestores;
  private int checkpointsDeleted;

  private SoakExperiment(Settings s, Path dir, Consumer<String> log) {
    this.s = s;
    this.dir = dir;
    this.log = log;
  }

  /**
   * Runs a soak in {@code dir} (which must be empty or absent), reporting progress to {@code log}.
   */
  public static Result run(Settings s, Path dir, Consumer<String> log) {
    return new SoakExperiment(s, dir, log).run();
  }

  private Result run() {
    List<SoakSchedule.Fault> schedule = s.faults();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ports = NodeProcess.freePorts(1 + NODES + schedule.size());
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopic(SoakWorkload.INPUT, s.partitions());
      kafka.createTopic(SoakWorkload.OUTPUT, s.partitions());
      SoakWorkload w =
          new SoakWorkload(
              kafka.bootstrapServers(),
              s.partitions(),
              s.parallelism(),
              s.stateBytes(),
              dir.resolve("faults").toString());
      faults = w.faults();
      common = common(w);
      system = ClusterExperiment.driverSystem(dir, common + "koala.node.port = " + ports[0] + "\n");
      driver = KoalaCluster.start(system, KoalaConfig.from(system.settings().config()));
      for (int i = 1; i <= NODES; i++) {
        startNode(i);
      }
      await("the workers of " + NODES + " nodes", () -> driver.workers() == NODES);
      try (SoakInput input = SoakInput.start(kafka, s.rate(), s.keys(), tally);
          SoakOutput output = SoakOutput.start(kafka, s.partitions(), tally)) {
        job = driver.submit(w.dataflow());
        log.accept("submitted " + SoakWorkload.NAME + "; faults: " + schedule);
        long start = System.nanoTime();
        long heapFirst = -1;
        for (int i = 0; i < schedule.size(); i++) {
          long at = start + (i + 1) * s.step().toNanos();
          heapFirst = waitUntil(at, start, heapFirst);
          inject(schedule.get(i), i + 1);
        }
        long end = start + (long) (s.minutes() * 60e9);
        heapFirst = waitUntil(end - Math.min(30_000_000_000L, (end - start) / 4), start, heapFirst);
        long heapLast = heapAfterGc();
        waitUntil(end, start, heapFirst);
        input.stop();
        log.accept(
            "input stopped at "
                + tally.writtenRecords()
                + " records; waiting for their counts in the committed output");
        await("every record's count in the committed output", tally::complete);
        long last = job.stop().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        JobStatus status = job.await(WAIT);
        output.drain(WAIT);
        JobMetrics m = sampled();
        log.accept("stopped with checkpoint " + last + ": " + status);
        return result(m, status, heapFirst, heapLast, null);
      }
    } catch (Exception | AssertionError e) {
      log.accept("failed: " + e);
      JobMetrics m = job == null ? null : safeMetrics();
      return result(m, job == null ? null : job.status(), -1, -1, String.valueOf(e));
    } finally {
      close();
    }
  }

  /**
   * Waits until {@code at} (nanoTime), sampling the metrics every second; returns the heap after GC
   * of the first minute, measured once a minute has passed since {@code start} (or {@code
   * heapFirst} when measured already).
   */
  private long waitUntil(long at, long start, long heapFirst) {
    while (System.nanoTime() < at) {
      if (heapFirst < 0 && System.nanoTime() - start >= 60e9) {
        heapFirst = heapAfterGc();
        log.accept("heap after GC, first minute: " + heapFirst + " bytes");
      }
      JobMetrics m = sampled();
      if (m.status().isTerminal()) {
        throw new IllegalStateException("the job is " + m.status());
      }
      LockSupport.parkNanos(Math.min(1_000_000_000L, Math.max(0, at - System.nanoTime())));
    }
    return heapFirst;
  }

  /** The job's metrics, their serialized size counted in {@link #metricsReplyBytesMax}. */
  private JobMetrics sampled() {
    JobMetrics m = job.metrics();
    int bytes = SerializationExtension.get(system.classicSystem()).serialize(m).get().length;
    metricsReplyBytesMax = Math.max(metricsReplyBytesMax, bytes);
    return m;
  }

  private JobMetrics safeMetrics() {
    try {
      return sampled();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static long heapAfterGc() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private Result result(
      JobMetrics m, JobStatus status, long heapFirst, long heapLast, String error) {
    return new Result(
        s.minutes(),
        tally.writtenRecords(),
        m == null ? 0 : m.reconfigurationsCompleted(),
        crashes,
        nodeKills,
        m == null ? 0 : m.checkpoints().completed(),
        m == null ? 0 : m.checkpoints().timedOut(),
        m == null ? 0 : m.checkpoints().quarantined(),
        checkpointsDeleted,
        unreadableRestores,
        m == null ? 0 : m.rollbacks(),
        tally.lost(),
        tally.duplicated(),
        heapFirst,
        heapLast,
        metricsReplyBytesMax,
        status,
        error);
  }

  /** Injects fault number {@code n} and waits until the job runs and checkpoints again. */
  private void inject(SoakSchedule.Fault fault, int n) throws Exception {
    JobMetrics before = sampled();
    log.accept("fault " + n + ": " + fault);
    switch (fault) {
      case RESCALE -> {
        int p = before.parallelism(SoakWorkload.TARGET);
        int to = p == s.parallelism() ? p + 1 : s.parallelism();
        log.accept(
            "  "
                + job.rescale(SoakWorkload.TARGET, to)
                    .toCompletableFuture()
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS));
      }
      case MIGRATION -> {
        TaskId task = ClusterExperiment.aTask(before, SoakWorkload.TARGET);
        int from = before.placement().get(task);
        int to = liveWorkers().stream().filter(x -> x != from).findFirst().orElseThrow();
        log.accept(
            "  "
                + job.migrate(SoakWorkload.TARGET, task.index(), to)
                    .toCompletableFuture()
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS));
      }
      case CRASH -> {
        crash(before);
      }
      case UNREADABLE_SNAPSHOT -> unreadableRestore();
      case CHECKPOINT_TIMEOUT -> {
        faults.stall();
        try {
          await(
              "a checkpoint timed out",
              () -> sampled().checkpoints().timedOut() > before.checkpoints().timedOut());
        } finally {
          faults.release();
        }
        log.accept("  a checkpoint timed out; the stalled tasks go on");
      }
      case NODE_KILL -> killNode(before);
    }
    settle(before);
  }

  /** Arms a crash and waits for the rollback it causes. */
  private void crash(JobMetrics before) {
    faults.armCrash();
    crashes++;
    await("the rollback of the injected crash", () -> sampled().rollbacks() > before.rollbacks());
  }

  /**
   * A crash whose restore finds a snapshot of the latest checkpoint missing (as on a mount not back
   * yet): the file is moved away, a crash is armed, and the file is put back once a restore attempt
   * failed on it (or after 20 s). Tried again, up to three times, when a newer checkpoint committed
   * before the crash (its restore never met the missing file).
   */
  private void unreadableRestore() throws IOException {
    CheckpointStorage storage = new CheckpointStorage(dir.resolve("checkpoints"));
    for (int attempt = 1; attempt <= 3 && unreadableRestores == 0; attempt++) {
      JobMetrics before = sampled();
      Path chk = storage.checkpointDirectory(job.id(), before.checkpoints().lastId());
      Path file;
      try (Stream<Path> files = Files.list(chk)) {
        file =
            files
                .filter(p -> p.getFileName().toString().endsWith(CheckpointStorage.SNAPSHOT_SUFFIX))
                .filter(p -> p.getFileName().toString().startsWith(SoakWorkload.TARGET))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no count snapshot in " + chk));
      }
      Path hidden = file.resolveSibling(file.getFileName() + ".hidden");
      Files.move(file, hidden);
      log.accept("  " + file + " hidden; crashing a task");
      boolean failedOnIt;
      try {
        crash(before);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        // the crash's rollback, then one more for each restore attempt that failed on the file
        while (sampled().rollbacks() < before.rollbacks() + 2 && System.nanoTime() < deadline) {
          LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
        failedOnIt = sampled().rollbacks() >= before.rollbacks() + 2;
      } finally {
        if (Files.exists(hidden)) {
          Files.move(hidden, file);
        }
      }
      if (failedOnIt) {
        unreadableRestores++;
        if (!Files.exists(file)) {
          checkpointsDeleted++;
        }
        log.accept("  a restore failed on the missing file; " + file + " is back");
      } else {
        log.accept("  a newer checkpoint was restored; trying again");
        settle(before);
      }
    }
  }

  /** Kills a node that runs count tasks, waits for the rollback, and starts a node in its place. */
  private void killNode(JobMetrics before) {
    TaskId task = ClusterExperiment.aTask(before, SoakWorkload.TARGET);
    String address = driver.workerNodes().get(before.placement().get(task));
    NodeProcess victim =
        nodes.stream()
            .filter(p -> p.alive() && address.endsWith(":" + ports[nodeIndex(p)]))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no live node at " + address));
    victim.kill();
    nodeKills++;
    log.accept("  killed " + victim.name() + " (" + address + ")");
    await("the rollback after the kill", () -> sampled().rollbacks() > before.rollbacks());
    settle(before);
    int next = nodes.size() + 1;
    startNode(next);
    String port = ":" + ports[next];
    await(
        "node-" + next + "'s worker",
        () -> driver.workerNodes().stream().anyMatch(a -> a.endsWith(port)));
  }

  /**
   * Waits until the job runs, no reconfiguration runs and a checkpoint committed after {@code
   * before}.
   */
  private void settle(JobMetrics before) {
    await(
        "the job running, with a checkpoint committed after the fault",
        () -> {
          JobMetrics m = sampled();
          return m.status() == JobStatus.RUNNING
              && m.reconfiguring() == null
              && m.checkpoints().lastId() > before.checkpoints().lastId();
        });
  }

  /** The worker indices of the live node processes. */
  private List<Integer> liveWorkers() {
    List<String> addresses = driver.workerNodes();
    List<Integer> live = new ArrayList<>();
    for (int i = 0; i < addresses.size(); i++) {
      String a = addresses.get(i);
      if (nodes.stream().anyMatch(p -> p.alive() && a.endsWith(":" + ports[nodeIndex(p)]))) {
        live.add(i);
      }
    }
    return live;
  }

  private int nodeIndex(NodeProcess p) {
    return nodes.indexOf(p) + 1;
  }

  private void startNode(int i) {
    NodeProcess p = NodeProcess.start("node-" + i, NodeProcess.configFile(dir, i, ports, common));
    nodes.add(p);
    p.awaitUp(WAIT);
    log.accept("node-" + i + " up");
  }

  /** Settings every member shares. */
  private String common(SoakWorkload w) {
    return "koala.node.seed-nodes = [\"127.0.0.1:"
        + ports[0]
        + "\"]\n"
        + "koala.checkpoint.interval = "
        + s.checkpointInterval().toMillis()
        + " ms\n"
        + "koala.checkpoint.timeout = "
        + s.checkpointTimeout().toMillis()
        + " ms\n"
        + "koala.checkpoint.restarts-reset-after = "
        + s.restartsResetAfter().toMillis()
        + " ms\n"
        + "koala.checkpoint.directory = \""
        + dir.resolve("checkpoints")
        + "\"\n"
        + "koala.cluster.scale-on-join = []\n"
        + "koala.node.down-unreachable-after = 5 s\n"
        + w.hocon();
  }

  private void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (job != null && job.status().isTerminal()) {
        throw new IllegalStateException(
            "the job is " + job.status() + " while waiting for " + what);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + WAIT + " waiting for " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  private void close() {
    if (faults != null) {
      faults.release();
    }
    ClusterExperiment.stop(system, nodes);
  }
}
