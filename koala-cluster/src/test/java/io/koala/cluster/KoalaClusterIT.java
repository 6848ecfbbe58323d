package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Koala on three cluster nodes in this JVM (each its own ActorSystem, every message serialized over
 * Artery TCP): a node that joins takes tasks, a node that leaves gracefully has them moved off, a
 * node that is downed has them recovered from a checkpoint. The judge is the reference run: the
 * same dataflow on an embedded runtime with no reconfiguration, whose per-key outputs the cluster
 * run must reproduce exactly (a running count emits 1..n per key, so a lost record leaves a gap and
 * a repeated one a duplicate).
 */
class KoalaClusterIT {
  private static final int RECORDS = 24_000;
  private static final int KEYS = 300;
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Map<Integer, Map<Long, List<Long>>> REFERENCE = new TreeMap<>();

  /**
   * source ({@code sources} partitions and tasks) → keyBy → running count "count" (2 tasks) → sink
   * "counts". Tasks go round-robin to the workers in that order: with 3 workers and 3 source tasks,
   * worker 2 hosts a source; with 2 workers, a join brings only what is placed on it.
   */
  static Dataflow dataflow(double rate, int sources) {
    DataflowBuilder b = Dataflow.builder("clustered").parallelism(2);
    b.source(numbers(rate, sources))
        .parallelism(sources)
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  /**
   * As {@link #dataflow}, with the count at 3 tasks and its output also into a second sink: neither
   * sink is chained, each reads a forward edge, so their tasks cannot move live. With 3 workers,
   * worker 2 hosts n#2, count#2 and a task of each sink.
   */
  static Dataflow withForwardSinks(double rate, int sources) {
    DataflowBuilder b = Dataflow.builder("clustered").parallelism(3);
    var counts = b.source(numbers(rate, sources)).parallelism(sources).keyBy(x -> x).count("count");
    counts.sink(SinkSpec.collecting("counts"));
    counts.sink(SinkSpec.discarding("discarded"));
    return b.build();
  }

  /** Source "n": record i has key (i × 7919) mod KEYS, in {@code partitions} partitions. */
  private static SourceSpec<Long> numbers(double rate, int partitions) {
    return SourceSpec.generator("n", (i, seed) -> (i * 7919) % KEYS)
        .partitions(partitions)
        .count(RECORDS)
        .rate(RateSchedule.constant(rate));
  }

  /** The reference run: the same input on one embedded worker, no reconfiguration. */
  static synchronized Map<Long, List<Long>> reference(int sources) {
    return REFERENCE.computeIfAbsent(
        sources,
        n -> {
          try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(1))) {
            JobHandle job = runtime.submit(dataflow(1e9, n));
            assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
            return outputs(job);
          }
        });
  }

  /** Per key, the counts emitted, sorted. */
  static Map<Long, List<Long>> outputs(JobHandle job) {
    List<KeyValue<Long, Long>> counts = job.collected("counts");
    Map<Long, List<Long>> byKey = new TreeMap<>();
    for (KeyValue<Long, Long> kv : counts) {
      byKey.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
    }
    byKey.values().forEach(l -> l.sort(null));
    return byKey;
  }

  @Test
  void aJoiningNodeTakesTheScaledOutTasksAndALeavingNodeHandsThemBack(@TempDir Path dir) {
    try (LocalCluster nodes =
        LocalCluster.start(
            2,
            dir,
            ConfigFactory.parseString(
                "koala.cluster.scale-on-join = [count]\nkoala.checkpoint.interval = off"),
            dataflow(4_000, 2))) {
      JobHandle job = nodes.node(0).submit(dataflow(4_000, 2));
      LocalCluster.await("results", WAIT, () -> !job.collected("counts").isEmpty());

      nodes.join(); // worker 2 for the job
      LocalCluster.await(
          "count rescaled onto the new node",
          WAIT,
          () -> !job.metrics().reconfigurations().isEmpty());
      JobMetrics scaled = job.metrics();
      assertThat(scaled.reconfigurations())
          .extracting(ReconfigurationReport::kind)
          .containsExactly("rescale");
      assertThat(scaled.tasksOnWorker(2))
          .isNotEmpty()
          .allMatch(t -> t.operator().name().equals("count"));

      // the new node leaves gracefully while records flow: its tasks migrate, none rolls back
      nodes.leave(2);
      JobMetrics left = job.metrics();
      assertThat(left.tasksOnWorker(2)).as("tasks left on the node that left").isEmpty();
      assertThat(left.rollbacks()).isZero();
      assertThat(left.reconfigurations())
          .extracting(ReconfigurationReport::kind)
          .containsExactly("rescale", "migrate");

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(outputs(job)).isEqualTo(reference(2));
    }
  }

  /** {@code n} nodes taking checkpoints every 200 ms, defining the 3-way dataflow of 4,000. */
  private static LocalCluster checkpointed(int n, Path dir) {
    return LocalCluster.start(
        n,
        dir,
        ConfigFactory.parseString("koala.checkpoint.interval = 200 ms"),
        dataflow(4_000, 3));
  }

  /** A source task moves live like the keyed ones: its partitions go with their offsets. */
  @Test
  void aLeavingNodeWithASourceHasItMigratedLive(@TempDir Path dir) {
    try (LocalCluster nodes = checkpointed(3, dir)) {
      JobHandle job = nodes.node(0).submit(dataflow(4_000, 3));
      LocalCluster.await("results", WAIT, () -> !job.collected("counts").isEmpty());
      assertThat(job.metrics().tasksOnWorker(2))
          .as("tasks on the third node")
          .contains(new TaskId(new OperatorId("n"), 2));

      nodes.leave(2);
      JobMetrics left = job.metrics();
      assertThat(left.tasksOnWorker(2)).as("tasks left on the node that left").isEmpty();
      assertThat(left.rollbacks()).as("rollbacks").isZero();
      assertThat(left.reconfigurations())
          .as("the source task migrated live")
          .anySatisfy(
              r -> {
                assertThat(r.operator()).isEqualTo("n");
                assertThat(r.kind()).isEqualTo("migrate");
              });

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(outputs(job)).isEqualTo(reference(3));
    }
  }

  @Test
  void aDownedNodesTasksAreRecoveredFromTheLatestCheckpoint(@TempDir Path dir) {
    try (LocalCluster nodes = checkpointed(3, dir)) {
      JobHandle job = nodes.node(0).submit(dataflow(4_000, 3));
      LocalCluster.await("results", WAIT, () -> !job.collected("counts").isEmpty());
      assertThat(job.metrics().tasksOnWorker(2)).as("tasks on the third node").isNotEmpty();

      // downed while its tasks still run: the job must not keep a thing they do from now on
      nodes.down(2);
      LocalCluster.await("recovered", WAIT, () -> job.metrics().rollbacks() >= 1);
      LocalCluster.await(
          "no task on the downed node", WAIT, () -> job.metrics().tasksOnWorker(2).isEmpty());

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(outputs(job)).isEqualTo(reference(3));
    }
  }

  /**
   * The leaving node hosts sink tasks, which only a checkpoint and a restore can move, and its jobs
   * get no time for that: it leaves with them, and the job recovers them from its latest
   * checkpoint.
   */
  @Test
  void aLeaveThatTimesOutBecomesACrashRecoveredFromTheLatestCheckpoint(@TempDir Path dir) {
    try (LocalCluster nodes =
        LocalCluster.start(
            2,
            dir,
            ConfigFactory.parseString("koala.checkpoint.interval = 200 ms"),
            withForwardSinks(4_000, 3))) {
      nodes.join(ConfigFactory.parseString("koala.cluster.leave-timeout = 1 ms"));
      JobHandle job = nodes.node(0).submit(withForwardSinks(4_000, 3));
      LocalCluster.await("results", WAIT, () -> !job.collected("counts").isEmpty());
      assertThat(job.metrics().tasksOnWorker(2))
          .as("tasks on the third node")
          .contains(new TaskId(new OperatorId("counts"), 2));

      nodes.leave(2);
      LocalCluster.await(
          "no task on the node that left", WAIT, () -> job.metrics().tasksOnWorker(2).isEmpty());
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(job.metrics().rollbacks()).as("rollbacks").isGreaterThanOrEqualTo(1);
      assertThat(outputs(job)).isEqualTo(reference(3));
    }
  }

  @Test
  void whenTheCoordinatingNodeGoesTheJobsTasksOnTheOthersStop(@TempDir Path dir) throws Exception {
    try (LocalCluster nodes =
        LocalCluster.start(
            2,
            dir,
            ConfigFactory.parseString("koala.checkpoint.interval = off"),
            dataflow(2_000, 2))) {
      JobHandle job = nodes.node(0).submit(dataflow(2_000, 2));
      LocalCluster.await("results", WAIT, () -> !job.collected("counts").isEmpty());
      Path stores = dir.resolve("node-1").resolve("worker").resolve(job.id());
      assertThat(files(stores)).as("task stores on the second node").isPositive();

      JobHandle attached = nodes.node(1).attach(job.id());

      // the coordinator's node is downed: nothing would ever stop its tasks on the other node
      nodes.down(0);
      // a handle attached on the other node ends too: cancelled as the downed node stops, or
      // failed (a worker lost, or the coordinator gone)
      LocalCluster.await(
          "the attached handle's end",
          WAIT,
          () -> attached.completion().toCompletableFuture().isDone());
      assertThat(attached.status()).isIn(JobStatus.CANCELLED, JobStatus.FAILED);
      LocalCluster.await(
          "the job's tasks on the second node stopped and their stores deleted",
          WAIT,
          () -> files(stores) == 0);
    }
  }

  /** Regular files under {@code dir} (0 when it does not exist). */
  private static long files(Path dir) {
    if (!java.nio.file.Files.exists(dir)) {
      return 0;
    }
    try (var s = java.nio.file.Files.walk(dir)) {
      return s.filter(java.nio.file.Files::isRegularFile).count();
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return -1; // being deleted: look again
    }
  }

  @Test
  void theReadmeNodeRunsAJob() {
    System.setProperty("koala.node.port", "0"); // any free port, not the default 2551
    ConfigFactory.invalidateCaches();
    Dataflow orders = dataflow(1e9, 2);
    ActorSystem<Void> system = null;
    try {
      // README-BEGIN
      Config config = KoalaCluster.systemConfig(ConfigFactory.load()); // koala.node.*
      system = ActorSystem.create(Behaviors.empty(), "koala", config);
      KoalaCluster koala = KoalaCluster.start(system, KoalaConfig.from(config));
      koala.define(orders); // every node defines the dataflows it may run
      // README-END
      Cluster.get(system).manager().tell(Join.create(Cluster.get(system).selfMember().address()));
      LocalCluster.await("a worker", WAIT, () -> koala.workers() == 1);
      // README-BEGIN
      JobHandle job = koala.submit(orders); // on one node; its id is the dataflow's name
      // README-END
      assertThat(job.id()).isEqualTo("clustered");
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(outputs(job)).isEqualTo(reference(2));
    } finally {
      System.clearProperty("koala.node.port");
      ConfigFactory.invalidateCaches();
      if (system != null) {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().join();
      }
    }
  }
}
