package io.koala.runtime;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.ReconfigurationProtocol;
import io.koala.runtime.internal.EngineSettings;
import io.koala.serialization.TypeRegistry;
import io.koala.store.StoreOptions;
import io.koala.time.DurationText;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The validated {@code koala { }} configuration (defaults in {@code reference.conf}). Every value
 * is read and checked when the object is created, so invalid configuration fails at start-up with a
 * {@link ConfigurationException} naming the path and the allowed values. Immutable; the {@code
 * with*} methods return copies.
 *
 * <pre>{@code
 * KoalaConfig config = KoalaConfig.load().withWorkers(4).withSeparateSystems(true);
 * }</pre>
 */
public final class KoalaConfig {
  static {
    // Koala's engine (io.koala.runtime.internal) reads its settings this way, not through the API
    EngineSettings.openConfigs(c -> c.engine);
  }

  private final Config config;
  private final int workers;
  private final boolean separateSystems;
  private final Path dataDir;
  private final boolean deleteJobState;
  private final int remoteStateServices;
  private final List<Class<?>> types;
  private final int serializationMaxDepth;
  private final RemoteSettings remote;
  private final Duration deployTimeout;
  private final Duration closeTimeout;
  private final Duration metricsTimeout;
  private final Duration reconfigurationStepTimeout;
  private final int bucketsPerStep;
  private final Duration checkpointInterval; // null: off
  private final int checkpointsRetained;
  private final Path checkpointDirectory; // null: <data-dir>/checkpoints
  private final int maxRestarts;
  private final Duration restartBackoff;
  private final Duration restartBackoffMax;
  private final Duration restartsResetAfter;
  private final Duration failureRateInterval; // null: exponential delay
  private final Duration redeployTimeout;
  private final Duration checkpointTimeout;
  private final int tolerableCheckpointFailures;
  private final List<String> scaleOnJoin;
  private final String coordinatorRole;
  private final EngineSettings engine;

