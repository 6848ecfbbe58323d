package io.koala.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key and trust stores for TLS tests: a self-signed RSA 2048 key pair per node in a PKCS12 key
 * store, made by the JDK's own {@code keytool}, and PKCS12 trust stores holding chosen nodes'
 * certificates. Every store has the password {@link #PASSWORD}. A smaller copy of koala-actors'
 * test helper of the same name (test classes are not shared between modules).
 */
final class TestKeystores {
  static final String PASSWORD = "koala-test";

  private final Path dir;

  TestKeystores(Path dir) {
    this.dir = dir;
  }

  /** A new key pair for {@code node}, self-signed, in its key store {@code <node>.p12}. */
  Path keyStore(String node) {
    Path store = dir.resolve(node + ".p12");
    keytool(
        "-genkeypair",
        "-alias",
        node,
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-dname",
        "CN=" + node + ", O=Koala tests",
        "-validity",
        "2",
        "-storetype",
        "PKCS12",
        "-keystore",
        store.toString(),
        "-storepass",
        PASSWORD,
        "-keypass",
        PASSWORD);
    return store;
  }

  /**
   * A trust store {@code <name>.p12} holding the certificates in {@code keyStores}, written with
   * the JDK's KeyStore API (no keytool run to export and import a certificate).
   */
  Path trustStore(String name, Path... keyStores) {
    Path store = dir.resolve(name + ".p12");
    try {
      KeyStore trusted = KeyStore.getInstance("PKCS12");
      trusted.load(null, null);
      for (Path keyStore : keyStores) {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
          keys.load(in, PASSWORD.toCharArray());
        }
        for (String alias : Collections.list(keys.aliases())) {
          trusted.setCertificateEntry(alias, keys.getCertificate(alias));
        }
      }
      try (OutputStream out = Files.newOutputStream(store)) {
        trusted.store(out, PASSWORD.toCharArray());
      }
      return store;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot write trust store " + store, e);
    }
  }

  /** The settings of {@code koala.remote.tls} with this key store and trust store, TLS on. */
  static String tlsConfig(Path keyStore, Path trustStore) {
    return "koala.remote.tls {\n"
        + "  enabled = on\n"
        + "  key-store = \""
        + keyStore.toAbsolutePath()
        + "\"\n"
        + "  key-store-password = \""
        + PASSWORD
        + "\"\n"
        + "  trust-store = \""
        + trustStore.toAbsolutePath()
        + "\"\n"
        + "  trust-store-password = \""
        + PASSWORD
        + "\"\n"
        + "}\n";
  }

  /** Runs keytool (a short-lived JVM: C1 only, serial GC) and fails with its output if it fails. */
  private static void keytool(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.add("-J-XX:TieredStopAtLevel=1");
    command.add("-J-XX:+UseSerialGC");
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("keytool did not finish in 60 s: " + command);
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            "keytool failed (exit " + p.exitValue() + "): " + command + "\n" + output);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run keytool: " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running keytool", e);
    }
  }
}
