package io.koala.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key and trust stores for TLS tests, made by the JDK's own {@code keytool}: a self-signed RSA 2048
 * key pair per node in a PKCS12 key store, its certificate exported, and PKCS12 trust stores that
 * hold the chosen certificates. Every store has the password {@link #PASSWORD}.
 */
final class TestKeystores {
  static final String PASSWORD = "koala-test";

  private final Path dir;

  TestKeystores(Path dir) {
    this.dir = dir;
  }

  /**
   * A new key pair for {@code node}: its key store {@code <node>.p12}, its certificate exported.
   */
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
    keytool(
        "-exportcert",
        "-alias",
        node,
        "-keystore",
        store.toString(),
        "-storepass",
        PASSWORD,
        "-rfc",
        "-file",
        certificate(node).toString());
    return store;
  }

  /** A trust store {@code name.p12} holding the certificates of {@code nodes}. */
  Path trustStore(String name, String... nodes) {
    Path store = dir.resolve(name + ".p12");
    for (String node : nodes) {
      keytool(
          "-importcert",
          "-noprompt",
          "-alias",
          node,
          "-file",
          certificate(node).toString(),
          "-storetype",
          "PKCS12",
          "-keystore",
          store.toString(),
          "-storepass",
          PASSWORD);
    }
    return store;
  }

  private Path certificate(String node) {
    return dir.resolve(node + ".crt");
  }

  /** Runs keytool (a short-lived JVM: C1 only, serial GC) and fails with its output if it fails. */
  private void keytool(String... args) {
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
