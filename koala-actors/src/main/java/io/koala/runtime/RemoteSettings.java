package io.koala.runtime;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import io.koala.protocol.ChannelSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * How Koala's ActorSystems talk to each other over Artery: TCP, or TLS over TCP with the keys of
 * {@code koala.remote.tls}, and the frame every Koala message must fit in. The one place that turns
 * Koala's remoting configuration into Pekko settings: the embedded runtime's worker systems ({@code
 * koala.worker-systems = separate}) use it, and so does any module that starts an ActorSystem of
 * its own (a cluster node).
 *
 * <p>Validated when the {@link KoalaConfig} is created: with TLS on, the key store and the trust
 * store must exist and open with their passwords, the key store must hold a private key the key
 * password unlocks, and this JVM must support the protocol and the cipher suites; otherwise a
 * {@link ConfigurationException} names the path and the file. Java serialization stays off in every
 * fragment this class returns. Immutable and thread-safe; {@link #toString()} never shows a
 * password.
 *
 * <pre>{@code
 * Config pekko =
 *     KoalaConfig.load()
 *         .remote()
 *         .pekkoConfig("10.0.0.5", 25520)
 *         .withFallback(ConfigFactory.parseString("pekko.actor.provider = cluster"))
 *         .withFallback(ConfigFactory.load());
 * ActorSystem<Void> node = ActorSystem.create(Behaviors.empty(), "koala", pekko);
 * }</pre>
 */
public final class RemoteSettings {
  private static final String TLS = "koala.remote.tls";

  private final boolean tls;
  private final Path keyStore;
  private final String keyStorePassword;
  private final String keyPassword;
  private final Path trustStore;
  private final String trustStorePassword;
  private final String protocol;
  private final List<String> enabledAlgorithms;
  private final boolean mutualAuthentication;

  private RemoteSettings(Config c) {
    this.tls = KoalaConfig.bool(c, TLS + ".enabled");
    String keyStoreName = KoalaConfig.string(c, TLS + ".key-store");
    this.keyStorePassword = KoalaConfig.string(c, TLS + ".key-store-password");
    String keyPasswordValue = KoalaConfig.string(c, TLS + ".key-password");
    this.keyPassword = keyPasswordValue.isEmpty() ? keyStorePassword : keyPasswordValue;
    String trustStoreName = KoalaConfig.string(c, TLS + ".trust-store");
    this.trustStorePassword = KoalaConfig.string(c, TLS + ".trust-store-password");
    this.protocol = KoalaConfig.string(c, TLS + ".protocol");
    this.enabledAlgorithms =
        List.copyOf(
            KoalaConfig.read(
                c,
                TLS + ".enabled-algorithms",
                "a list of cipher suite names",
                () -> c.getStringList(TLS + ".enabled-algorithms")));
    this.mutualAuthentication = KoalaConfig.bool(c, TLS + ".require-mutual-authentication");
    if (!tls) {
      this.keyStore = null;
      this.trustStore = null;
      return;
    }
    this.keyStore = file(TLS + ".key-store", keyStoreName);
    this.trustStore = file(TLS + ".trust-store", trustStoreName);
    KeyStore keys =
        open(TLS + ".key-store", keyStore, TLS + ".key-store-password", keyStorePassword);
    checkKey(keys);
    KeyStore trusted =
        open(TLS + ".trust-store", trustStore, TLS + ".trust-store-password", trustStorePassword);
    checkTrusted(trusted);
    checkProtocolAndAlgorithms();
  }

  /** The settings in {@code config} (a resolved config that contains Koala's defaults). */
  static RemoteSettings from(Config config) {
    return new RemoteSettings(config);
  }

  /** Whether Artery runs over TLS ({@code koala.remote.tls.enabled}). */
  public boolean tlsEnabled() {
    return tls;
  }

  /** Whether a TLS peer must present a trusted certificate too, not only the one it connects to. */
  public boolean mutualAuthentication() {
    return mutualAuthentication;
  }

  /** The key store ({@code koala.remote.tls.key-store}) as an absolute path; null with TLS off. */
  public Path keyStore() {
    return keyStore;
  }

  /**
   * The trust store ({@code koala.remote.tls.trust-store}) as an absolute path; null with TLS off.
   */
  public Path trustStore() {
    return trustStore;
  }

  /** Artery's transport: {@code "tls-tcp"} with TLS on, {@code "tcp"} otherwise. */
  public String transport() {
    return tls ? "tls-tcp" : "tcp";
  }

  /**
   * The Pekko settings of an ActorSystem that listens on {@code hostname:port} (port 0: any free
   * port): Artery's transport, its frame size ({@link ChannelSettings#FRAME_BYTES}, the bound every
   * Koala message is checked against), TLS when it is on, and Java serialization off. The actor
   * provider ({@code remote} or {@code cluster}) is the caller's to set; so are Pekko's other
   * settings, to which this fragment is meant to be a higher priority ({@code
   * fragment.withFallback(rest)}).
   */
  public Config pekkoConfig(String hostname, int port) {
    Map<String, Object> s = new HashMap<>();
    s.put("pekko.actor.allow-java-serialization", false);
    s.put("pekko.remote.artery.transport", transport());
    s.put("pekko.remote.artery.canonical.hostname", hostname);
    s.put("pekko.remote.artery.canonical.port", port);
    s.put("pekko.remote.artery.advanced.maximum-frame-size", ChannelSettings.FRAME_BYTES);
    if (tls) {
      String ssl = "pekko.remote.artery.ssl.";
      // the provider the settings below configure, whatever else the application set
      s.put(
          ssl + "ssl-engine-provider",
          "org.apache.pekko.remote.artery.tcp.ConfigSSLEngineProvider");
      String engine = ssl + "config-ssl-engine.";
      s.put(engine + "key-store", keyStore.toString());
      s.put(engine + "key-store-password", keyStorePassword);
      s.put(engine + "key-password", keyPassword);
      s.put(engine + "trust-store", trustStore.toString());
      s.put(engine + "trust-store-password", trustStorePassword);
      s.put(engine + "protocol", protocol);
      s.put(engine + "enabled-algorithms", enabledAlgorithms);
      s.put(engine + "require-mutual-authentication", mutualAuthentication);
    }
    Config out = ConfigFactory.empty();
    for (Map.Entry<String, Object> e : s.entrySet()) {
      out = out.withValue(e.getKey(), ConfigValueFactory.fromAnyRef(e.getValue()));
    }
    return out;
  }

  // ---------------------------------------------------------------- checks

  private static Path file(String path, String name) {
    if (name.isBlank()) {
      throw new ConfigurationException(
          path + " is empty; with " + TLS + ".enabled = on it must name a JKS or PKCS12 file");
    }
    Path p = Path.of(name).toAbsolutePath().normalize();
    if (!Files.isRegularFile(p)) {
      String resolved = p.toString().equals(name) ? "" : " (" + p + ")";
      throw new ConfigurationException(
          path
              + " = \""
              + name
              + "\": no such file"
              + resolved
              + "; "
              + TLS
              + ".enabled = on needs it");
    }
    if (!Files.isReadable(p)) {
      throw new ConfigurationException(
          path + " = \"" + name + "\": the file " + p + " is not readable by this process");
    }
    return p;
  }

  /** Opens a key store as Pekko's ConfigSSLEngineProvider does (the JVM's default type). */
  private static KeyStore open(String path, Path file, String passwordPath, String password) {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(in, password.toCharArray());
      return ks;
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigurationException(
          path
              + " = \""
              + file
              + "\" cannot be opened with "
              + passwordPath
              + " (a JKS or PKCS12 key store and its password are expected): "
              + e.getMessage(),
          e);
    }
  }

  private void checkKey(KeyStore keys) {
    try {
      boolean hasKey = false;
      for (String alias : Collections.list(keys.aliases())) {
        hasKey |= keys.isKeyEntry(alias);
      }
      if (!hasKey) {
        throw new ConfigurationException(
            TLS
                + ".key-store = \""
                + keyStore
                + "\" holds no private key; it must hold this node's key and certificate");
      }
      KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm())
          .init(keys, keyPassword.toCharArray());
    } catch (GeneralSecurityException e) {
      throw new ConfigurationException(
          TLS
              + ".key-password does not unlock the key in "
              + keyStore
              + " (an empty key-password means key-store-password): "
              + e.getMessage(),
          e);
    }
  }

  private void checkTrusted(KeyStore trusted) {
    try {
      boolean any = false;
      for (String alias : Collections.list(trusted.aliases())) {
        any |= trusted.getCertificate(alias) != null;
      }
      if (!any) {
        throw new ConfigurationException(
            TLS
                + ".trust-store = \""
                + trustStore
                + "\" holds no certificate, so this node would trust no peer");
      }
    } catch (GeneralSecurityException e) {
      throw new ConfigurationException(
          TLS + ".trust-store = \"" + trustStore + "\" cannot be read: " + e.getMessage(), e);
    }
  }

  private void checkProtocolAndAlgorithms() {
    SSLParameters supported;
    try {
      supported = SSLContext.getDefault().getSupportedSSLParameters();
    } catch (GeneralSecurityException e) {
      throw new ConfigurationException("this JVM has no usable TLS implementation", e);
    }
    List<String> protocols = List.of(supported.getProtocols());
    if (!protocols.contains(protocol)) {
      throw new ConfigurationException(
          TLS
              + ".protocol = \""
              + protocol
              + "\" is not supported by this JVM; allowed: "
              + String.join(", ", protocols));
    }
    if (enabledAlgorithms.isEmpty()) {
      throw new ConfigurationException(
          TLS + ".enabled-algorithms is empty; it must name at least one cipher suite");
    }
    Set<String> suites = Set.of(supported.getCipherSuites());
    List<String> unknown = new ArrayList<>();
    for (String a : enabledAlgorithms) {
      if (!suites.contains(a)) {
        unknown.add(a);
      }
    }
    if (!unknown.isEmpty()) {
      throw new ConfigurationException(
          TLS + ".enabled-algorithms: " + unknown + " not supported by this JVM's TLS");
    }
  }

  @Override
  public String toString() {
    return tls
        ? "RemoteSettings[tls-tcp, key-store="
            + keyStore
            + ", trust-store="
            + trustStore
            + ", protocol="
            + protocol
            + ", enabled-algorithms="
            + enabledAlgorithms
            + ", mutual-authentication="
            + mutualAuthentication
            + "]"
        : "RemoteSettings[tcp]";
  }
}
