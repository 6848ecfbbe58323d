package io.koala.bench.cluster;

import io.koala.cli.NodeProcess;
import io.koala.cluster.KoalaCluster;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.samples.cluster.ClusterWorkload;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The {@link ClusterWorkload} running on node processes, with this JVM's member as the one that
 * coordinates it: what the tests that then break a node start from.
 *
 * @param driver this JVM's member
 * @param job the workload's job, a fifth of its input counted
 */
record RunningWorkload(KoalaCluster driver, JobHandle job) {

  /**
   * Waits until {@code nodes} are Up, starts the member of {@code system}, waits until it sees
   * their workers, submits {@code w} and waits until a fifth of its input is counted.
   */
  static RunningWorkload start(
      ActorSystem<Void> system, List<NodeProcess> nodes, ClusterWorkload w, Duration wait) {
    for (NodeProcess n : nodes) {
      n.awaitUp(wait);
    }
    KoalaCluster driver = KoalaCluster.start(system, KoalaConfig.from(system.settings().config()));
    ClusterExperiment.await(nodes.size() + " workers", () -> driver.workers() == nodes.size());
    JobHandle job = driver.submit(w.dataflow());
    ClusterExperiment.await(
        job,
        "a fifth of the input",
        () -> job.metrics().recordsIn(ClusterWorkload.TARGET) > w.records() / 5);
    return new RunningWorkload(driver, job);
  }
}
