package io.koala.runtime;

import io.koala.dataflow.Dataflow;
import io.koala.runtime.internal.RuntimeCore;
import java.nio.file.Path;
import java.util.Objects;

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
 * <p>Thread-safe. Closing the runtime stops every job and its actor systems.
 */
public final class KoalaRuntime implements AutoCloseable {
  private final RuntimeCore core;
  private final KoalaConfig config;

  private KoalaRuntime(KoalaConfig config) {
    this.config = config;
    this.core = new RuntimeCore(config);
  }

  /** Starts an embedded runtime. */
  public static KoalaRuntime embedded(KoalaConfig config) {
    return new KoalaRuntime(Objects.requireNonNull(config, "config"));
  }

  /** Starts an embedded runtime with the application's configuration. */
  public static KoalaRuntime embedded() {
    return embedded(KoalaConfig.load());
  }

  /** Deploys {@code dataflow} and starts it; returns at once. */
  public JobHandle submit(Dataflow dataflow) {
    return new JobHandle(core, core.submit(Objects.requireNonNull(dataflow, "dataflow")));
  }

  public KoalaConfig config() {
    return config;
  }

  /** Root of the workers' state directories. */
  public Path dataDir() {
    return core.dataDir();
  }

  @Override
  public void close() {
    core.close();
  }
}
