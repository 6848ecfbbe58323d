package io.koala.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Hosts on one machine for a test, made with Linux network namespaces ({@code ip netns}, which
 * needs root): a bridge in this process's namespace with the address {@link #hostAddress()}, and
 * {@code n} namespaces, each joined to the bridge by a veth pair and given {@link #address(int)}. A
 * host is cut off from all others by taking its link down ({@link #isolate}), as a pulled cable
 * would, and joined again by {@link #heal}. Names carry a random tag, so that runs never collide;
 * {@link #close} deletes everything made.
 *
 * <p>Where namespaces cannot be made (not root, no {@code ip}), {@link #create} skips the test, or
 * fails it when the environment variable {@value #REQUIRED} is set (CI sets it: there they must
 * run).
 */
final class NetworkNamespaces implements AutoCloseable {
  /** Set (to anything) where a test that needs namespaces must not be skipped. */
  static final String REQUIRED = "KOALA_REQUIRE_NETNS";

  private final String tag;
  private final int subnet;
  private final int hosts;
  private final List<String> made = new ArrayList<>(); // namespaces, to delete
  private final List<String> links = new ArrayList<>(); // veth pairs, by their outer ends
  private boolean bridge;

  private NetworkNamespaces(String tag, int subnet, int hosts) {
    this.tag = tag;
    this.subnet = subnet;
    this.hosts = hosts;
  }

  /** Makes {@code hosts} namespaces on a new bridge. */
  static NetworkNamespaces create(int hosts) {
    String why = unavailable();
    if (why != null) {
      if (System.getenv(REQUIRED) != null) {
        throw new AssertionError(
            REQUIRED + " is set but network namespaces cannot be made: " + why);
      }
      Assumptions.abort("network namespaces cannot be made here (" + why + ")");
    }
    ThreadLocalRandom r = ThreadLocalRandom.current();
    NetworkNamespaces n =
        new NetworkNamespaces(
            Integer.toHexString(0x1000 + r.nextInt(0xefff)), 1 + r.nextInt(250), hosts);
    try {
      n.make();
    } catch (RuntimeException | Error e) {
      n.close();
      throw e;
    }
    return n;
  }

  private static String unavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "not root";
    }
    try {
      Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return "'ip netns list' failed";
      }
      return null;
    } catch (IOException e) {
      return "no 'ip' command: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private void make() {
    ip("link", "add", bridgeName(), "type", "bridge");
    bridge = true;
    ip("addr", "add", hostAddress() + "/24", "dev", bridgeName());
    ip("link", "set", bridgeName(), "up");
    for (int i = 0; i < hosts; i++) {
      String ns = namespace(i);
      ip("netns", "add", ns);
      made.add(ns);
      ip("-n", ns, "link", "set", "lo", "up");
      ip("link", "add", outer(i), "type", "veth", "peer", "name", inner(i));
      links.add(outer(i));
      ip("link", "set", inner(i), "netns", ns);
      ip("link", "set", outer(i), "master", bridgeName());
      ip("link", "set", outer(i), "up");
      ip("-n", ns, "addr", "add", address(i) + "/24", "dev", inner(i));
      ip("-n", ns, "link", "set", inner(i), "up");
    }
  }

  /** The address of this process's end of the bridge. */
  String hostAddress() {
    return "10.213." + subnet + ".1";
  }

  /** The address of host {@code i}. */
  String address(int i) {
    return "10.213." + subnet + "." + (10 + i);
  }

  /** The command prefix that runs a program in host {@code i}'s namespace. */
  List<String> launcher(int i) {
    return List.of("ip", "netns", "exec", namespace(i));
  }

  /** Cuts host {@code i} off from this process and every other host. */
  void isolate(int i) {
    ip("link", "set", outer(i), "down");
  }

  /** Joins host {@code i} to the others again. */
  void heal(int i) {
    ip("link", "set", outer(i), "up");
  }

  private String namespace(int i) {
    return "koala-" + tag + "-" + i;
  }

  private String bridgeName() {
    return "kbr" + tag;
  }

  private String outer(int i) {
    return "kh" + tag + "-" + i;
  }

  private String inner(int i) {
    return "kn" + tag + "-" + i;
  }

  /**
   * Deletes the veth pairs (a namespace deleted while a process still runs in it lives on, and its
   * links with it), the namespaces and the bridge.
   */
  @Override
  public void close() {
    for (String link : links) {
      quietly("link", "delete", link);
    }
    links.clear();
    for (String ns : made) {
      quietly("netns", "delete", ns);
    }
    made.clear();
    if (bridge) {
      quietly("link", "delete", bridgeName());
      bridge = false;
    }
  }

  private static void quietly(String... args) {
    try {
      ip(args);
    } catch (IllegalStateException e) {
      System.err.println("cleaning up: " + e.getMessage());
    }
  }

  private static void ip(String... args) {
    List<String> command = new ArrayList<>(List.of("ip"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", command) + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
    }
  }
}
