package io.koala.samples.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.cluster.KoalaCluster;
import io.koala.runtime.ConfigurationException;
import io.koala.runtime.KoalaConfig;
import io.koala.samples.cluster.ClusterWorkload;
import io.koala.samples.cluster.NodeProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code koala node --config FILE}: starts a Koala cluster node ({@link KoalaCluster}) from a HOCON
 * file and runs until it is stopped. SIGTERM (or Ctrl-C) leaves the cluster gracefully: the jobs
 * move the node's tasks to the others first. The node defines the {@link ClusterWorkload} of {@code
 * koala.node.workload} when the file has one.
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description = {
      "Starts a Koala cluster node and runs until stopped; SIGTERM leaves gracefully (the jobs move"
          + " its tasks to the other nodes first).",
      "The file sets koala.node.host, port, seed-nodes, roles, koala.data-dir, and any other koala"
          + " or pekko setting (see koala-cluster's reference.conf)."
    })
final class NodeCommand implements Callable<Integer> {

  @Option(names = "--config", required = true, description = "The node's HOCON file.")
  Path config;

  @Override
  public Integer call() {
    if (!Files.isReadable(config)) {
      throw new ConfigurationException("--config " + config + ": no such readable file");
    }
    Config file = ConfigFactory.parseFile(config.toFile());
    Config system =
        KoalaCluster.systemConfig(
            file.withFallback(
                    ConfigFactory.parseString(
                        // a process per node: a downed node exits, SIGTERM leaves gracefully
                        "pekko.coordinated-shutdown.exit-jvm = on\n"
                            + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = on\n"))
                .withFallback(ConfigFactory.load()));
    ActorSystem<Void> s =
        ActorSystem.create(Behaviors.empty(), system.getString("koala.node.system-name"), system);
    KoalaCluster node = KoalaCluster.start(s, KoalaConfig.from(system));
    if (system.hasPath("koala.node.workload")) {
      node.define(ClusterWorkload.from(system).dataflow());
    }
    org.apache.pekko.cluster.Cluster.get(s)
        .registerOnMemberUp(() -> System.out.println(NodeProcess.UP + s.address()));
    org.apache.pekko.actor.CoordinatedShutdown.get(s)
        .addTask(
            org.apache.pekko.actor.CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
            "koala-node-report",
            () -> {
              System.out.println(NodeProcess.STOPPED + node.remotingDrops());
              System.out.flush();
              return java.util.concurrent.CompletableFuture.completedFuture(
                  org.apache.pekko.Done.getInstance());
            });
    s.getWhenTerminated().toCompletableFuture().join();
    return 0;
  }
}
