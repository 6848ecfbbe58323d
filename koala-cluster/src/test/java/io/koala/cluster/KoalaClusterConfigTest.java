package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.runtime.ConfigurationException;
import io.koala.runtime.KoalaConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A node's configuration ({@link KoalaCluster#systemConfig}) and the checks of {@link
 * KoalaCluster#start}: what {@code koala.node.*} and {@code koala.cluster.leave-timeout} become in
 * Pekko's settings, and one {@link ConfigurationException} naming the path for every invalid value.
 * No cluster is formed; the two start checks each start one ActorSystem.
 */
class KoalaClusterConfigTest {

  /** {@code settings} over the test application's configuration. */
  private static Config config(String settings) {
    return ConfigFactory.parseString(settings).withFallback(ConfigFactory.load());
  }

  @Test
  void aNodeIsAClusterMemberAtItsAddressJoiningItsSeeds() {
    Config c =
        KoalaCluster.systemConfig(
            config(
                "koala.node {\n"
                    + "  system-name = orders\n"
                    + "  host = \"10.1.2.3\"\n"
                    + "  port = 25520\n"
                    + "  seed-nodes = [\"10.1.2.3:25520\", \"seed.example.com:2552\", \"[::1]:2553\"]\n"
                    + "  roles = [ingest, \"state\"]\n"
                    + "  down-unreachable-after = 7 s\n"
                    + "}\n"
                    + "koala.cluster.leave-timeout = 2 minutes\n"
                    + "pekko.actor.allow-java-serialization = on\n"
                    + "pekko.log-dead-letters = 3\n"));

    assertThat(c.getString("pekko.actor.provider")).isEqualTo("cluster");
    assertThat(c.getString("pekko.remote.artery.transport")).isEqualTo("tcp");
    assertThat(c.getString("pekko.remote.artery.canonical.hostname")).isEqualTo("10.1.2.3");
    assertThat(c.getInt("pekko.remote.artery.canonical.port")).isEqualTo(25520);
    assertThat(c.getStringList("pekko.cluster.seed-nodes"))
        .containsExactly(
            "pekko://orders@10.1.2.3:25520",
            "pekko://orders@seed.example.com:2552",
            "pekko://orders@[::1]:2553");
    assertThat(c.getStringList("pekko.cluster.roles")).containsExactly("ingest", "state");
    assertThat(c.getString("pekko.cluster.downing-provider-class"))
        .isEqualTo("org.apache.pekko.cluster.sbr.SplitBrainResolverProvider");
    assertThat(c.getString("pekko.cluster.split-brain-resolver.active-strategy"))
        .isEqualTo("keep-majority");
    assertThat(c.getDuration("pekko.cluster.split-brain-resolver.stable-after"))
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(c.getDuration("pekko.coordinated-shutdown.phases.before-cluster-shutdown.timeout"))
        .isGreaterThan(Duration.ofMinutes(2));
    assertThat(c.getBoolean("pekko.actor.allow-java-serialization"))
        .as("Java serialization, which the application turned on: its choice is kept")
        .isTrue();
    assertThat(c.getInt("pekko.log-dead-letters"))
        .as("the application's other settings")
        .isEqualTo(3);
    // the node's configuration is a valid Koala configuration, with the same leave timeout
    assertThat(KoalaConfig.from(c).underlying().getDuration("koala.cluster.leave-timeout"))
        .isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void theDefaultsMakeASingleNodeThatTheApplicationJoins() {
    Config c = KoalaCluster.systemConfig(ConfigFactory.empty());
    assertThat(c.getString("pekko.actor.provider")).isEqualTo("cluster");
    assertThat(c.getInt("pekko.remote.artery.canonical.port")).isEqualTo(2551);
    assertThat(c.getStringList("pekko.cluster.seed-nodes")).isEmpty();
    assertThat(c.getDuration("pekko.cluster.split-brain-resolver.stable-after"))
        .isEqualTo(Duration.ofSeconds(20));
    assertThat(c.getDuration("pekko.coordinated-shutdown.phases.before-cluster-shutdown.timeout"))
        .isGreaterThan(Duration.ofMinutes(5));
  }

  @Test
  void withTlsTheNodeTalksTlsTcpWithItsStores(@TempDir Path dir) {
    // one store is key store and trust store: it holds the node's key and its certificate
    Path store = new TestKeystores(dir).keyStore("node");
    Config c =
        KoalaCluster.systemConfig(
            config("koala.node.port = 0\n" + TestKeystores.tlsConfig(store, store)));
    assertThat(c.getString("pekko.actor.provider")).isEqualTo("cluster");
    assertThat(c.getString("pekko.remote.artery.transport")).isEqualTo("tls-tcp");
    String engine = "pekko.remote.artery.ssl.config-ssl-engine.";
    assertThat(c.getString(engine + "key-store")).isEqualTo(store.toAbsolutePath().toString());
    assertThat(c.getString(engine + "trust-store")).isEqualTo(store.toAbsolutePath().toString());
    assertThat(c.getBoolean(engine + "require-mutual-authentication")).isTrue();
    assertThat(c.getBoolean("pekko.actor.allow-java-serialization")).isFalse();
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "koala.node.port | 65536 | is outside 0..65535",
        "koala.node.port | -1 | is outside 0..65535",
        "koala.node.port | any | expected a port number 0..65535",
        "koala.node.host | \"\" | ",
        "koala.node.seed-nodes | [localhost] | \"localhost\" is not host:port",
        "koala.node.seed-nodes | [\"host:0\"] | \"host:0\" is not host:port (port 1..65535)",
        "koala.node.seed-nodes | [\"host:70000\"] | is not host:port",
        "koala.node.seed-nodes | [\"host:port\"] | is not host:port",
        "koala.node.seed-nodes | [\":2551\"] | is not host:port",
        "koala.node.seed-nodes | [\"pekko://koala@host:2551\"] | is not host:port",
        "koala.node.seed-nodes | [\"koala@host:2551\"] | is not host:port",
        "koala.node.seed-nodes | [\"my host:2551\"] | is not host:port",
        "koala.node.seed-nodes | \"host:2551\" | expected a list of strings",
        "koala.node.system-name | \"my koala\" | is invalid; use letters, digits, - and _",
        "koala.node.system-name | \"-koala\" | is invalid",
        "koala.node.system-name | \"\" | is invalid",
        "koala.node.roles | ingest | expected a list of strings",
        "koala.node.down-unreachable-after | soon | expected a duration",
        "koala.node.down-unreachable-after | 0 s | must be positive",
        "koala.cluster.leave-timeout | 0 s | must be positive",
        "koala.cluster.leave-timeout | -5 s | must be positive",
        "koala.cluster.leave-timeout | soon | expected a duration",
        "koala.node.http.port | 70000 | is outside 0..65535",
        "koala.node.http.port | web | is invalid; allowed: off, or a port number 0..65535",
        "koala.node.http.port | [8080] | expected off or a port number",
        "koala.node.http.admin-token | short | is too short (5 characters); use at least 16",
      })
  void anInvalidValueFailsNamingItsPath(String path, String value, String hint) {
    assertThatThrownBy(() -> KoalaCluster.systemConfig(config(path + " = " + value)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(path)
        .hasMessageContaining(hint == null ? "" : hint)
        .satisfies(
            e ->
                assertThat(e.getCause() instanceof ConfigurationException)
                    .as("one error, not one wrapped in another")
                    .isFalse());
  }

  @Test
  void theEffectiveConfigurationHidesTheAdminToken() {
    String token = "never-log-this-token";
    Config c =
        KoalaCluster.systemConfig(
            config("koala.node.http.port = 8558\nkoala.node.http.admin-token = " + token));
    assertThat(KoalaCluster.http(c)).isEqualTo(new KoalaCluster.Http("127.0.0.1", 8558, token));
    String rendered = KoalaConfig.from(c).render();
    assertThat(rendered).contains("admin-token").contains("***").doesNotContain(token);
  }

  @Test
  void checkpointsNeedADataDirectoryForTheJournal() {
    assertThatThrownBy(
            () ->
                KoalaCluster.systemConfig(
                    config(
                        "koala.checkpoint.interval = 1 s\n"
                            + "koala.checkpoint.directory = \"/shared/checkpoints\"\n"
                            + "koala.data-dir = \"\"\n")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.data-dir is not set");
  }

  @Test
  void checkpointsNeedSharedStorage(@TempDir Path dir) {
    assertThatThrownBy(
            () ->
                KoalaCluster.systemConfig(
                    config(
                        "koala.checkpoint.interval = 1 s\n"
                            + "koala.checkpoint.directory = \"\"\n"
                            + "koala.data-dir = \""
                            + dir.toAbsolutePath()
                            + "\"\n")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.checkpoint.directory is not set");
    Config ok =
        KoalaCluster.systemConfig(
            config(
                "koala.checkpoint.interval = 1 s\n"
                    + "koala.checkpoint.directory = \""
                    + dir.resolve("shared").toAbsolutePath()
                    + "\"\n"
                    + "koala.data-dir = \""
                    + dir.toAbsolutePath()
                    + "\"\n"));
    assertThat(ok.getString("pekko.actor.provider")).isEqualTo("cluster");
  }

  @Test
  void startRefusesASystemWithoutTheClusterProvider() throws Exception {
    ActorSystem<Void> system =
        ActorSystem.create(Behaviors.empty(), "local-node", config("pekko.actor.provider = local"));
    try {
      assertThatThrownBy(() -> KoalaCluster.start(system, KoalaConfig.load()))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageStartingWith("pekko.actor.provider is \"local\"")
          .hasMessageContaining("KoalaCluster.systemConfig");
    } finally {
      terminate(system);
    }
  }

  @Test
  void startRefusesAShutdownPhaseNoLongerThanTheLeaveTimeout() throws Exception {
    String phase = "pekko.coordinated-shutdown.phases.before-cluster-shutdown.timeout";
    Config node =
        ConfigFactory.parseString(phase + " = 10 s")
            .withFallback(KoalaCluster.systemConfig(config("koala.node.port = 0")));
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "koala", node);
    try {
      assertThatThrownBy(() -> KoalaCluster.start(system, KoalaConfig.from(node)))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageStartingWith(phase + " (10 s)")
          .hasMessageContaining("koala.cluster.leave-timeout (5 min)");
    } finally {
      terminate(system);
    }
  }

  private static void terminate(ActorSystem<?> system) throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void koalaOverridesNoPekkoSettingOfTheApplicationAndNamesEachConflict() {
    Config kept =
        KoalaCluster.systemConfig(
            config(
                "pekko.remote.artery.advanced.maximum-frame-size = 4 MiB\n"
                    + "pekko.cluster.split-brain-resolver.active-strategy = keep-oldest\n"));
    assertThat(kept.getBytes("pekko.remote.artery.advanced.maximum-frame-size"))
        .as("a larger frame than Koala needs")
        .isEqualTo(4L << 20);
    assertThat(kept.getString("pekko.cluster.split-brain-resolver.active-strategy"))
        .isEqualTo("keep-oldest");

    assertThatThrownBy(
            () ->
                KoalaCluster.systemConfig(
                    config(
                        "pekko.actor.provider = remote\n"
                            + "pekko.cluster.seed-nodes = [\"pekko://x@h:1\"]\n"
                            + "pekko.remote.artery.advanced.maximum-frame-size = 64 KiB\n")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("pekko.actor.provider = \"remote\" where Koala needs \"cluster\"")
        .hasMessageContaining("pekko.cluster.seed-nodes")
        .hasMessageContaining("set koala.node.seed-nodes instead")
        .hasMessageContaining(
            "pekko.remote.artery.advanced.maximum-frame-size = \"64 KiB\" where Koala needs at"
                + " least 1048576");
  }
}