  private KoalaConfig(Config config) {
    this.config = config;
    this.workers = intIn(config, "koala.workers", 1, 1024);
    String mode = string(config, "koala.worker-systems");
    if (!mode.equals("shared") && !mode.equals("separate")) {
      throw new ConfigurationException(
          "koala.worker-systems = \"" + mode + "\" is invalid; allowed: \"shared\", \"separate\"");
    }
    this.separateSystems = mode.equals("separate");
    String dir = string(config, "koala.data-dir");
    this.dataDir = dir.isEmpty() ? null : Path.of(dir);
    this.deleteJobState = bool(config, "koala.delete-job-state");
    ChannelSettings channels =
        new ChannelSettings(
            intIn(config, "koala.batch.max-records", 1, 1_000_000),
            (int) bytesIn(config, "koala.batch.max-bytes", 1024, ChannelSettings.MAX_BATCH_BYTES),
            durationIn(config, "koala.batch.linger", Duration.ZERO, Duration.ofSeconds(10))
                .toMillis(),
            intIn(config, "koala.channel.credits", 1, 1024),
            durationIn(
                    config, "koala.watermark.interval", Duration.ofMillis(1), Duration.ofMinutes(1))
                .toMillis(),
            bytesIn(config, "koala.channel.max-waiting-bytes", 1024, 1L << 40),
            durationIn(
                    config,
                    "koala.reconfiguration.hot-set.window",
                    Duration.ZERO,
                    Duration.ofHours(1))
                .toMillis(),
            intIn(config, "koala.reconfiguration.hot-set.max-keys", 0, 1 << 26),
            durationIn(
                    config,
                    "koala.metrics.load-half-life",
                    Duration.ofSeconds(1),
                    Duration.ofHours(1))
                .toMillis());
    long initial = bytesIn(config, "koala.store.initial-map-size", 1L << 20, 1L << 50);
    long max = bytesIn(config, "koala.store.max-map-size", 1L << 20, 1L << 50);
    if (max < initial) {
      throw new ConfigurationException(
          "koala.store.max-map-size ("
              + max
              + " bytes) must not be below koala.store.initial-map-size ("
              + initial
              + " bytes)");
    }
    long reserve = bytesIn(config, "koala.store.min-free-disk", 0, 1L << 50);
    StoreOptions store = new StoreOptions(initial, max, 2, reserve);
    String backend = string(config, "koala.store.backend");
    if (!backend.equals("lmdb") && !backend.equals("remote")) {
      throw new ConfigurationException(
          "koala.store.backend = \"" + backend + "\" is invalid; allowed: \"lmdb\", \"remote\"");
    }
    int services = intIn(config, "koala.store.remote-services", 1, 64);
    this.remoteStateServices = backend.equals("remote") ? services : 0;
    this.types = classes(config, "koala.serialization.types");
    this.scaleOnJoin = operatorNames(config, "koala.cluster.scale-on-join");
    this.coordinatorRole = string(config, "koala.cluster.coordinator-role");
    if (!coordinatorRole.isEmpty() && !coordinatorRole.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
      throw new ConfigurationException(
          "koala.cluster.coordinator-role = \""
              + coordinatorRole
              + "\" is invalid; use a cluster role name (letters, digits, ., - and _) or \"\"");
    }
    this.serializationMaxDepth =
        intIn(
            config,
            "koala.serialization.max-depth",
            TypeRegistry.MIN_MAX_DEPTH,
            TypeRegistry.MAX_MAX_DEPTH);
    this.remote = RemoteSettings.from(config);
    this.deployTimeout =
        durationIn(config, "koala.deploy-timeout", Duration.ofMillis(1), Duration.ofHours(1));
    this.closeTimeout =
        durationIn(config, "koala.close-timeout", Duration.ZERO, Duration.ofHours(1));
    this.metricsTimeout =
        durationIn(config, "koala.metrics-timeout", Duration.ofMillis(1), Duration.ofHours(1));
    this.reconfigurationStepTimeout =
        durationIn(
            config,
            "koala.reconfiguration.step-timeout",
            Duration.ofMillis(1),
            Duration.ofHours(1));
    String protocolName = string(config, "koala.reconfiguration.protocol");
    ReconfigurationProtocol protocol;
    try {
      protocol = ReconfigurationProtocol.named(protocolName);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException("koala.reconfiguration.protocol: " + e.getMessage());
    }
    if (remoteStateServices > 0 && protocol != ReconfigurationProtocol.KOALA) {
      throw new ConfigurationException(
          "koala.reconfiguration.protocol = \""
              + protocol.configName()
              + "\" moves state between tasks, but with koala.store.backend = \"remote\" the"
              + " state lives at the state services and a reconfiguration only switches routing;"
              + " allowed with the remote backend: \"koala\"");
    }
    this.bucketsPerStep =
        intIn(
            config,
            "koala.reconfiguration.buckets-per-step",
            1,
            io.koala.store.KeyLayout.MAX_BUCKETS);
    DrainSettings drain =
        new DrainSettings(
            intIn(config, "koala.reconfiguration.drain.piggyback-keys", 0, 100_000),
            intIn(config, "koala.reconfiguration.drain.idle-chunk-keys", 1, 100_000),
            durationIn(
                    config,
                    "koala.reconfiguration.drain.interval",
                    Duration.ofMillis(1),
                    Duration.ofMinutes(1))
                .toMillis());
    this.checkpointInterval =
        offOrDuration(
            config, "koala.checkpoint.interval", Duration.ofMillis(1), Duration.ofDays(1));
    this.checkpointsRetained = intIn(config, "koala.checkpoint.retained", 1, 1000);
    String checkpointDir = string(config, "koala.checkpoint.directory");
    this.checkpointDirectory = checkpointDir.isEmpty() ? null : Path.of(checkpointDir);
    this.maxRestarts = intIn(config, "koala.checkpoint.max-restarts", 0, 1_000_000);
    this.restartBackoff =
        durationIn(
            config, "koala.checkpoint.restart-backoff", Duration.ZERO, Duration.ofMinutes(10));
    this.restartBackoffMax =
        durationIn(
            config, "koala.checkpoint.restart-backoff-max", Duration.ZERO, Duration.ofHours(1));
    if (restartBackoffMax.compareTo(restartBackoff) < 0) {
      throw new ConfigurationException(
          "koala.checkpoint.restart-backoff-max = "
              + DurationText.of(restartBackoffMax)
              + " is shorter than koala.checkpoint.restart-backoff = "
              + DurationText.of(restartBackoff)
              + ": the longest wait must be at least the first");
    }
    this.restartsResetAfter =
        durationIn(
            config,
            "koala.checkpoint.restarts-reset-after",
            Duration.ofMillis(1),
            Duration.ofDays(365));
    String strategy = string(config, "koala.checkpoint.restart-strategy");
    if (strategy.equals("failure-rate")) {
      this.failureRateInterval =
          durationIn(
              config,
              "koala.checkpoint.failure-rate-interval",
              Duration.ofMillis(1),
              Duration.ofDays(365));
    } else if (strategy.equals("exponential-delay")) {
      this.failureRateInterval = null;
    } else {
      throw new ConfigurationException(
          "koala.checkpoint.restart-strategy = \""
              + strategy
              + "\" is invalid; allowed: \"exponential-delay\", \"failure-rate\"");
    }
    this.redeployTimeout =
        durationIn(
            config, "koala.checkpoint.redeploy-timeout", Duration.ofMillis(1), Duration.ofHours(1));
    this.checkpointTimeout =
        durationIn(config, "koala.checkpoint.timeout", Duration.ofMillis(1), Duration.ofDays(1));
    this.tolerableCheckpointFailures =
        intIn(config, "koala.checkpoint.tolerable-failures", 0, 1_000_000);
    if (checkpointInterval != null && remoteStateServices > 0) {
      throw new ConfigurationException(
          "koala.checkpoint.interval = "
              + checkpointInterval
              + " needs each task's state in its own store, but koala.store.backend = \"remote\""
              + " keeps it at the state services, which take no snapshots; allowed with the remote"
              + " backend: off");
    }
    this.engine =
        new EngineSettings(channels, store, protocol, drain, AutoscalerConfig.read(config));
  }

