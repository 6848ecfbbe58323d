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
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A network partition between node processes: three {@code koala node} processes, each in a network
 * namespace of its own ({@link NetworkNamespaces}), and this JVM as the member that coordinates the
 * job, on the bridge that joins them. While the job runs, the link of a node that hosts a count
 * task is taken down: that node and the rest each find the other side unreachable. The split-brain
 * resolver (keep-majority) downs the one node on the majority's side, and on its own side the node
 * downs itself and its process exits; the job rolls back to its latest checkpoint on the two nodes
 * left and its output equals the reference run's.
 */
class PartitionIT {
  private static final Duration WAIT = Duration.ofMinutes(3);

  @Test
  void aNodeCutOffByAPartitionIsDownedAndTheJobLosesNothing(@TempDir Path dir) {
    ClusterWorkload w = new ClusterWorkload(60_000, 4_000, 2, 2, 4_000, 2_048, 0);
    Map<Long, List<Long>> reference = ClusterExperiment.reference(w);
    List<NodeProcess> nodes = new ArrayList<>();
    ActorSystem<Void> system = null;
    try (NetworkNamespaces net = NetworkNamespaces.create(3)) {
      int[] ports = NodeProcess.freePorts(3);
      String common =
          ClusterExperiment.common(dir, net.address(0) + ":" + ports[0], w, false)
              + "koala.checkpoint.interval = 500 ms\nkoala.node.down-unreachable-after = 3 s\n";
      try {
        for (int i = 0; i < 3; i++) {
          Path config =
              NodeProcess.configFile(
                  dir, i, ports, common + "koala.node.host = \"" + net.address(i) + "\"\n");
          nodes.add(NodeProcess.start(net.launcher(i), "node-" + i, config));
        }
        system =
            ClusterExperiment.driverSystem(
                dir, common + "koala.node.host = \"" + net.hostAddress() + "\"\n");
        RunningWorkload run = RunningWorkload.start(system, nodes, w, WAIT);
        KoalaCluster driver = run.driver();
        JobHandle job = run.job();

        JobMetrics before = job.metrics();
        TaskId task = ClusterExperiment.aTask(before, ClusterWorkload.TARGET);
        int worker = before.placement().get(task);
        String address = driver.workerNodes().get(worker);
        int cut = nodeOf(address, net);
        net.isolate(cut);
        System.out.println(
            "cut off node-" + cut + " (" + address + "), which runs " + task + ", from the rest");

        ClusterExperiment.await(
            "node-" + cut + " downing itself and exiting", () -> !nodes.get(cut).alive());
        assertThat(nodes.get(cut).lines())
            .as("node-" + cut + "'s log: the split-brain resolver downed the minority, itself")
            .anyMatch(l -> l.contains("SBR took decision DownReachable"));
        assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
        JobMetrics after = job.metrics();
        assertThat(after.rollbacks()).as("rollbacks").isGreaterThanOrEqualTo(1);
        assertThat(after.tasksOnWorker(worker)).as("tasks on the node cut off").isEmpty();
        assertThat(ClusterExperiment.outputs(job)).isEqualTo(reference);
        System.out.println(
            "node-"
                + cut
                + " exited; rollbacks "
                + after.rollbacks()
                + "; output as the reference");
      } finally {
        ClusterExperiment.stop(system, nodes);
      }
    }
  }

  /** The node whose address {@code address} names. */
  private static int nodeOf(String address, NetworkNamespaces net) {
    for (int i = 0; i < 3; i++) {
      if (address.contains("@" + net.address(i) + ":")) {
        return i;
      }
    }
    throw new AssertionError(address + " is none of the nodes' addresses");
  }
}
