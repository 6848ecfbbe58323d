package io.koala.runtime.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import io.koala.protocol.ChannelSettings;
import io.koala.runtime.ConfigurationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Koala's Pekko settings beside an application's own: which Koala needs exactly, which it needs at
 * least (a frame size, a shutdown phase's time), and which it only prefers, so that the
 * application's choice stands. Koala never overrides a setting the application made: a conflict
 * fails with the setting's path, both values and what to do instead.
 */
public final class HostSettings {
  /** Settings where the application's own value, if it set one, is kept. */
  private static final Set<String> PREFERRED =
      Set.of(
          "pekko.loggers",
          "pekko.logging-filter",
          "pekko.log-dead-letters-during-shutdown",
          "pekko.actor.allow-java-serialization",
          "pekko.cluster.downing-provider-class",
          "pekko.cluster.split-brain-resolver.active-strategy");

  /** Settings Koala needs at least (a size or a duration): a larger one is kept. */
  private static final Set<String> AT_LEAST =
      Set.of(
          "pekko.remote.artery.advanced.maximum-frame-size",
          "pekko.coordinated-shutdown.phases.before-cluster-shutdown.timeout");

  /** What to do instead of setting a path Koala sets, by path prefix. */
  private static final Map<String, String> INSTEAD =
      Map.of(
          "pekko.remote.artery.canonical", "set koala.node.host and koala.node.port instead",
          "pekko.cluster.seed-nodes", "set koala.node.seed-nodes instead",
          "pekko.cluster.roles", "set koala.node.roles instead",
          "pekko.remote.artery.transport", "set koala.remote.tls instead",
          "pekko.remote.artery.ssl", "set koala.remote.tls instead",
          "pekko.cluster.split-brain-resolver.stable-after",
              "set koala.node.down-unreachable-after instead",
          "pekko.actor.provider", "Koala's nodes form a Pekko cluster",
          "pekko.remote.artery.advanced.maximum-frame-size",
              "Koala sends frames of up to " + ChannelSettings.FRAME_BYTES + " bytes");

  private HostSettings() {}

  /**
   * {@code application} with {@code koala}'s settings added: a setting the application did not make
   * (absent, or equal to Pekko's or Koala's default in {@code reference}) takes Koala's value; one
   * it made is kept where Koala only prefers a value or its value is at least Koala's minimum.
   *
   * @throws ConfigurationException listing every setting the application made that Koala cannot run
   *     with
   */
  public static Config merge(Config application, Config koala, Config reference) {
    Config required = koala;
    List<String> conflicts = new ArrayList<>();
    for (Map.Entry<String, ConfigValue> e : koala.entrySet()) {
      String path = e.getKey();
      if (!application.hasPath(path)) {
        continue;
      }
      ConfigValue mine = application.getValue(path);
      if (same(mine, e.getValue())
          || (reference.hasPath(path) && same(mine, reference.getValue(path)))) {
        continue; // not the application's choice, or the same one
      }
      if (PREFERRED.contains(path)) {
        required = required.withoutPath(path);
      } else if (AT_LEAST.contains(path) && atLeast(application, koala, path)) {
        required = required.withoutPath(path);
      } else {
        conflicts.add(conflict(path, mine, e.getValue()));
      }
    }
    if (!conflicts.isEmpty()) {
      throw new ConfigurationException(
          "the application's Pekko settings contradict what Koala needs: "
              + String.join("; ", conflicts));
    }
    return required.withFallback(application);
  }

  /**
   * Checks that a runtime with {@code config} can run in the application's ActorSystem: its workers
   * in that system, and with checkpoints a data directory the system's settings can name.
   */
  static void checkRuntime(io.koala.runtime.KoalaConfig config) {
    if (config.checkpointing() && config.dataDir() == null) {
      throw new ConfigurationException(
          "koala.data-dir is not set: a runtime in the application's ActorSystem keeps its"
              + " checkpoint journal there, and the system's settings name it"
              + " (KoalaRuntime.hostConfig)");
    }
    if (config.separateSystems()) {
      throw new ConfigurationException(
          "koala.worker-systems = \"separate\" starts ActorSystems of Koala's own; a runtime in"
              + " the application's ActorSystem runs its workers there: use \"shared\"");
    }
  }

  /**
   * Checks that {@code host} can run a runtime ({@link #problems}).
   *
   * @throws ConfigurationException naming every setting Koala cannot run with
   */
  static void check(org.apache.pekko.actor.typed.ActorSystem<?> host, Config journal) {
    List<String> problems = problems(host.settings().config(), journal);
    if (!problems.isEmpty()) {
      throw new ConfigurationException(
          "ActorSystem " + host.name() + " cannot run Koala: " + String.join("; ", problems));
    }
  }

  /**
   * What keeps an ActorSystem Koala did not create, with settings {@code system}, from running a
   * runtime: Koala's serializer not bound (its {@code reference.conf} not loaded), no task mailbox,
   * a frame too small for remoting, the checkpoint journal's settings ({@code journal}, null
   * without checkpoints) missing or different. Empty: none.
   */
  public static List<String> problems(Config system, Config journal) {
    List<String> out = new ArrayList<>();
    String binding = "pekko.actor.serialization-bindings.\"io.koala.protocol.KoalaMessage\"";
    if (!system.hasPath(binding) || !system.getString(binding).equals("koala")) {
      out.add(
          binding
              + " is not \"koala\" (Koala's serializer): build the ActorSystem's settings over"
              + " ConfigFactory.load(), which includes Koala's reference.conf");
    }
    if (!system.hasPath("koala.task-mailbox.mailbox-type")) {
      out.add("koala.task-mailbox.mailbox-type is not set (Koala's reference.conf is not loaded)");
    }
    String provider = system.getString("pekko.actor.provider");
    String frame = "pekko.remote.artery.advanced.maximum-frame-size";
    if (!provider.equals("local") && system.getBytes(frame) < ChannelSettings.FRAME_BYTES) {
      out.add(
          frame
              + " = "
              + system.getBytes(frame)
              + " bytes with pekko.actor.provider = "
              + provider
              + ": Koala sends frames of up to "
              + ChannelSettings.FRAME_BYTES
              + " bytes");
    }
    if (journal != null) {
      for (Map.Entry<String, ConfigValue> e : journal.entrySet()) {
        if (!system.hasPath(e.getKey()) || !same(system.getValue(e.getKey()), e.getValue())) {
          out.add(
              e.getKey()
                  + " is "
                  + (system.hasPath(e.getKey()) ? system.getValue(e.getKey()).render() : "not set")
                  + ", not "
                  + e.getValue().render()
                  + " (Koala's checkpoint journal): create the ActorSystem with"
                  + " KoalaRuntime.hostConfig(..)");
          break;
        }
      }
    }
    return out;
  }

  private static boolean same(ConfigValue a, ConfigValue b) {
    return Objects.equals(a.unwrapped(), b.unwrapped());
  }

  private static boolean atLeast(Config application, Config koala, String path) {
    try {
      if (path.endsWith("frame-size")) {
        return application.getBytes(path) >= koala.getBytes(path);
      }
      Duration mine = application.getDuration(path);
      return mine.compareTo(koala.getDuration(path)) >= 0;
    } catch (RuntimeException e) {
      return false; // not a size or duration: the conflict names it
    }
  }

  private static String conflict(String path, ConfigValue mine, ConfigValue koala) {
    String instead = "Koala sets it";
    for (Map.Entry<String, String> e : INSTEAD.entrySet()) {
      if (path.startsWith(e.getKey())) {
        instead = e.getValue();
      }
    }
    return path
        + " = "
        + mine.render()
        + " where Koala needs "
        + (AT_LEAST.contains(path) ? "at least " : "")
        + koala.render()
        + " ("
        + instead
        + ")";
  }
}