  /** The configuration of the application ({@code application.conf} over the defaults). */
  public static KoalaConfig load() {
    return from(ConfigFactory.load());
  }

  /**
   * A configuration from a resolved Typesafe config that contains Koala's defaults.
   *
   * @throws ConfigurationException naming the first invalid path
   */
  public static KoalaConfig from(Config config) {
    return new KoalaConfig(config.withFallback(ConfigFactory.defaultReference()).resolve());
  }

  /** A copy with {@code path} set to {@code value} (validated like everything else). */
  public KoalaConfig with(String path, Object value) {
    return new KoalaConfig(config.withValue(path, ConfigValueFactory.fromAnyRef(value)));
  }

  /**
   * A copy whose ActorSystems talk over TLS ({@code koala.remote.tls}) with this node's key and
   * certificate in {@code keyStore} and the certificates it trusts in {@code trustStore}, both
   * checked now; the other TLS settings keep their values. Set at once because TLS on without its
   * stores is invalid.
   *
   * <pre>{@code
   * KoalaConfig config =
   *     KoalaConfig.load()
   *         .withSeparateSystems(true)
   *         .withTls(Path.of("node.p12"), keyPassword, Path.of("trust.p12"), trustPassword);
   * }</pre>
   *
   * @throws ConfigurationException naming the setting and the file when a store cannot be used
   */
  public KoalaConfig withTls(
      Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword) {
    Config tls =
        ConfigFactory.parseMap(
            java.util.Map.of(
                "enabled",
                true,
                "key-store",
                keyStore.toAbsolutePath().toString(),
                "key-store-password",
                keyStorePassword,
                "trust-store",
                trustStore.toAbsolutePath().toString(),
                "trust-store-password",
                trustStorePassword));
    return new KoalaConfig(tls.atPath("koala.remote.tls").withFallback(config));
  }

  public KoalaConfig withWorkers(int n) {
    return with("koala.workers", n);
  }

  /** Runs every worker in its own ActorSystem over Artery TCP (true) or all in one (false). */
  public KoalaConfig withSeparateSystems(boolean separate) {
    return with("koala.worker-systems", separate ? "separate" : "shared");
  }

  public KoalaConfig withDataDir(Path dir) {
    return with("koala.data-dir", dir.toAbsolutePath().toString());
  }

