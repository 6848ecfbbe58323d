package io.koala.testkit;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.cluster.KoalaCluster;
import io.koala.cluster.LocalCluster;
import io.koala.dataflow.Dataflow;
import io.koala.runtime.JobHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that runs N Pekko Cluster nodes with Koala for a test class ({@link
 * LocalCluster}): register it on a static field, submit dataflows with {@link #submit}, and change
 * the membership under a running job with {@link #join}, {@link #leave} and {@link #down}.
 *
 * <pre>{@code
 * class MyClusterIT {
 *   @RegisterExtension
 *   static final KoalaClusterNodes nodes =
 *       KoalaClusterNodes.start(2, ConfigFactory.parseString("koala.cluster.scale-on-join = [count]"));
 *
 *   @Test
 *   void countsWhileANodeJoinsAndLeaves() {
 *     JobHandle job = nodes.submit(dataflow); // coordinated on node 0
 *     nodes.join();                           // node 2: "count" grows onto it
 *     nodes.leave(2);                         // its tasks move to nodes 0 and 1 first
 *     assertThat(job.await(Duration.ofMinutes(1))).isEqualTo(JobStatus.FINISHED);
 *   }
 * }
 * }</pre>
 *
 * <p>Each node is a {@link KoalaCluster} in an ActorSystem of its own, a cluster member over Artery
 * TCP on 127.0.0.1, with its data in a temporary directory the extension creates before the class's
 * first test and deletes after its last, when the nodes stop; the nodes share one checkpoint
 * directory there. They need no {@code application.conf}: {@link LocalCluster} sets what nodes
 * sharing a JVM need (JMX MBeans of their own, fast membership on loopback). Jobs a test submitted
 * through {@link #submit} and left running are cancelled after it; nodes it started, made leave or
 * downed stay so for the class's later tests.
 *
 * <p>Which to use: {@link KoalaNodes} (an embedded runtime's workers, each in its own ActorSystem)
 * starts faster and is enough for a dataflow's results across nodes and for reconfigurations asked
 * through the {@link JobHandle} (rescale, migrate); use this one for what cluster membership does —
 * a node that joins ({@code koala.cluster.scale-on-join}), leaves gracefully (its tasks moved off)
 * or is downed (its tasks recovered from checkpoints) — and for the node's own features (roles, the
 * HTTP endpoint, coordinators that fail over).
 *
 * <p>Thread-safe once started.
 */
public final class KoalaClusterNodes
    implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
  private final int initial;
  private final Config settings;
  private final SubmittedJobs jobs = new SubmittedJobs();
  private Path dir;
  private LocalCluster cluster;

  private KoalaClusterNodes(int initial, Config settings) {
    this.initial = initial;
    this.settings = settings;
  }

  /** {@code nodes} nodes with the application's configuration. */
  public static KoalaClusterNodes start(int nodes) {
    return start(nodes, ConfigFactory.empty());
  }

  /**
   * {@code nodes} nodes with {@code settings} over the application's configuration: {@code koala.*}
   * (for example {@code koala.cluster.scale-on-join}, {@code koala.checkpoint.interval}) and {@code
   * pekko.*}.
   */
  public static KoalaClusterNodes start(int nodes, Config settings) {
    if (nodes < 1) {
      throw new IllegalArgumentException("at least one node, got " + nodes);
    }
    return new KoalaClusterNodes(nodes, Objects.requireNonNull(settings, "settings"));
  }

  /**
   * The nodes, as {@link LocalCluster} numbers them.
   *
   * @throws IllegalStateException before the nodes started (outside the test class's run)
   */
  public synchronized LocalCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException(
          "the nodes run during their test class only; register KoalaClusterNodes with"
              + " @RegisterExtension on a static field");
    }
    return cluster;
  }

  /** Node {@code i}, numbered from 0 in the order the nodes started; see {@link LocalCluster}. */
  public KoalaCluster node(int i) {
    return cluster().node(i);
  }

  /** The nodes started, those that have left or been downed included. */
  public int size() {
    return cluster().size();
  }

  /**
   * Starts node {@link #size()}, and waits until it is Up and every node sees its worker; it
   * defines every dataflow submitted so far.
   */
  public KoalaCluster join() {
    return cluster().join();
  }

  /**
   * Node {@code i} leaves gracefully, its tasks moved off first (keyed ones by migration, the
   * others through a checkpoint and a restore, so only with {@code koala.checkpoint.interval});
   * waits until it has stopped.
   */
  public void leave(int i) {
    cluster().leave(i);
  }

  /**
   * Node {@code i} is downed, as after a crash: its tasks are recovered from checkpoints ({@code
   * koala.checkpoint.interval}); waits until it has stopped.
   */
  public void down(int i) {
    cluster().down(i);
  }

  /**
   * Defines {@code dataflow} on every node (and on those that join later) and submits it on the
   * lowest-numbered node in the cluster, which coordinates it: its job ends if that node leaves or
   * is downed, so a test changes the other nodes. The job is cancelled after the current test if it
   * still runs.
   *
   * @throws IllegalStateException when no node is in the cluster
   */
  public synchronized JobHandle submit(Dataflow dataflow) {
    LocalCluster nodes = cluster();
    List<Integer> members = nodes.members();
    if (members.isEmpty()) {
      throw new IllegalStateException(
          "no node to submit " + dataflow.name() + " on: all " + nodes.size() + " have gone");
    }
    nodes.define(dataflow);
    return jobs.add(nodes.node(members.get(0)).submit(dataflow));
  }

  @Override
  public synchronized void beforeAll(ExtensionContext context) throws IOException {
    if (cluster != null) {
      return;
    }
    dir = Files.createTempDirectory("koala-cluster-nodes-");
    try {
      cluster = LocalCluster.start(initial, dir, settings);
    } catch (RuntimeException e) {
      delete(dir);
      dir = null;
      throw e;
    }
  }

  @Override
  public synchronized void afterEach(ExtensionContext context) {
    jobs.closeAll();
  }

  @Override
  public synchronized void afterAll(ExtensionContext context) {
    if (cluster == null) {
      return;
    }
    try {
      afterEach(context);
    } finally {
      try {
        cluster.close();
      } finally {
        cluster = null;
        delete(dir);
        dir = null;
      }
    }
  }

  @Override
  public synchronized String toString() {
    return "KoalaClusterNodes("
        + (cluster == null ? initial + ", stopped)" : cluster.members() + " running)");
  }

  private static void delete(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the nodes' directory " + root, e);
    }
  }
}
