package io.koala.runtime.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.runtime.KoalaConfig;

/** The Pekko settings of the ActorSystems Koala runs in. */
public final class SystemSettings {
  private SystemSettings() {}

  /**
   * The Pekko settings every ActorSystem that runs Koala has, embedded or on a cluster node, beside
   * those of {@link io.koala.runtime.RemoteSettings#pekkoConfig}: logging through SLF4J.
   */
  public static String basePekkoSettings() {
    StringBuilder s = new StringBuilder();
    s.append("pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]\n");
    s.append("pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"\n");
    s.append("pekko.log-dead-letters-during-shutdown = off\n");
    return s.toString();
  }

  /** The settings of an embedded runtime's ActorSystems, from {@code config}. */
  static Config of(KoalaConfig config) {
    StringBuilder s = new StringBuilder(basePekkoSettings());
    s.append("pekko.coordinated-shutdown.exit-jvm = off\n");
    s.append("pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n");
    if (config.separateSystems()) {
      s.append("pekko.actor.provider = remote\n");
      // DeathWatch between the worker systems (the coordinator watches every task, an owner the
      // holders it fetches from: DESIGN §6.8) is off outside a cluster unless this is on; the
      // workers of one runtime share its life, so the features it guards are safe here
      s.append("pekko.remote.use-unsafe-remote-features-outside-cluster = on\n");
      // remoting without the cluster is deliberate here: the systems are one runtime's workers
      s.append("pekko.remote.warn-about-direct-use = off\n");
    }
    // Transport, TLS, frame size and no Java serialization, in both modes (inert without remoting),
    // so that a job that runs in one ActorSystem is held to the frame it will meet distributed.
    return config
        .remote()
        .pekkoConfig("127.0.0.1", 0)
        .withFallback(ConfigFactory.parseString(s.toString()))
        .withFallback(config.underlying())
        .resolve();
  }
}