  /**
   * A copy that takes a checkpoint every {@code interval} ({@code koala.checkpoint.interval});
   * {@code null} turns checkpoints off.
   */
  public KoalaConfig withCheckpointInterval(Duration interval) {
    return with(
        "koala.checkpoint.interval", interval == null ? "off" : interval.toMillis() + " ms");
  }

  /** A copy that keeps {@code n} completed checkpoints ({@code koala.checkpoint.retained}). */
  public KoalaConfig withCheckpointsRetained(int n) {
    return with("koala.checkpoint.retained", n);
  }

  /** A copy that writes snapshot files under {@code dir} ({@code koala.checkpoint.directory}). */
  public KoalaConfig withCheckpointDirectory(Path dir) {
    return with("koala.checkpoint.directory", dir.toAbsolutePath().toString());
  }

  /** A copy that allows {@code n} rollbacks per job ({@code koala.checkpoint.max-restarts}). */
  public KoalaConfig withMaxRestarts(int n) {
    return with("koala.checkpoint.max-restarts", n);
  }

  /**
   * A copy that waits {@code backoff} before redeploying ({@code
   * koala.checkpoint.restart-backoff}).
   */
  public KoalaConfig withRestartBackoff(Duration backoff) {
    return with("koala.checkpoint.restart-backoff", backoff.toMillis() + " ms");
  }

  /**
   * A copy that abandons a checkpoint not committed {@code timeout} after its trigger ({@code
   * koala.checkpoint.timeout}).
   */
  public KoalaConfig withCheckpointTimeout(Duration timeout) {
    return with("koala.checkpoint.timeout", timeout.toMillis() + " ms");
  }

  /**
   * A copy in which up to {@code failures} checkpoints in a row may time out without a rollback
   * ({@code koala.checkpoint.tolerable-failures}).
   */
  public KoalaConfig withTolerableCheckpointFailures(int failures) {
    return with("koala.checkpoint.tolerable-failures", failures);
  }

  /**
   * A copy that gives the redeployment after a rollback {@code timeout} ({@code
   * koala.checkpoint.redeploy-timeout}).
   */
  public KoalaConfig withRedeployTimeout(Duration timeout) {
    return with("koala.checkpoint.redeploy-timeout", timeout.toMillis() + " ms");
  }

  /** The whole underlying configuration (Pekko's settings included). */
  public Config underlying() {
    return config;
  }

  public int workers() {
    return workers;
  }

  public boolean separateSystems() {
    return separateSystems;
  }

  /** The configured data directory, or {@code null} for a temporary one. */
  public Path dataDir() {
    return dataDir;
  }

  public boolean deleteJobState() {
    return deleteJobState;
  }

  /**
   * How many remote state services hold the keyed state ({@code koala.store.backend = remote},
   * {@code koala.store.remote-services}), or 0 when each task keeps its own in LMDB.
   */
  public int remoteStateServices() {
    return remoteStateServices;
  }

  /** Classes registered at start-up. */
  public List<Class<?>> types() {
    return types;
  }

  /**
   * The operators rescaled onto a worker that joins while a job runs ({@code
   * koala.cluster.scale-on-join}): each by its average number of tasks per worker. A name not in a
   * job's dataflow does not concern that job.
   */
  public List<String> scaleOnJoin() {
    return scaleOnJoin;
  }

  /**
   * The cluster role of the members that run job coordinators when they fail over ({@code
   * koala.cluster.coordinator-role}); empty: any member.
   */
  public String coordinatorRole() {
    return coordinatorRole;
  }

  /**
   * The deepest object graph Koala's serializer writes or reads ({@code
   * koala.serialization.max-depth}), in Kryo's levels: every object, and every field or element
   * written as an object, is one level below the one that holds it.
   */
  public int serializationMaxDepth() {
    return serializationMaxDepth;
  }

  /**
   * How Koala's ActorSystems reach each other ({@code koala.remote}): Artery over TCP or TLS, and
   * the Pekko settings for it.
   */
  public RemoteSettings remote() {
    return remote;
  }

  public Duration deployTimeout() {
    return deployTimeout;
  }

