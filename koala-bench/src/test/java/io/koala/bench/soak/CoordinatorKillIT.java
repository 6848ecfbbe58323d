package io.koala.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.koala.bench.cluster.ClusterExperiment;
import io.koala.cli.NodeProcess;
import io.koala.cluster.KoalaCluster;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.kafka.testing.EmbeddedKafka;
import io.koala.plan.TaskId;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.internal.journal.JournalConfig;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node that runs a job's coordinator is killed (SIGKILL) while the job migrates a task. Three
 * {@code koala node} processes may coordinate jobs ({@code koala.cluster.coordinator-role}) and
 * share one journal ({@code koala.journal.store = jdbc}: an H2 database served over TCP by this
 * JVM, as a PostgreSQL server would be); this JVM is the cluster's seed, submits the {@link
 * SoakWorkload} and runs neither tasks nor coordinators. Input is written to Kafka throughout; the
 * output is the exactly-once Kafka sink's, read {@code read_committed} from the start and judged by
 * an {@link OutputTally}: after the split-brain resolver downs the killed node, the coordinator
 * starts again on another node from the journal's latest checkpoint, and every record's count is
 * published once.
 */
class CoordinatorKillIT {
  private static final Duration WAIT = Duration.ofMinutes(3);
  private static final String ROLE = "koala-coordinator";
  private static final int NODES = 3;

