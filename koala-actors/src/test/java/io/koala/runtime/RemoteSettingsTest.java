package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.koala.protocol.ChannelSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code koala.remote}: TLS settings are checked at start-up (each problem one {@link
 * ConfigurationException} naming the path and the file) and become the Pekko settings of Artery's
 * {@code tls-tcp} transport.
 */
class RemoteSettingsTest {
  @TempDir static Path dir;
  static Path keyStore;
  static Path trustStore;

  @BeforeAll
  static void generateStores() {
    TestKeystores stores = new TestKeystores(dir);
    keyStore = stores.keyStore("node-a");
    trustStore = stores.trustStore("trust-a", "node-a");
  }

  /** TLS on with the generated stores. */
  static KoalaConfig tls(Path key, Path trust) {
    return KoalaConfig.load().withTls(key, TestKeystores.PASSWORD, trust, TestKeystores.PASSWORD);
  }

  @Test
  void tlsBecomesArterysTlsTcpTransportWithTheStoresAndJavaSerializationOff() {
    RemoteSettings remote = tls(keyStore, trustStore).remote();
    assertThat(remote.tlsEnabled()).isTrue();
    assertThat(remote.mutualAuthentication()).isTrue();
    Config pekko = remote.pekkoConfig("127.0.0.1", 0);
    assertThat(pekko.getString("pekko.remote.artery.transport")).isEqualTo("tls-tcp");
    assertThat(pekko.getString("pekko.remote.artery.canonical.hostname")).isEqualTo("127.0.0.1");
    assertThat(pekko.getInt("pekko.remote.artery.canonical.port")).isZero();
    assertThat(pekko.getBytes("pekko.remote.artery.advanced.maximum-frame-size"))
        .isEqualTo(ChannelSettings.FRAME_BYTES);
    assertThat(pekko.getBoolean("pekko.actor.allow-java-serialization")).isFalse();
    Config engine = pekko.getConfig("pekko.remote.artery.ssl.config-ssl-engine");
    assertThat(engine.getString("key-store")).isEqualTo(keyStore.toAbsolutePath().toString());
    assertThat(engine.getString("trust-store")).isEqualTo(trustStore.toAbsolutePath().toString());
    assertThat(engine.getString("key-store-password")).isEqualTo(TestKeystores.PASSWORD);
    // an empty key-password is the key store's
    assertThat(engine.getString("key-password")).isEqualTo(TestKeystores.PASSWORD);
    assertThat(engine.getString("trust-store-password")).isEqualTo(TestKeystores.PASSWORD);
    assertThat(engine.getString("protocol")).isEqualTo("TLSv1.3");
    assertThat(engine.getStringList("enabled-algorithms"))
        .containsExactly("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256");
    assertThat(engine.getBoolean("require-mutual-authentication")).isTrue();
    assertThat(
            tls(keyStore, trustStore)
                .with("koala.remote.tls.require-mutual-authentication", false)
                .remote()
                .pekkoConfig("127.0.0.1", 0)
                .getBoolean(
                    "pekko.remote.artery.ssl.config-ssl-engine.require-mutual-authentication"))
        .isFalse();
  }

  @Test
  void withoutTlsTheTransportIsTcpAndNoStoreIsNeeded() {
    Config pekko = KoalaConfig.load().remote().pekkoConfig("10.0.0.5", 25520);
    assertThat(pekko.getString("pekko.remote.artery.transport")).isEqualTo("tcp");
    assertThat(pekko.getInt("pekko.remote.artery.canonical.port")).isEqualTo(25520);
    assertThat(pekko.hasPath("pekko.remote.artery.ssl")).isFalse();
    assertThat(pekko.getBoolean("pekko.actor.allow-java-serialization")).isFalse();
  }

  @Test
  void passwordsNeverShowInRenderingsOrToString() {
    KoalaConfig config = tls(keyStore, trustStore);
    assertThat(config.render()).contains("***").doesNotContain(TestKeystores.PASSWORD);
    assertThat(config.toString()).doesNotContain(TestKeystores.PASSWORD);
    assertThat(config.remote().toString())
        .contains("tls-tcp")
        .doesNotContain(TestKeystores.PASSWORD);
  }

  @Test
  void aMissingKeyStoreNamesThePathAndTheFile() {
    Path missing = dir.resolve("missing.p12");
    assertThatThrownBy(() -> tls(missing, trustStore))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.remote.tls.key-store = \"" + missing + "\": no such file");
  }

  @Test
  void aMissingTrustStoreNamesThePathAndTheFile() {
    Path missing = dir.resolve("nowhere/trust.p12");
    assertThatThrownBy(() -> tls(keyStore, missing))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.remote.tls.trust-store = \"" + missing + "\": no such file");
  }

  @Test
  void anEmptyKeyStoreSettingSaysWhatItNeeds() {
    assertThatThrownBy(() -> KoalaConfig.load().with("koala.remote.tls.enabled", true))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "koala.remote.tls.key-store is empty; with koala.remote.tls.enabled = on it must name"
                + " a JKS or PKCS12 file");
  }

  @Test
  void aWrongStorePasswordNamesThePasswordsPathAndTheFile() {
    assertThatThrownBy(
            () -> tls(keyStore, trustStore).with("koala.remote.tls.key-store-password", "not-it"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "koala.remote.tls.key-store = \""
                + keyStore
                + "\" cannot be opened with koala.remote.tls.key-store-password");
    assertThatThrownBy(
            () -> tls(keyStore, trustStore).with("koala.remote.tls.trust-store-password", "not-it"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "koala.remote.tls.trust-store = \""
                + trustStore
                + "\" cannot be opened with koala.remote.tls.trust-store-password");
  }

  @Test
  void aWrongKeyPasswordIsNamed() {
    assertThatThrownBy(
            () -> tls(keyStore, trustStore).with("koala.remote.tls.key-password", "not-it"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.remote.tls.key-password does not unlock the key in")
        .hasMessageContaining(keyStore.toString());
  }

  @Test
  void aKeyStoreWithoutAKeyOrAFileThatIsNoStoreIsRefused() throws IOException {
    assertThatThrownBy(() -> tls(trustStore, trustStore))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.remote.tls.key-store = \"" + trustStore + "\"")
        .hasMessageContaining("holds no private key");
    Path text = Files.writeString(dir.resolve("notes.txt"), "not a key store");
    assertThatThrownBy(() -> tls(keyStore, text))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.remote.tls.trust-store = \"" + text + "\" cannot be opened");
  }

  @Test
  void anUnsupportedProtocolOrCipherSuiteIsNamed() {
    assertThatThrownBy(() -> tls(keyStore, trustStore).with("koala.remote.tls.protocol", "TLSv9"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "koala.remote.tls.protocol = \"TLSv9\" is not supported by this JVM; allowed:")
        .hasMessageContaining("TLSv1.3");
    assertThatThrownBy(
            () ->
                tls(keyStore, trustStore)
                    .with("koala.remote.tls.enabled-algorithms", List.of("TLS_NOPE")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.remote.tls.enabled-algorithms: [TLS_NOPE]");
    assertThatThrownBy(
            () -> tls(keyStore, trustStore).with("koala.remote.tls.enabled-algorithms", List.of()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.remote.tls.enabled-algorithms is empty");
  }
}