  /**
   * How long {@link KoalaRuntime#close()} waits for its jobs to stop with a final checkpoint
   * ({@code koala.close-timeout}); zero: it cancels them at once.
   */
  public Duration closeTimeout() {
    return closeTimeout;
  }

  public Duration metricsTimeout() {
    return metricsTimeout;
  }

  /**
   * How long a reconfiguration may go without any task reporting progress before the job fails
   * (without checkpoints, a stuck reconfiguration fails the job loudly).
   */
  public Duration reconfigurationStepTimeout() {
    return reconfigurationStepTimeout;
  }

  /**
   * The most buckets one epoch of a staged protocol (eager, fluid) moves, from {@code
   * koala.reconfiguration.buckets-per-step}.
   */
  public int bucketsPerStep() {
    return bucketsPerStep;
  }

  /** Whether jobs take checkpoints ({@code koala.checkpoint.interval} is not {@code off}). */
  public boolean checkpointing() {
    return checkpointInterval != null;
  }

  /** The time between checkpoints, or {@code null} when checkpoints are off. */
  public Duration checkpointInterval() {
    return checkpointInterval;
  }

  /** Completed checkpoints kept per job (at least 1). */
  public int checkpointsRetained() {
    return checkpointsRetained;
  }

  /**
   * The configured root of snapshot files, or {@code null} for {@code <data-dir>/checkpoints}
   * (under the temporary data directory when that is temporary).
   */
  public Path checkpointDirectory() {
    return checkpointDirectory;
  }

  /** Rollbacks a job may take before the next failure fails it. */
  public int maxRestarts() {
    return maxRestarts;
  }

  /** The wait between a failure and the redeployment of the job's tasks. */
  public Duration restartBackoff() {
    return restartBackoff;
  }

  /** {@code koala.checkpoint.restart-backoff-max}: the longest wait before a redeployment. */
  public Duration restartBackoffMax() {
    return restartBackoffMax;
  }

  /**
   * {@code koala.checkpoint.restarts-reset-after}: how long a job must go without a rollback for
   * its restarts to count from 0 again.
   */
  public Duration restartsResetAfter() {
    return restartsResetAfter;
  }

  /**
   * {@code koala.checkpoint.failure-rate-interval} when {@code koala.checkpoint.restart-strategy =
   * failure-rate}: the window in which at most {@code max-restarts} rollbacks are allowed; null for
   * the default exponential delay.
   */
  public Duration failureRateInterval() {
    return failureRateInterval;
  }

  /**
   * How long the workers may take to deploy a job's tasks again after a rollback (restoring their
   * snapshots included) before the attempt counts as failed.
   */
  public Duration redeployTimeout() {
    return redeployTimeout;
  }

  /** {@code koala.checkpoint.timeout}: how long a checkpoint may take to commit. */
  public Duration checkpointTimeout() {
    return checkpointTimeout;
  }

  /**
   * {@code koala.checkpoint.tolerable-failures}: how many checkpoints in a row may time out and be
   * abandoned while the job goes on; the next one that times out rolls the job back.
   */
  public int tolerableCheckpointFailures() {
    return tolerableCheckpointFailures;
  }

  /**
   * The effective {@code koala} block, for logging; passwords and the admin token show as {@code
   * "***"}.
   */
  public String render() {
    Config koala = config.getConfig("koala");
    for (String path :
        List.of(
            "remote.tls.key-store-password",
            "remote.tls.key-password",
            "remote.tls.trust-store-password",
            "node.http.admin-token")) {
      if (koala.hasPath(path) && !koala.getString(path).isEmpty()) {
        koala = koala.withValue(path, ConfigValueFactory.fromAnyRef("***"));
      }
    }
    return koala.root().render(ConfigRenderOptions.concise().setFormatted(true).setJson(false));
  }

  // ---------------------------------------------------------------- readers

  /**
   * Reads {@code path} of {@code c} with {@code r}; a missing or wrong value fails with a {@link
   * ConfigurationException} naming the path, the value as written and what was {@code expected}
   * (and the file and line it came from). For Koala's modules reading their own settings.
   */
  public static <T> T read(
      Config c, String path, String expected, java.util.function.Supplier<T> r) {
    try {
      return r.get();
    } catch (ConfigException.Missing e) {
      throw new ConfigurationException(path + " is missing; expected " + expected, e);
    } catch (ConfigException e) {
      ConfigValue value = c.getValue(path);
      ConfigOrigin origin = value.origin();
      String from =
          origin.filename() != null || origin.url() != null
              ? " (" + origin.description() + ")"
              : "";
      throw new ConfigurationException(
          path
              + " = "
              + value.render(ConfigRenderOptions.concise())
              + from
              + " is invalid; expected "
              + expected,
          e);
    }
  }

