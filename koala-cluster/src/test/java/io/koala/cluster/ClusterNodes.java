package io.koala.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.dataflow.Dataflow;
import io.koala.runtime.KoalaConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * Cluster nodes in this JVM for tests: each an ActorSystem of its own with Pekko Cluster over
 * Artery TCP on 127.0.0.1 and Koala on it, its own data directory, all sharing one checkpoint
 * directory (as nodes share checkpoint storage).
 */
final class ClusterNodes implements AutoCloseable {
  private final Path dir;
  private final String extra;
  private final List<Dataflow> dataflows;
  private final List<KoalaCluster> nodes = new ArrayList<>();

  ClusterNodes(Path dir, String extra, Dataflow... dataflows) {
    this.dir = dir;
    this.extra = extra;
    this.dataflows = List.of(dataflows);
  }

  /** Starts a node, joins it to the first (or makes it the first), defines the dataflows. */
  KoalaCluster start() {
    return start("");
  }

  /**
   * Starts a node with {@code settings} over the nodes' common ones, joins it to the first (or
   * makes it the first), defines the dataflows, and waits until it is Up and every node sees every
   * node's worker.
   */
  KoalaCluster start(String settings) {
    KoalaCluster node = launch(settings);
    ActorSystem<Void> s = node.system();
    int i = nodes.size() - 1;
    await("node " + i + " Up", Duration.ofSeconds(30), () -> up(s) == nodes.size());
    for (KoalaCluster n : nodes) {
      await(
          "every node sees " + nodes.size() + " workers",
          Duration.ofSeconds(30),
          () -> n.workers() == nodes.size());
    }
    return node;
  }

  /**
   * Starts a node as {@link #start(String)} does and tells it to join the first, without waiting
   * for it to be let in; {@link #close} stops it with the others.
   */
  KoalaCluster launch(String settings) {
    int i = nodes.size();
    Config config =
        ConfigFactory.parseString(settings)
            .withFallback(ConfigFactory.parseString(extra))
            .withFallback(
                ConfigFactory.parseString(
                    "koala.node.port = 0\n"
                        + "koala.data-dir = \""
                        + dir.resolve("node-" + i).toAbsolutePath()
                        + "\"\n"
                        + "koala.checkpoint.directory = \""
                        + dir.resolve("checkpoints").toAbsolutePath()
                        + "\"\n"))
            .withFallback(ConfigFactory.load());
    Config system = KoalaCluster.systemConfig(config);
    ActorSystem<Void> s = ActorSystem.create(Behaviors.empty(), "koala", system);
    KoalaCluster node = KoalaCluster.start(s, KoalaConfig.from(system));
    node.define(dataflows.toArray(Dataflow[]::new));
    ActorSystem<Void> first = nodes.isEmpty() ? s : nodes.get(0).system();
    Cluster.get(s).manager().tell(Join.create(Cluster.get(first).selfMember().address()));
    nodes.add(node);
    return node;
  }

  KoalaCluster node(int i) {
    return nodes.get(i);
  }

  /** Members of the cluster that {@code system} sees Up. */
  static long up(ActorSystem<?> system) {
    return java.util.stream.StreamSupport.stream(
            Cluster.get(system).state().getMembers().spliterator(), false)
        .filter(m -> m.status() == MemberStatus.up())
        .count();
  }

  static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }

  /**
   * Checks {@code condition} throughout {@code period}, failing as soon as it does not hold: for
   * what must not happen, where there is no event to wait for.
   */
  static void holdsFor(String what, Duration period, BooleanSupplier condition) {
    long end = System.nanoTime() + period.toNanos();
    do {
      if (!condition.getAsBoolean()) {
        throw new AssertionError("no longer true within " + period + ": " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    } while (System.nanoTime() < end);
  }

  @Override
  public void close() {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      ActorSystem<Void> s = nodes.get(i).system();
      s.terminate();
      s.getWhenTerminated().toCompletableFuture().orTimeout(60, TimeUnit.SECONDS).join();
    }
  }
}
