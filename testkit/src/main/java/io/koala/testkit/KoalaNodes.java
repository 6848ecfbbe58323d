package io.koala.testkit;

import io.koala.dataflow.Dataflow;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.util.Objects;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that runs an embedded {@link KoalaRuntime} with N nodes for a test class:
 * register it on a static field, submit dataflows with {@link #submit}, and reconfigure them
 * through their {@link JobHandle}s.
 *
 * <pre>{@code
 * class MyDataflowIT {
 *   @RegisterExtension static final KoalaNodes nodes = KoalaNodes.start(3);
 *
 *   @Test
 *   void countsWhileRescaling() {
 *     JobHandle job = nodes.submit(dataflow);
 *     job.rescale("count", 6).toCompletableFuture().join();
 *     assertThat(job.await(Duration.ofMinutes(1))).isEqualTo(JobStatus.FINISHED);
 *   }
 * }
 * }</pre>
 *
 * <p>A node here is an in-JVM worker of the embedded runtime with its own ActorSystem, state
 * directory and LMDB stores, connected to the others over Artery TCP on 127.0.0.1, so every message
 * between nodes is serialized as it would be between machines ({@code koala.worker-systems =
 * separate}). The nodes start before the class's first test and stop after its last; jobs a test
 * submitted through {@link #submit} and left running are cancelled after it.
 *
 * <p>Which to use: these nodes are not Pekko Cluster members, and are the same from the first test
 * to the last; they start faster and are enough for a dataflow's results across nodes and for
 * reconfigurations asked through the {@link JobHandle} (rescale, migrate). For what membership does
 * — a node that joins, leaves gracefully or is downed under a running job — and for a cluster
 * node's own features, use {@link KoalaClusterNodes}.
 *
 * <p>Thread-safe once started.
 */
public final class KoalaNodes implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
  private final KoalaConfig config;
  private final SubmittedJobs jobs = new SubmittedJobs();
  private KoalaRuntime runtime;

  private KoalaNodes(KoalaConfig config) {
    this.config = config;
  }

  /** {@code nodes} nodes with the application's configuration ({@code KoalaConfig.load()}). */
  public static KoalaNodes start(int nodes) {
    return start(nodes, KoalaConfig.load());
  }

  /** {@code nodes} nodes with {@code config}, each worker in its own ActorSystem. */
  public static KoalaNodes start(int nodes, KoalaConfig config) {
    if (nodes < 1) {
      throw new IllegalArgumentException("at least one node, got " + nodes);
    }
    return new KoalaNodes(
        Objects.requireNonNull(config, "config").withWorkers(nodes).withSeparateSystems(true));
  }

  /** The number of nodes. */
  public int size() {
    return config.workers();
  }

  /**
   * The runtime the nodes form.
   *
   * @throws IllegalStateException before the nodes started (outside the test class's run)
   */
  public synchronized KoalaRuntime runtime() {
    if (runtime == null) {
      throw new IllegalStateException(
          "the nodes run during their test class only; register KoalaNodes with @RegisterExtension"
              + " on a static field");
    }
    return runtime;
  }

  /** Submits {@code dataflow}; the job is cancelled after the current test if it still runs. */
  public synchronized JobHandle submit(Dataflow dataflow) {
    return jobs.add(runtime().submit(dataflow));
  }

  @Override
  public synchronized void beforeAll(ExtensionContext context) {
    if (runtime == null) {
      runtime = KoalaRuntime.embedded(config);
    }
  }

  @Override
  public synchronized void afterEach(ExtensionContext context) {
    jobs.closeAll();
  }

  @Override
  public synchronized void afterAll(ExtensionContext context) {
    afterEach(context);
    if (runtime != null) {
      runtime.close();
      runtime = null;
    }
  }

  @Override
  public String toString() {
    return "KoalaNodes(" + size() + (runtime == null ? ", stopped)" : ", running)");
  }
}
