package io.koala.runtime;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import io.koala.dataflow.Dataflow;
import io.koala.protocol.ChannelSettings;
import io.koala.runtime.internal.ActorRuntime;
import io.koala.runtime.internal.HostSettings;
import io.koala.runtime.internal.journal.JournalConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Runs dataflows. The embedded runtime starts {@code koala.workers} virtual workers in this JVM,
 * each with its own state directory, in one ActorSystem or each in its own ActorSystem connected
 * over Artery TCP on 127.0.0.1 ({@code koala.worker-systems}).
 *
 * <pre>{@code
 * try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
 *   JobHandle job = runtime.submit(dataflow);
 *   job.await(Duration.ofMinutes(1));
 * }
 * }</pre>
 *
 * <p>Thread-safe. Closing the runtime stops every job — with a final checkpoint when it takes
 * checkpoints, so that it resumes there when submitted again ({@link #close(Duration)}) — and its
 * actor systems.
 */
public final class KoalaRuntime implements AutoCloseable {
  private final ActorRuntime core;
  private final KoalaConfig config;

  private KoalaRuntime(KoalaConfig config) {
    this(config, new ActorRuntime(config));
  }

  private KoalaRuntime(KoalaConfig config, ActorRuntime core) {
    this.config = config;
    this.core = core;
  }

  /** Starts an embedded runtime. */
  public static KoalaRuntime embedded(KoalaConfig config) {
    return new KoalaRuntime(Objects.requireNonNull(config, "config"));
  }

  /**
   * Starts an embedded runtime in {@code host}, the application's own ActorSystem: its coordinators
   * and workers are actors there ({@code koala.worker-systems = shared}), and closing the runtime
   * stops them and leaves {@code host} running. Create {@code host} with the settings {@link
   * #hostConfig} gives:
   *
   * <pre>{@code
   * Config settings = ConfigFactory.load();
   * KoalaConfig koala = KoalaConfig.from(settings);
   * ActorSystem<Void> system =
   *     ActorSystem.create(Behaviors.empty(), "orders", KoalaRuntime.hostConfig(settings, koala));
   * KoalaRuntime runtime = KoalaRuntime.embeddedIn(system, koala);
   * }</pre>
   *
   * @throws ConfigurationException naming each setting of {@code host} that Koala cannot run with
   *     (Koala's serializer not bound, the checkpoint journal's plugins missing, a frame smaller
   *     than Koala's with remoting)
   */
  public static KoalaRuntime embeddedIn(ActorSystem<?> host, KoalaConfig config) {
    @SuppressWarnings("unchecked")
    ActorSystem<Void> system = (ActorSystem<Void>) Objects.requireNonNull(host, "host");
    return new KoalaRuntime(
        Objects.requireNonNull(config, "config"), ActorRuntime.inHost(system, config));
  }

  /**
   * {@code application}'s settings with what Koala needs of an ActorSystem it runs in ({@link
   * #embeddedIn}): with checkpoints, its journal's plugins (under {@code koala.data-dir}, which
   * must be set); with remoting, a frame of at least 1 MiB. Nothing the application set is
   * overridden: a setting it made that Koala cannot run with fails, naming its path.
   *
   * @throws ConfigurationException naming each conflicting setting
   */
  public static Config hostConfig(Config application, KoalaConfig config) {
    Config reference = ConfigFactory.defaultReference();
    Config app = application.withFallback(reference).resolve();
    Config needs = ConfigFactory.empty();
    if (!app.getString("pekko.actor.provider").equals("local")) {
      needs =
          needs.withValue(
              "pekko.remote.artery.advanced.maximum-frame-size",
              ConfigValueFactory.fromAnyRef(ChannelSettings.FRAME_BYTES));
    }
    if (config.checkpointing()) {
      if (config.dataDir() == null) {
        throw new ConfigurationException(
            "koala.data-dir is not set: a runtime in the application's ActorSystem keeps its"
                + " checkpoint journal there");
      }
      needs =
          JournalConfig.from(config.underlying(), config.dataDir())
              .pekkoConfig()
              .withFallback(needs)
              .resolve();
    }
    return HostSettings.merge(app, needs, reference);
  }

  /** Starts an embedded runtime with the application's configuration. */
  public static KoalaRuntime embedded() {
    return embedded(KoalaConfig.load());
  }

  /**
   * Deploys {@code dataflow} and starts it; returns at once. The job's id is the dataflow's name
   * and its submission number on this runtime ({@code name-1} for the first). With checkpoints on
   * ({@code koala.checkpoint.interval}) and a configured {@code koala.data-dir}, a job whose id has
   * checkpoints journaled there — one that was cancelled, failed, or whose runtime went away before
   * it finished — resumes from its latest checkpoint instead of starting over, so submitting the
   * same dataflow first after a restart continues it:
   *
   * <pre>{@code
   * KoalaConfig config = KoalaConfig.load().withDataDir(dir).withCheckpointInterval(Duration.ofSeconds(10));
   * try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
   *   runtime.submit(dataflow).await(Duration.ofHours(1)); // resumes where a previous run stopped
   * }
   * }</pre>
   */
  public JobHandle submit(Dataflow dataflow) {
    return submit(dataflow, SubmitOptions.defaults());
  }

  /**
   * Deploys {@code dataflow} as {@link #submit(Dataflow)} does, with {@code options}; returns at
   * once.
   *
   * @throws ConfigurationException when {@code options} asks for a restore and the runtime takes no
   *     checkpoints, or the checkpoint's state cannot be carried over into {@code dataflow} (the
   *     message lists every problem)
   */
  public JobHandle submit(Dataflow dataflow, SubmitOptions options) {
    return new JobHandle(
        core.submit(
            Objects.requireNonNull(dataflow, "dataflow"),
            Objects.requireNonNull(options, "options")));
  }

  /**
   * The jobs submitted on this runtime that have not ended, in submission order: a new handle on
   * each call, for jobs whose own handle the caller does not keep (a metrics binder watching every
   * job, say). A job leaves the list once its {@link JobHandle#completion()} completes.
   */
  public java.util.List<JobHandle> jobs() {
    return core.submittedJobs().stream().map(JobHandle::new).toList();
  }

  public KoalaConfig config() {
    return config;
  }

  /** Root of the workers' state directories. */
  public Path dataDir() {
    return core.dataDir();
  }

  /**
   * For tests: loses worker {@code worker} with the tasks it hosts, as when its node goes away (its
   * ActorSystem terminates, or with one ActorSystem its worker actor stops). Not part of the user
   * API.
   */
  void loseWorker(int worker) {
    core.loseWorker(worker);
  }

  /**
   * For tests: drains worker {@code worker} as when its node leaves a cluster gracefully: no task
   * is placed there any more, and every running job moves its tasks off (keyed tasks by migration,
   * the others by a checkpoint and a restore). Completes with the problems the jobs reported
   * (empty: none of their tasks is left there). Not part of the user API.
   */
  java.util.concurrent.CompletionStage<java.util.List<String>> drainWorker(int worker) {
    return core.drainWorker(worker);
  }

  /**
   * Closes the runtime as {@link #close(Duration)} does, waiting {@code koala.close-timeout} (30 s
   * by default) for its jobs to stop.
   */
  @Override
  public void close() {
    core.close();
  }

  /**
   * Closes the runtime, first stopping every running job with a final checkpoint ({@link
   * JobHandle#stop()}, all at once) — its sources stop at the checkpoint's barrier, and its
   * exactly-once sinks commit what was read before it — so that a service restarted on the same
   * {@code koala.data-dir} resumes each job, submitted again, where it stopped: nothing replayed,
   * nothing duplicated. A job not stopped within {@code timeout}, or that cannot be (checkpoints
   * off, its sources finishing, a failure rolling it back meanwhile), is cancelled: submitted
   * again, it resumes from its latest checkpoint. {@code Duration.ZERO} cancels every job at once.
   * Then the runtime's actor systems stop.
   *
   * <pre>{@code
   * Runtime.getRuntime().addShutdownHook(new Thread(() -> runtime.close(Duration.ofSeconds(20))));
   * }</pre>
   */
  public void close(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout " + timeout + " is negative");
    }
    core.close(timeout);
  }
}