  @Test
  void theCoordinatorsNodeKilledDuringAMigrationLosesAndRepeatsNothing(@TempDir Path dir)
      throws Exception {
    int[] ports = NodeProcess.freePorts(1 + NODES + 1);
    int journalPort = ports[NODES + 1];
    OutputTally tally = new OutputTally();
    List<NodeProcess> nodes = new ArrayList<>();
    ActorSystem<Void> system = null;
    Server journal = sharedJournal(dir.resolve("journal"), journalPort);
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopic(SoakWorkload.INPUT, 2);
      kafka.createTopic(SoakWorkload.OUTPUT, 2);
      SoakWorkload w =
          new SoakWorkload(kafka.bootstrapServers(), 2, 2, 512, dir.resolve("faults").toString());
      String common = common(dir, ports, journalPort, w);
      for (int i = 1; i <= NODES; i++) {
        nodes.add(
            NodeProcess.start(
                "node-" + i,
                NodeProcess.configFile(
                    dir, i, ports, common + "koala.node.roles = [" + ROLE + "]\n")));
      }
      system = ClusterExperiment.driverSystem(dir, common + "koala.node.port = " + ports[0] + "\n");
      KoalaCluster driver =
          KoalaCluster.start(system, KoalaConfig.from(system.settings().config()));
      for (NodeProcess n : nodes) {
        n.awaitUp(WAIT);
      }
      await("the workers of " + NODES + " nodes", () -> driver.workers() == NODES);
      try (SoakInput input = SoakInput.start(kafka, 1_000, 1_000, tally);
          SoakOutput output = SoakOutput.start(kafka, 2, tally)) {
        JobHandle job = driver.submit(w.dataflow());
        await(
            "two checkpoints and some committed output",
            () -> job.metrics().checkpoints().completed() >= 2 && tally.writtenRecords() > 0);
        String coordinator = driver.coordinatorNode(job.id());
        NodeProcess victim = nodes.get(nodeOf(coordinator, ports) - 1);
        assertThat(coordinator).as("a node process coordinates").doesNotEndWith(":" + ports[0]);

        // migrate a count task to another worker that runs tasks (worker indices are the
        // coordinator's: JobMetrics.placement's)
        JobMetrics before = job.metrics();
        TaskId task = ClusterExperiment.aTask(before, SoakWorkload.TARGET);
        int from = before.placement().get(task);
        int to =
            before.placement().values().stream().filter(x -> x != from).findFirst().orElseThrow();
        long lastBefore = before.checkpoints().lastId();
        CompletableFuture<?> migration =
            job.migrate(SoakWorkload.TARGET, task.index(), to).toCompletableFuture();
        assertThat(job.metrics().reconfigurations()).as("the migration still runs").isEmpty();
        victim.kill();
        System.out.println(
            "killed "
                + victim.name()
                + " ("
                + coordinator
                + ", the coordinator's node) during "
                + task
                + " "
                + from
                + " -> "
                + to);

        await(
            "the coordinator on another node",
            () -> {
              try {
                return !driver.coordinatorNode(job.id()).equals(coordinator);
              } catch (RuntimeException e) {
                return false; // not started again yet
              }
            });
        await(
            "the job running with a checkpoint after the takeover",
            () -> {
              JobMetrics m = job.metrics();
              return m.status() == JobStatus.RUNNING
                  && m.reconfiguring() == null
                  && m.checkpoints().lastId() > lastBefore;
            });
        Object outcome =
            migration.handle((r, e) -> e == null ? r : e).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        System.out.println(
            "coordinator now on "
                + driver.coordinatorNode(job.id())
                + "; the migration: "
                + outcome);

        input.stop();
        await("every record's count in the committed output", tally::complete);
        job.stop().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(job.await(WAIT)).isEqualTo(JobStatus.STOPPED);
        output.drain(WAIT);
        JobMetrics after = job.metrics();
        System.out.println(
            tally.writtenRecords()
                + " records; rollbacks "
                + after.rollbacks()
                + ", lost "
                + tally.lost()
                + ", duplicated "
                + tally.duplicated());
        assertThat(tally.writtenRecords()).isGreaterThan(0);
        assertThat(tally.lost()).as("records lost").isZero();
        assertThat(tally.duplicated()).as("records duplicated").isZero();
        assertThat(after.rollbacks()).as("the takeover's rollback").isGreaterThanOrEqualTo(1);
      }
    } finally {
      try {
        ClusterExperiment.stop(system, nodes);
      } finally {
        journal.stop();
      }
    }
  }

  /**
   * An H2 database served over TCP on {@code port} from {@code dir}, with the journal plugin's
   * tables (created as the embedded store creates them, before the server opens the file).
   */
  private static Server sharedJournal(Path dir, int port) throws SQLException {
    JournalConfig.from(
            ConfigFactory.parseString("koala.journal.store = embedded")
                .withFallback(ConfigFactory.load()),
            dir)
        .createSchema();
    return Server.createTcpServer(
            "-tcpPort", String.valueOf(port), "-baseDir", dir.resolve("metadata").toString())
        .start();
  }

  /**
   * Settings every member shares: the seed, checkpoints, coordinators on {@link #ROLE} that fail
   * over through the shared journal, and the workload.
   */
  private static String common(Path dir, int[] ports, int journalPort, SoakWorkload w) {
    return "koala.node.seed-nodes = [\"127.0.0.1:"
        + ports[0]
        + "\"]\n"
        + "koala.checkpoint.interval = 500 ms\n"
        + "koala.checkpoint.directory = \""
        + dir.resolve("checkpoints")
        + "\"\n"
        + "koala.cluster.scale-on-join = []\n"
        + "koala.cluster.coordinator-role = "
        + ROLE
        + "\n"
        + "koala.node.down-unreachable-after = 5 s\n"
        + "koala.journal.store = jdbc\n"
        + "jdbc-journal.use-shared-db = \"koala-metadata\"\n"
        + "jdbc-snapshot-store.use-shared-db = \"koala-metadata\"\n"
        + "pekko-persistence-jdbc.shared-databases.koala-metadata {\n"
        + "  profile = \"slick.jdbc.H2Profile$\"\n"
        + "  db { url = \"jdbc:h2:tcp://127.0.0.1:"
        + journalPort
        + "/koala\", user = \"sa\", password = \"\", driver = \"org.h2.Driver\"\n"
        + "       numThreads = 2, maxConnections = 2, minConnections = 1 }\n"
        + "}\n"
        + w.hocon();
  }

  /** The index in {@code ports} of the node {@code address} names. */
  private static int nodeOf(String address, int[] ports) {
    for (int i = 0; i < ports.length; i++) {
      if (address.endsWith(":" + ports[i])) {
        return i;
      }
    }
    throw new AssertionError(address + " is none of the nodes' ports");
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
