package io.koala.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.KoalaException;
import io.koala.dataflow.Dataflow;
import io.koala.runtime.ConfigurationException;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.SubmitOptions;
import io.koala.runtime.internal.ActorRuntime;
import io.koala.runtime.internal.HostSettings;
import io.koala.runtime.internal.NodeRuntime;
import io.koala.runtime.internal.NodeRuntime.ClusterJob;
import io.koala.runtime.internal.SystemSettings;
import io.koala.runtime.internal.journal.JournalConfig;
import io.koala.time.DurationText;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Koala on a node of a Pekko cluster. Every node runs a worker; the jobs submitted on a node are
 * coordinated there and place their tasks on every member's worker:
 *
 * <ul>
 *   <li>a member that comes Up takes tasks from then on, and with {@code
 *       koala.cluster.scale-on-join} the named operators are rescaled onto it;
 *   <li>a member that leaves gracefully — {@link #leave}, {@code CoordinatedShutdown}, or a JVM
 *       shutdown with the node configuration — first has every job move its tasks off, in the
 *       {@code before-cluster-shutdown} phase, within {@code koala.cluster.leave-timeout}: keyed
 *       tasks by migration (their state drained with a forced full transfer), the others by a
 *       checkpoint and a restore elsewhere;
 *   <li>a member that is downed (the split-brain resolver downs one unreachable for {@code
 *       koala.node.down-unreachable-after}) has its tasks recovered from the job's latest
 *       checkpoint on the remaining members.
 * </ul>
 *
 * <p>A dataflow's operators are code, so every node that may host its tasks {@link #define defines}
 * it (the same dataflow, by name); the job's id is the dataflow's name. Checkpoints need storage
 * every node reads at the same path ({@code koala.checkpoint.directory}).
 *
 * <pre>{@code
 * Config config = KoalaCluster.systemConfig(ConfigFactory.parseFile(file));
 * ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "koala", config);
 * KoalaCluster koala = KoalaCluster.start(system, KoalaConfig.from(config));
 * koala.define(orders);                      // on every node
 * JobHandle job = koala.submit(orders);      // on one node
 * }</pre>
 *
 * <p>{@link LocalCluster} starts such nodes in one JVM, for tests and demos, and makes them join,
 * leave and be downed.
 *
 * <p><b>Where a job is coordinated.</b> With checkpoints on and a checkpoint journal every node
 * shares ({@code koala.journal.store = jdbc}, for example on PostgreSQL), a job's coordinator is a
 * Cluster Sharding entity keyed by the job's id, on a member with {@code
 * koala.cluster.coordinator-role} (any member when empty), remembered in that journal: when its
 * node leaves or is downed, it starts again on another such member and resumes the job from the
 * journal's latest checkpoint, as after a failure. A job id then names one run: once the job has
 * ended, submitting its dataflow again fails (give it another name). With each node's own journal
 * (the default {@code file} store, or {@code embedded}), a job is coordinated on the node it was
 * submitted on and ends with it.
 */
