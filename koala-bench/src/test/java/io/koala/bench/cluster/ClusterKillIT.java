package io.koala.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.cli.NodeProcess;
import io.koala.cluster.KoalaCluster;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.plan.TaskId;
import io.koala.runtime.JobHandle;
import io.koala.samples.cluster.ClusterWorkload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code koala node} processes on loopback and this JVM as a coordinating member: a count
 * task is migrated, and the node that hosts it is killed (SIGKILL) while the migration runs. The
 * split-brain resolver downs it, the job rolls back to its latest checkpoint on the two nodes left,
 * runs the migration again, and its output equals the reference run's.
 */
class ClusterKillIT {
  private static final Duration WAIT = Duration.ofMinutes(3);

  @Test
  void aNodeKilledDuringAMigrationIsRecoveredExactlyOnce(@TempDir Path dir) {
    // 15 s of input at 4,000/s: the kill comes after a fifth of it, and since the job cannot end
    // without the killed node's tasks, their loss is detected and rolled back before it ends
    ClusterWorkload w = new ClusterWorkload(60_000, 4_000, 2, 2, 4_000, 2_048, 0);
    Map<Long, List<Long>> reference = ClusterExperiment.reference(w);
    int[] ports = NodeProcess.freePorts(3);
    String common =
        ClusterExperiment.common(dir, ports, w, false)
            + "koala.checkpoint.interval = 500 ms\nkoala.node.down-unreachable-after = 3 s\n";
    List<NodeProcess> nodes = new ArrayList<>();
    ActorSystem<Void> system = null;
    try {
      for (int i = 0; i < 3; i++) {
        nodes.add(NodeProcess.start("node-" + i, NodeProcess.configFile(dir, i, ports, common)));
      }
      system = ClusterExperiment.driverSystem(dir, common);
      RunningWorkload run = RunningWorkload.start(system, nodes, w, WAIT);
      KoalaCluster driver = run.driver();
      JobHandle job = run.job();

      // migrate count's first task to another worker, and kill its node while that runs
      JobMetrics before = job.metrics();
      TaskId task = ClusterExperiment.aTask(before, ClusterWorkload.TARGET);
      int from = before.placement().get(task);
      int to = (from + 1) % 3;
      CompletableFuture<?> migration =
          job.migrate(ClusterWorkload.TARGET, task.index(), to).toCompletableFuture();
      String address = driver.workerNodes().get(from);
      NodeProcess victim = nodes.get(nodeOf(address, ports));
      assertThat(job.metrics().reconfigurations()).as("the migration is still running").isEmpty();
      victim.kill();
      System.out.println(
          "killed " + victim.name() + " (" + address + ") during " + task + " -> " + to);

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      JobMetrics after = job.metrics();
      assertThat(after.rollbacks()).as("rollbacks").isGreaterThanOrEqualTo(1);
      assertThat(after.tasksOnWorker(from)).as("tasks on the killed node").isEmpty();
      assertThat(ClusterExperiment.outputs(job)).isEqualTo(reference);
      System.out.println("migration: " + migration.handle((r, e) -> e == null ? r : e).join());
    } finally {
      ClusterExperiment.stop(system, nodes);
    }
  }

  /** The node whose port {@code address} names. */
  private static int nodeOf(String address, int[] ports) {
    for (int i = 0; i < ports.length; i++) {
      if (address.endsWith(":" + ports[i])) {
        return i;
      }
    }
    throw new AssertionError(address + " is none of the nodes' ports");
  }
}