  static String string(Config c, String path) {
    return read(c, path, "a string", () -> c.getString(path));
  }

  static boolean bool(Config c, String path) {
    return read(c, path, "on/off (true/false)", () -> c.getBoolean(path));
  }

  static int intIn(Config c, String path, int min, int max) {
    int v = read(c, path, "an integer in [" + min + ", " + max + "]", () -> c.getInt(path));
    if (v < min || v > max) {
      throw new ConfigurationException(
          path + " = " + v + " is out of range; allowed: [" + min + ", " + max + "]");
    }
    return v;
  }

  private static long bytesIn(Config c, String path, long min, long max) {
    long v =
        read(
            c,
            path,
            "a size such as \"256 KiB\" in [" + min + ", " + max + "] bytes",
            () -> c.getBytes(path));
    if (v < min || v > max) {
      throw new ConfigurationException(
          path + " = " + v + " bytes is out of range; allowed: [" + min + ", " + max + "] bytes");
    }
    return v;
  }

  static Duration durationIn(Config c, String path, Duration min, Duration max) {
    Duration v =
        read(
            c,
            path,
            "a duration such as \"5 ms\" in [" + text(min) + ", " + text(max) + "]",
            () -> c.getDuration(path));
    if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
      throw new ConfigurationException(
          path
              + " = "
              + text(v)
              + " is out of range; allowed: ["
              + text(min)
              + ", "
              + text(max)
              + "]");
    }
    return v;
  }

  private static String text(Duration d) {
    return DurationText.of(d);
  }

  /** A duration in [min, max], or {@code off} ({@code null}). */
  private static Duration offOrDuration(Config c, String path, Duration min, Duration max) {
    String expected =
        "off, or a duration such as \"10 s\" in [" + text(min) + ", " + text(max) + "]";
    Object raw = read(c, path, expected, () -> c.getValue(path).unwrapped());
    if (Boolean.FALSE.equals(raw) || "off".equals(raw) || "false".equals(raw)) {
      return null;
    }
    Duration v = read(c, path, expected, () -> c.getDuration(path));
    if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
      throw new ConfigurationException(
          path
              + " = "
              + text(v)
              + " is out of range; allowed: off, or ["
              + text(min)
              + ", "
              + text(max)
              + "]");
    }
    return v;
  }

  static List<String> operatorNames(Config c, String path) {
    List<String> names = read(c, path, "a list of operator names", () -> c.getStringList(path));
    for (String n : names) {
      if (n.isBlank()) {
        throw new ConfigurationException(path + " contains a blank operator name: " + names);
      }
    }
    return List.copyOf(names);
  }

  private static List<Class<?>> classes(Config c, String path) {
    List<String> names = read(c, path, "a list of class names", () -> c.getStringList(path));
    List<Class<?>> out = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String name = Objects.requireNonNull(names.get(i));
      out.add(load(name, path + "[" + i + "]"));
    }
    return List.copyOf(out);
  }

  /**
   * Class {@code name}, from the thread's context class loader (which sees an application's classes
   * where a container or {@code koala node --dataflows} loads them apart from Koala's), else from
   * Koala's own.
   */
  private static Class<?> load(String name, String setting) {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    ClassLoader koala = KoalaConfig.class.getClassLoader();
    if (context != null && context != koala) {
      try {
        return Class.forName(name, false, context);
      } catch (ClassNotFoundException e) {
        // not there: Koala's own loader may still have it
      }
    }
    try {
      return Class.forName(name, false, koala);
    } catch (ClassNotFoundException e) {
      throw new ConfigurationException(
          setting + " = \"" + name + "\": no such class on the classpath", e);
    }
  }

  @Override
  public String toString() {
    return "KoalaConfig" + render();
  }
}