public final class KoalaCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KoalaCluster.class);

  /** The host of a seed node: a host name, an IPv4 address, or an IPv6 address in brackets. */
  private static final Pattern HOST =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*|\\[[0-9A-Fa-f:.]+]");

  private final ActorSystem<Void> system;
  private final NodeRuntime node;
  private final Duration leaveTimeout;
  private final AtomicLong remotingDrops = new AtomicLong();
  private final ClusterJobs jobs;
  private final NodeEndpoint endpoint; // null: koala.node.http.port = off
  private volatile boolean leaving;

  private KoalaCluster(ActorSystem<Void> system, KoalaConfig config) {
    this.system = system;
    Config c = config.underlying();
    this.leaveTimeout = leaveTimeout(c);
    String provider = system.settings().config().getString("pekko.actor.provider");
    if (!provider.equals("cluster") && !provider.endsWith("ClusterActorRefProvider")) {
      throw new ConfigurationException(
          "pekko.actor.provider is \""
              + provider
              + "\"; Koala on a cluster needs \"cluster\" (KoalaCluster.systemConfig sets it)");
    }
    String phase = "pekko.coordinated-shutdown.phases.before-cluster-shutdown.timeout";
    Duration phaseTimeout = system.settings().config().getDuration(phase);
    if (phaseTimeout.compareTo(leaveTimeout) <= 0) {
      throw new ConfigurationException(
          phase
              + " ("
              + DurationText.of(phaseTimeout)
              + ") must be longer than koala.cluster.leave-timeout ("
              + DurationText.of(leaveTimeout)
              + "), or a leaving node stops before its tasks have moved");
    }
    Http http = http(c);
    LOG.info("node {}: Koala's effective configuration: {}", system.address(), config.render());
    this.node = NodeRuntime.start(system, config, runsTasks(c));
    this.jobs = new ClusterJobs(node, this::isMember);
    try {
      this.endpoint =
          http == null
              ? null
              : NodeEndpoint.start(
                  node.core(),
                  jobs,
                  this::workerNodes,
                  this::notReady,
                  () -> !system.whenTerminated().isCompleted(),
                  http.adminToken(),
                  http.host(),
                  http.port());
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
    if (endpoint != null) {
      var registry = endpoint.registry();
      io.micrometer.core.instrument.FunctionCounter.builder(
              "koala.node.remoting.drops", remotingDrops, AtomicLong::get)
          .description("messages remoting dropped because an outbound queue overflowed")
          .register(registry);
      io.micrometer.core.instrument.Gauge.builder("koala.node.workers", this, KoalaCluster::workers)
          .description("workers jobs coordinated here can place tasks on")
          .register(registry);
      LOG.info(
          "node {}: HTTP endpoint (/metrics, /health, /ready, /jobs) on {}:{}",
          system.address(),
          http.host(),
          endpoint.port());
    }
    // Artery drops a message when an outbound queue overflows, and publishes it as Dropped
    ActorRef<Dropped> drops =
        system.systemActorOf(
            Behaviors.receive(Dropped.class)
                .onMessage(
                    Dropped.class,
                    d -> {
                      if (d.reason().contains("overflow")) {
                        remotingDrops.incrementAndGet();
                      }
                      return Behaviors.same();
                    })
                .build(),
            "koala-remoting-drops",
            Props.empty());
    system.eventStream().tell(new EventStream.Subscribe<>(Dropped.class, drops));
    CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
    shutdown.addTask(
        CoordinatedShutdown.PhaseBeforeClusterShutdown(), "koala-leave", this::drainOnShutdown);
    shutdown.addTask(
        CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
        "koala-stop",
        () -> {
          close();
          return CompletableFuture.completedFuture(Done.getInstance());
        });
  }

  /**
   * Starts Koala on the node of {@code system}, an ActorSystem with Pekko Cluster's provider and
   * Koala's settings ({@link #systemConfig}), which joins (or has joined) the cluster.
   *
   * @throws ConfigurationException naming the first invalid setting
   */
  public static KoalaCluster start(ActorSystem<?> system, KoalaConfig config) {
    @SuppressWarnings("unchecked")
    ActorSystem<Void> s = (ActorSystem<Void>) Objects.requireNonNull(system, "system");
    return new KoalaCluster(s, Objects.requireNonNull(config, "config"));
  }

  /**
   * The configuration of a node's ActorSystem from {@code config} (an application's, or a node
   * file's), over Koala's and Pekko's defaults: Pekko Cluster over Artery TCP (TLS with {@code
   * koala.remote.tls}) at {@code koala.node.host}:{@code koala.node.port}, joining {@code
   * koala.node.seed-nodes}, the split-brain resolver (keep-majority) downing a member unreachable
   * for {@code koala.node.down-unreachable-after}, Koala's serializer with Java serialization off,
   * the {@code before-cluster-shutdown} phase long enough for {@code koala.cluster.leave-timeout},
   * and with checkpoints the checkpoint-metadata journal. None overrides a setting {@code config}
   * makes: where the application chose otherwise, its logging, Java serialization and downing
   * choices are kept, so are a larger frame size and a longer phase, and any other difference fails
   * with the setting's path (for example {@code pekko.cluster.seed-nodes}: set {@code
   * koala.node.seed-nodes} instead). The rest of {@code config} is kept.
   *
   * @throws ConfigurationException naming the first invalid setting, or every Pekko setting of
   *     {@code config} that Koala cannot run with
   */
  public static Config systemConfig(Config config) {
    Config c = config.withFallback(ConfigFactory.defaultReference()).resolve();
    KoalaConfig koala = KoalaConfig.from(c); // validates koala.*
    String name = string(c, "koala.node.system-name");
    if (!name.matches("[A-Za-z0-9][A-Za-z0-9_-]*")) {
      throw new ConfigurationException(
          "koala.node.system-name = \"" + name + "\" is invalid; use letters, digits, - and _");
    }
    String host = string(c, "koala.node.host");
    if (host.isBlank()) {
      throw new ConfigurationException(
          "koala.node.host is empty; it must be the address other nodes reach this node at");
    }
    int port = port(c, "koala.node.port");
    http(c); // validated here too, so that a node fails before its ActorSystem starts
    StringBuilder s = new StringBuilder(SystemSettings.basePekkoSettings());
    s.append("pekko.actor.provider = cluster\n");
    s.append("pekko.cluster.seed-nodes = [");
    String sep = "";
    for (String seed : list(c, "koala.node.seed-nodes")) {
      s.append(sep).append(quote("pekko://" + name + "@" + hostPort(seed)));
      sep = ", ";
    }
    s.append("]\n");
    s.append("pekko.cluster.roles = [");
    sep = "";
    for (String role : list(c, "koala.node.roles")) {
      s.append(sep).append(quote(role));
      sep = ", ";
    }
    s.append("]\n");
    Duration down = duration(c, "koala.node.down-unreachable-after");
    if (down.isNegative() || down.isZero()) {
      throw new ConfigurationException(
          "koala.node.down-unreachable-after must be positive, not " + down);
    }
    s.append(
        "pekko.cluster.downing-provider-class ="
            + " \"org.apache.pekko.cluster.sbr.SplitBrainResolverProvider\"\n");
    s.append("pekko.cluster.split-brain-resolver.active-strategy = keep-majority\n");
    s.append("pekko.cluster.split-brain-resolver.stable-after = ")
        .append(down.toMillis())
        .append(" ms\n");
    Duration phase = leaveTimeout(c).plusSeconds(30);
    s.append("pekko.coordinated-shutdown.phases.before-cluster-shutdown.timeout = ")
        .append(phase.toMillis())
        .append(" ms\n");
    // transport (TCP, or TLS with koala.remote.tls), address, frame and no Java serialization
    Config node =
        koala
            .remote()
            .pekkoConfig(host, port)
            .withFallback(ConfigFactory.parseString(s.toString()));
    if (koala.checkpointing()) {
      if (koala.dataDir() == null) {
        throw new ConfigurationException(
            "koala.data-dir is not set: a node that takes checkpoints keeps its checkpoint journal"
                + " there, and must find it again after a restart");
      }
      if (koala.checkpointDirectory() == null) {
        throw new ConfigurationException(
            "koala.checkpoint.directory is not set: on a cluster it must name storage that every"
                + " node reads and writes at the same path (a lost node's tasks are restored"
                + " elsewhere from their snapshots)");
      }
      node = JournalConfig.from(c, koala.dataDir()).pekkoConfig().withFallback(node);
    }
    return HostSettings.merge(c, node.resolve(), ConfigFactory.defaultReference());
  }

  /**
   * Makes {@code dataflows} known on this node, so that their tasks can run here. Every node that
   * may host a job's tasks defines its dataflow; returns this.
   */
  public KoalaCluster define(Dataflow... dataflows) {
    for (Dataflow d : dataflows) {
      node.core().define(Objects.requireNonNull(d, "dataflow"));
    }
    return this;
  }

  /**
   * Runs {@code dataflow} (defined here by this call, and on the other nodes by theirs) as job
   * {@code <its name>}, its tasks spread over every member's worker; coordinated on this node, or
   * where the cluster places its coordinator when coordinators fail over (see above). There, a
   * submission of a job that runs already attaches to it.
   *
   * @throws io.koala.KoalaException when no worker has joined yet, or a job of that id runs already
   *     (where jobs are coordinated on the node they are submitted on: on any node; {@link #attach}
   *     to it instead)
   */
  public JobHandle submit(Dataflow dataflow) {
    return submit(dataflow, SubmitOptions.defaults());
  }

  /**
   * Runs {@code dataflow} as {@link #submit(Dataflow)} does, started as {@code options} say: from a
   * checkpoint or savepoint directory ({@link SubmitOptions#restoreFrom}), also one taken of
   * another version of the dataflow (docs/upgrades.md). The directory and the job's checkpoint
   * directory must be readable by every node that runs the job's tasks (shared storage). A job's id
   * is its dataflow's name here, so {@link SubmitOptions#withJobId} may only name that.
   *
   * @throws io.koala.runtime.ConfigurationException when the restore is refused (the message lists
   *     every problem), or asked for where coordinators fail over: a coordinator there resumes from
   *     the cluster's journal
   * @throws io.koala.KoalaException as {@link #submit(Dataflow)}
   */
  public JobHandle submit(Dataflow dataflow, SubmitOptions options) {
    Objects.requireNonNull(dataflow, "dataflow");
    Objects.requireNonNull(options, "options");
    String jobId = ActorRuntime.jobIdOf(dataflow);
    if (!node.coordinatorsFailOver() && !node.core().hostedCoordinators().containsKey(jobId)) {
      List<ClusterJob> running = jobs.list().withId(jobId); // here, the runtime refuses it
      if (!running.isEmpty()) {
        throw new KoalaException(
            "job "
                + jobId
                + " runs already, coordinated on node "
                + running.get(0).node()
                + "; attach to it (KoalaCluster.attach) or cancel it first");
      }
    }
    return node.core().submit(dataflow, options).handle();
  }

  /**
   * A handle of the job {@code jobId} that runs in the cluster, wherever it is coordinated, as
   * {@link #submit} returns it: its status and completion follow the job, and it reconfigures,
   * checkpoints, cancels it and reads its state from this node. Where jobs are coordinated on the
   * node they are submitted on, the job ends with that node, and the handle fails then, naming it;
   * with coordinators that fail over, the handle follows the job's coordinator. Asks every node,
   * waiting a few seconds for each.
   *
   * @throws KoalaException when no node coordinates a job {@code jobId} (the message names the jobs
   *     that run), or more than one does
   */
  public JobHandle attach(String jobId) {
    ClusterJob job = jobs.find(Objects.requireNonNull(jobId, "jobId"));
    return node.attach(jobId, job.coordinator()).handle();
  }

  /**
   * The node that coordinates job {@code jobId} now: the address of its ActorSystem, {@code
   * pekko://<system>@host:port}. With coordinators that fail over it changes when that node is lost
   * or leaves. Asks every node, waiting a few seconds for each.
   *
   * @throws KoalaException when no node coordinates a job {@code jobId} (the message names the jobs
   *     that run), or more than one does
   */
  public String coordinatorNode(String jobId) {
    return jobs.find(Objects.requireNonNull(jobId, "jobId")).node();
  }

  /**
   * The ids of the jobs coordinated anywhere in the cluster now, sorted: asks every node's
   * directory, waiting a few seconds for each (a node that does not answer in time is left out).
   */
  public java.util.SortedSet<String> jobs() {
    return jobs.list().ids();
  }

  /**
   * Leaves the cluster gracefully: runs CoordinatedShutdown, whose {@code before-cluster-shutdown}
   * phase moves every job's tasks off this node first (within {@code koala.cluster.leave-timeout}).
   * Completes when the ActorSystem has terminated.
   */
  public CompletionStage<Done> leave() {
    return CoordinatedShutdown.get(system).runAll(CoordinatedShutdown.clusterLeavingReason());
  }

  /** Moves every job's tasks off this node now, as a leave does first; see {@link #leave}. */
  public CompletionStage<List<String>> drain() {
    return node.drainThisNode(leaveTimeout, this::isMember);
  }

  /**
   * The ids of the jobs coordinated on this node now: those submitted here, or with coordinators
   * that fail over, those whose entity runs here (ended ones included).
   */
  public java.util.Set<String> coordinatedJobs() {
    return node.core().hostedCoordinators().keySet();
  }

  /**
   * How many workers jobs submitted on this node can place tasks on now: the members' workers this
   * node has seen (through the Receptionist, shortly after they come Up), less those lost or
   * leaving.
   */
  public int workers() {
    return node.core().placeableWorkers();
  }

  /**
   * The node of each worker this node's jobs know, by worker index (as {@link
   * io.koala.job.JobMetrics#placement()} names them for the jobs coordinated on this node): the
   * address of its ActorSystem, {@code pekko://<system>@host:port}, or without host and port for
   * this node's own worker. Workers that left stay at their index. Each node numbers the workers in
   * the order it found them: a job coordinated on another node ({@link #coordinatorNode}) names
   * them as that node does.
   */
  public List<String> workerNodes() {
    return node.core().workerAddresses();
  }

  /**
   * Messages this node's remoting dropped because an outbound queue overflowed, since start.
   * Koala's channels are credit-based, so it stays 0 under any overload; anything else is a bug.
   */
  public long remotingDrops() {
    return remotingDrops.get();
  }

  public ActorSystem<Void> system() {
    return system;
  }

  /**
   * The port of this node's HTTP endpoint ({@code koala.node.http}): metrics, health, readiness and
   * the admin API; -1 when it is off.
   */
  public int httpPort() {
    return endpoint == null ? -1 : endpoint.port();
  }

  /**
   * Why this node is not ready to take work, or null when it is: it must be an Up member of the
   * cluster, not leaving.
   */
  private String notReady() {
    if (leaving) {
      return "the node is leaving the cluster";
    }
    var self = org.apache.pekko.cluster.typed.Cluster.get(system).selfMember();
    if (self.status() != org.apache.pekko.cluster.MemberStatus.up()) {
      return "the node's member status is " + self.status() + ", not Up";
    }
    return null;
  }

  /**
   * Stops Koala here: the node's HTTP endpoint, its runtime, and the jobs coordinated on it (with
   * coordinators that fail over, those are not cancelled: they start again on another member).
   */
  @Override
  public void close() {
    if (endpoint != null) {
      endpoint.close();
    }
    node.close();
  }

  /**
   * Whether {@code address} is a node of the cluster whose directory can still answer a drain:
   * neither down nor removed, nor exiting. An exiting node has passed its own {@code
   * before-cluster-shutdown} phase and is shutting down, its jobs ending with it; asked to drain,
   * it may never answer, and the leave would wait for the whole leave timeout (as the last node of
   * a cluster stopped one node after another did).
   */
  private boolean isMember(org.apache.pekko.actor.Address address) {
    for (org.apache.pekko.cluster.Member m :
        org.apache.pekko.cluster.typed.Cluster.get(system).state().getMembers()) {
      if (m.address().equals(address)
          && m.status() != org.apache.pekko.cluster.MemberStatus.removed()
          && m.status() != org.apache.pekko.cluster.MemberStatus.down()
          && m.status() != org.apache.pekko.cluster.MemberStatus.exiting()) {
        return true;
      }
    }
    return false;
  }

  private CompletionStage<Done> drainOnShutdown() {
    var reason = CoordinatedShutdown.get(system).getShutdownReason();
    if (reason.isPresent() && reason.get() == CoordinatedShutdown.clusterDowningReason()) {
      LOG.warn(
          "node {} was downed: its tasks are recovered on the other nodes from their checkpoints",
          system.address());
      return CompletableFuture.completedFuture(Done.getInstance());
    }
    leaving = true;
    long start = System.nanoTime();
    LOG.info(
        "node {} is leaving: moving its tasks to the other nodes (koala.cluster.leave-timeout ="
            + " {})",
        system.address(),
        leaveTimeout);
    return node.drainThisNode(leaveTimeout, this::isMember)
        .handle(
            (problems, error) -> {
              long ms = (System.nanoTime() - start) / 1_000_000;
              if (error != null) {
                LOG.error(
                    "node {}: moving its tasks off failed after {} ms",
                    system.address(),
                    ms,
                    error);
              } else if (problems.isEmpty()) {
                LOG.info("node {}: no task left here after {} ms; leaving", system.address(), ms);
              } else {
                LOG.warn(
                    "node {}: leaving after {} ms with tasks not moved; their jobs recover them"
                        + " from checkpoints: {}",
                    system.address(),
                    ms,
                    problems);
              }
              return Done.getInstance();
            });
  }

  /** The validated {@code koala.node.http} settings. */
  record Http(String host, int port, String adminToken) {}

  /** {@code koala.node.http}, or null when its port is off; every setting is checked either way. */
  static Http http(Config c) {
    String token = string(c, "koala.node.http.admin-token");
    if (!token.isEmpty() && token.length() < 16) {
      throw new ConfigurationException(
          "koala.node.http.admin-token is too short ("
              + token.length()
              + " characters); use at least 16, or \"\" for none");
    }
    String host = string(c, "koala.node.http.host");
    if (host.isBlank()) {
      host = string(c, "koala.node.host");
    }
    String portPath = "koala.node.http.port";
    String raw =
        KoalaConfig.read(c, portPath, "off or a port number 0..65535", () -> c.getString(portPath));
    if (raw.equals("off") || raw.equals("false")) {
      return null;
    }
    if (!raw.matches("-?[0-9]+")) {
      throw new ConfigurationException(
          portPath + " = \"" + raw + "\" is invalid; allowed: off, or a port number 0..65535");
    }
    return new Http(host, port(c, portPath), token);
  }

  private static boolean runsTasks(Config c) {
    String path = "koala.node.worker";
    return KoalaConfig.read(c, path, "on or off", () -> c.getBoolean(path));
  }

  private static Duration leaveTimeout(Config c) {
    Duration d = duration(c, "koala.cluster.leave-timeout");
    if (d.isNegative() || d.isZero()) {
      throw new ConfigurationException(
          "koala.cluster.leave-timeout must be positive, not " + DurationText.of(d));
    }
    return d;
  }

  private static String hostPort(String seed) {
    int colon = seed.lastIndexOf(':');
    boolean ok = colon > 0 && colon < seed.length() - 1;
    ok = ok && HOST.matcher(seed.substring(0, colon)).matches();
    if (ok) {
      try {
        int p = Integer.parseInt(seed.substring(colon + 1));
        ok = p > 0 && p <= 65535;
      } catch (NumberFormatException e) {
        ok = false;
      }
    }
    if (!ok) {
      throw new ConfigurationException(
          "koala.node.seed-nodes: \"" + seed + "\" is not host:port (port 1..65535)");
    }
    return seed;
  }

  private static int port(Config c, String path) {
    int p = KoalaConfig.read(c, path, "a port number 0..65535", () -> c.getInt(path));
    if (p < 0 || p > 65535) {
      throw new ConfigurationException(path + " = " + p + " is outside 0..65535");
    }
    return p;
  }

  private static String string(Config c, String path) {
    return KoalaConfig.read(c, path, "a string", () -> c.getString(path));
  }

  private static List<String> list(Config c, String path) {
    return KoalaConfig.read(c, path, "a list of strings", () -> c.getStringList(path));
  }

  private static Duration duration(Config c, String path) {
    return KoalaConfig.read(c, path, "a duration such as \"30 s\"", () -> c.getDuration(path));
  }

  private static String quote(String s) {
    return com.typesafe.config.ConfigUtil.quoteString(s);
  }
}
