package io.koala.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.KoalaException;
import io.koala.dataflow.Dataflow;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.internal.TerminationReport;
import io.koala.time.DurationText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.apache.pekko.cluster.typed.Join;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster nodes in this JVM, for tests and demos: each node an ActorSystem of its own, a Pekko
 * Cluster member over Artery TCP on 127.0.0.1 (any free port) with Koala on it ({@link
 * KoalaCluster}), so every message between nodes is serialized as between machines. Node {@code i}
 * keeps its data in {@code <dir>/node-<i>}; all share the checkpoint directory {@code
 * <dir>/checkpoints}, as the nodes of a deployment share checkpoint storage. Every node defines the
 * cluster's dataflows.
 *
 * <pre>{@code
 * try (LocalCluster cluster = LocalCluster.start(2, dir, ConfigFactory.empty(), orders)) {
 *   JobHandle job = cluster.node(0).submit(orders);
 *   cluster.join();   // node 2: Up, and its worker seen by every node
 *   cluster.leave(2); // what runs on it moves to nodes 0 and 1 first
 *   job.await(Duration.ofMinutes(1));
 * }
 * }</pre>
 *
 * <p>Nodes are numbered from 0 in the order they started and keep their number once they have left
 * or been downed; a node joins through the lowest-numbered node still in the cluster. A node's
 * settings are, strongest first: its own ({@link #join(Config)}), the cluster's ({@link #start}),
 * its place (host 127.0.0.1, port 0, no seed nodes, the directories above), the application's
 * configuration (system properties, {@code application.conf}), and the defaults of nodes that share
 * a JVM and the loopback interface: each node's cluster JMX MBean under a name of its own ({@code
 * pekko.cluster.jmx.multi-mbeans-in-same-jvm = on}, so no warning that it is registered already),
 * no JVM shutdown hook, and gossip, leader actions and heartbeats every 200 ms with a pause of 2 s
 * accepted. Whatever the settings say, no node's shutdown exits the JVM; and since Pekko 1.x lets a
 * stalled remoting stream keep a terminating node from terminating for good, a node's remoting is
 * told to go on 12 s after its {@code actor-system-terminate} phase began (Pekko 2 bounds that wait
 * at 10 s).
 *
 * <p>Unlike the separate worker systems of an embedded {@code KoalaRuntime}, these nodes are
 * cluster members: a node that joins comes Up and takes tasks (with {@code
 * koala.cluster.scale-on-join}), one that leaves has its tasks moved off first, one that is downed
 * has them recovered from checkpoints. A job is coordinated on the node it was submitted on (with
 * each node's own journal, the default file store) and ends with it.
 *
 * <p>Thread-safe: the methods are synchronized, so one node starts, leaves or is downed at a time.
 * Their waits are bounded; one that runs out throws a {@link KoalaException} saying what did not
 * happen. When a node's ActorSystem did not terminate in time, the actors still alive in it and the
 * JVM's threads that may hold them up are logged.
 */
public final class LocalCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

  /** How long a node may take to come Up and be seen by every node, or to be removed. */
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Under the application's configuration: what nodes sharing a JVM and loopback want. */
  private static final Config LOOPBACK =
      ConfigFactory.parseString(
          """
          pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
          pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off
          pekko.cluster.gossip-interval = 200 ms
          pekko.cluster.leader-actions-interval = 200 ms
          pekko.cluster.unreachable-nodes-reaper-interval = 250 ms
          pekko.cluster.failure-detector.heartbeat-interval = 200 ms
          pekko.cluster.failure-detector.acceptable-heartbeat-pause = 2 s
          pekko.cluster.distributed-data.gossip-interval = 200 ms
          pekko.cluster.typed.receptionist.distributed-data.gossip-interval = 200 ms
          """);

  /** Over every setting: a node that leaves or is downed must not end the JVM the others run in. */
  private static final Config FORCED =
      ConfigFactory.parseString("pekko.coordinated-shutdown.exit-jvm = off");

  private final Path dir;
  private final Config settings;
  private final Map<String, Dataflow> dataflows = new LinkedHashMap<>();
  private final List<KoalaCluster> nodes = new ArrayList<>();

  /** Why a node is out of the cluster ("left", "was downed", "was stopped"), by its number. */
  private final Map<Integer, String> gone = new HashMap<>();

  private LocalCluster(Path dir, Config settings, Dataflow[] dataflows) {
    this.dir = Objects.requireNonNull(dir, "dir").toAbsolutePath();
    try {
      Files.createDirectories(this.dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the nodes' directory " + this.dir, e);
    }
    this.settings = Objects.requireNonNull(settings, "settings");
    define(dataflows);
  }

  /**
   * Starts {@code nodes} nodes (0: none yet; {@link #join} starts them) with {@code settings} over
   * the defaults above, each defining {@code dataflows}, and waits until every one is Up and sees
   * every node's worker.
   *
   * @param dir where the nodes keep their data and checkpoints; created when missing, not deleted
   * @throws KoalaException when a node did not join in time (the started ones are stopped)
   * @throws io.koala.runtime.ConfigurationException naming the first invalid setting
   */
  public static LocalCluster start(int nodes, Path dir, Config settings, Dataflow... dataflows) {
    if (nodes < 0) {
      throw new IllegalArgumentException("a cluster of " + nodes + " nodes; start 0 or more");
    }
    LocalCluster cluster = new LocalCluster(dir, settings, dataflows);
    try {
      for (int i = 0; i < nodes; i++) {
        cluster.join();
      }
    } catch (RuntimeException e) {
      try {
        cluster.close();
      } catch (RuntimeException stop) {
        e.addSuppressed(stop);
      }
      throw e;
    }
    return cluster;
  }

  /** Starts a node with the cluster's settings; see {@link #join(Config)}. */
  public KoalaCluster join() {
    return join(ConfigFactory.empty());
  }

  /**
   * Starts node {@link #size()} with {@code nodeSettings} over the cluster's, has it define the
   * dataflows and join through the lowest-numbered node in the cluster (or form the cluster when
   * there is none), and waits until it is Up and every node in the cluster sees every member Up and
   * every member's worker.
   *
   * @throws KoalaException when that takes longer than a minute (the node stays, and {@link #close}
   *     stops it)
   * @throws io.koala.runtime.ConfigurationException naming the first invalid setting
   */
  public synchronized KoalaCluster join(Config nodeSettings) {
    KoalaCluster node = launch(nodeSettings);
    int i = nodes.size() - 1;
    List<Integer> members = members();
    long workers = members.stream().filter(m -> runsWorker(nodes.get(m))).count();
    for (int m : members) {
      KoalaCluster n = nodes.get(m);
      await(
          () -> up(n.system()) == members.size() && n.workers() == workers,
          WAIT,
          () ->
              "node "
                  + i
                  + " to join: node "
                  + m
                  + " sees "
                  + up(n.system())
                  + " members Up and "
                  + n.workers()
                  + " workers, not "
                  + members.size()
                  + " and "
                  + workers);
    }
    return node;
  }

  /**
   * Starts node {@link #size()} as {@link #join(Config)} does and tells it to join, without waiting
   * for it to be let in: for a node that must not get in. A later {@link #join} waits for it too.
   */
  synchronized KoalaCluster launch(Config nodeSettings) {
    int i = nodes.size();
    Config config =
        FORCED
            .withFallback(Objects.requireNonNull(nodeSettings, "nodeSettings"))
            .withFallback(settings)
            .withFallback(
                ConfigFactory.parseMap(
                    Map.of(
                        "koala.node.host", "127.0.0.1",
                        "koala.node.port", 0,
                        "koala.node.seed-nodes", List.of(),
                        "koala.data-dir", dir.resolve("node-" + i).toString(),
                        "koala.checkpoint.directory", dir.resolve("checkpoints").toString())))
            .withFallback(ConfigFactory.defaultOverrides())
            .withFallback(ConfigFactory.defaultApplication())
            .withFallback(LOOPBACK);
    Config system = KoalaCluster.systemConfig(config);
    ActorSystem<Void> s =
        ActorSystem.create(Behaviors.empty(), system.getString("koala.node.system-name"), system);
    RemotingShutdownDeadline.install(s);
    KoalaCluster node;
    try {
      node = KoalaCluster.start(s, KoalaConfig.from(system));
      node.define(dataflows.values().toArray(Dataflow[]::new));
    } catch (RuntimeException e) {
      s.terminate();
      throw e;
    }
    List<Integer> members = members();
    ActorSystem<Void> seed = members.isEmpty() ? s : nodes.get(members.get(0)).system();
    Cluster.get(s).manager().tell(Join.create(Cluster.get(seed).selfMember().address()));
    nodes.add(node);
    return node;
  }

  /**
   * Node {@code i} leaves gracefully ({@link KoalaCluster#leave}): every job moves its tasks off it
   * first (keyed tasks by migration, the others through a checkpoint and a restore). Waits until
   * its ActorSystem has terminated and no other node counts it a member; as long as the node's
   * {@code before-cluster-shutdown} phase may take (longer than {@code
   * koala.cluster.leave-timeout}), and a minute more.
   *
   * @throws IllegalStateException when node {@code i} is out of the cluster already
   * @throws KoalaException when the node did not leave in time
   */
  public synchronized void leave(int i) {
    KoalaCluster node = member(i, "leave");
    Address address = address(node);
    node.leave();
    gone.put(i, "left");
    awaitStopped(i, node, "leave");
    awaitRemoved(i, address);
  }

  /**
   * Downs node {@code i} from another node, as the split-brain resolver downs a member unreachable
   * for {@code koala.node.down-unreachable-after}: its tasks are not moved off but recovered from
   * their jobs' latest checkpoints on the other nodes, as after a crash, and the jobs coordinated
   * on it end (unless their coordinators fail over: see {@link KoalaCluster}). The node, still
   * running until it learns it was downed, then stops. Waits until its ActorSystem has terminated
   * and no other node counts it a member.
   *
   * @throws IllegalStateException when node {@code i} is out of the cluster already, or no other
   *     node is in it
   * @throws KoalaException when the node was not stopped and removed in time
   */
  public synchronized void down(int i) {
    KoalaCluster node = member(i, "be downed");
    int by =
        members().stream()
            .filter(m -> m != i)
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "node " + i + " cannot be downed: no other node is in the cluster"));
    Address address = address(node);
    Cluster.get(nodes.get(by).system()).manager().tell(new Down(address));
    gone.put(i, "was downed");
    awaitStopped(i, node, "be downed and stop");
    awaitRemoved(i, address);
  }

  /**
   * Node {@code i}, in the cluster or not ({@link #members}).
   *
   * @throws IndexOutOfBoundsException when no node {@code i} has started
   */
  public synchronized KoalaCluster node(int i) {
    if (i < 0 || i >= nodes.size()) {
      throw new IndexOutOfBoundsException(
          "no node "
              + i
              + (nodes.isEmpty()
                  ? ": none has started"
                  : ": nodes 0.." + (nodes.size() - 1) + " have started"));
    }
    return nodes.get(i);
  }

  /**
   * The nodes started, those that have left or been downed included: the next {@link #join} starts
   * node {@code size()}.
   */
  public synchronized int size() {
    return nodes.size();
  }

  /**
   * The numbers of the nodes in the cluster now, lowest first: started, and neither left, downed
   * nor stopped otherwise (their ActorSystem terminated).
   */
  public synchronized List<Integer> members() {
    List<Integer> members = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (!gone.containsKey(i) && !nodes.get(i).system().whenTerminated().isCompleted()) {
        members.add(i);
      }
    }
    return members;
  }

  /**
   * Defines {@code more} on every node in the cluster and on the nodes that join later; a dataflow
   * of a name defined already replaces that one, for jobs submitted from then on.
   */
  public synchronized void define(Dataflow... more) {
    for (Dataflow d : more) {
      dataflows.put(Objects.requireNonNull(d, "dataflow").name(), d);
    }
    for (int m : members()) {
      nodes.get(m).define(more);
    }
  }

  /**
   * Stops every node, the last started first, as a JVM shutdown would (each node's jobs move its
   * tasks to the nodes still running); waits until every ActorSystem has terminated.
   *
   * @throws KoalaException when a node did not stop in time (the others are stopped all the same)
   */
  @Override
  public synchronized void close() {
    RuntimeException failure = null;
    for (int i = nodes.size() - 1; i >= 0; i--) {
      KoalaCluster node = nodes.get(i);
      node.system().terminate();
      gone.putIfAbsent(i, "was stopped");
      try {
        awaitStopped(i, node, "stop");
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public synchronized String toString() {
    return "LocalCluster(" + dir + ", members " + members() + " of " + nodes.size() + ")";
  }

  /**
   * Waits until {@code condition} holds, looking every 20 ms.
   *
   * @throws KoalaException naming {@code what} when it does not within {@code timeout}
   */
  static void await(String what, Duration timeout, BooleanSupplier condition) {
    await(condition, timeout, () -> what);
  }

  /** Members of the cluster that {@code system} sees Up. */
  static long up(ActorSystem<?> system) {
    return StreamSupport.stream(Cluster.get(system).state().getMembers().spliterator(), false)
        .filter(m -> m.status() == MemberStatus.up())
        .count();
  }

  private static void await(BooleanSupplier condition, Duration timeout, Supplier<String> what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new KoalaException(
            "timed out after " + DurationText.of(timeout) + " waiting for " + what.get());
      }
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }

  /** Node {@code i}, which must be in the cluster to {@code action}. */
  private KoalaCluster member(int i, String action) {
    KoalaCluster node = node(i);
    String why = gone.get(i);
    if (why == null && node.system().whenTerminated().isCompleted()) {
      why = "has stopped";
    }
    if (why != null) {
      throw new IllegalStateException(
          "node " + i + " cannot " + action + ": it " + why + " already; members: " + members());
    }
    return node;
  }

  /**
   * Waits until the ActorSystem of node {@code i} has terminated: as long as its {@code
   * before-cluster-shutdown} phase may take (Koala's leave) and {@link #WAIT} more for the rest.
   */
  private static void awaitStopped(int i, KoalaCluster node, String action) {
    ActorSystem<Void> s = node.system();
    Duration limit =
        s.settings()
            .config()
            .getDuration("pekko.coordinated-shutdown.phases.before-cluster-shutdown.timeout")
            .plus(WAIT);
    try {
      s.getWhenTerminated().toCompletableFuture().get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      String what = "node " + i + " did not " + action + " within " + DurationText.of(limit);
      TerminationReport why = TerminationReport.of(s);
      LOG.error("{}; {}", what, why.details());
      throw new KoalaException(
          what + "; " + why.summary() + " (its actors and the threads are logged)", e);
    } catch (ExecutionException e) {
      throw new KoalaException(
          "node " + i + " did not " + action + ": " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KoalaException("interrupted while node " + i + " was to " + action, e);
    }
  }

  /** Waits until no node in the cluster counts node {@code i} (at {@code address}) a member. */
  private void awaitRemoved(int i, Address address) {
    for (int m : members()) {
      ActorSystem<Void> s = nodes.get(m).system();
      await(
          () -> !isMember(s, address),
          WAIT,
          () -> "node " + m + " to remove node " + i + " (" + address + ") from its members");
    }
  }

  private static boolean isMember(ActorSystem<?> system, Address address) {
    return StreamSupport.stream(Cluster.get(system).state().getMembers().spliterator(), false)
        .anyMatch(member -> member.address().equals(address));
  }

  private static Address address(KoalaCluster node) {
    return Cluster.get(node.system()).selfMember().address();
  }

  private static boolean runsWorker(KoalaCluster node) {
    return node.system().settings().config().getBoolean("koala.node.worker");
  }
}
