package io.koala.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@code koala node} in a process of its own (this JVM's java and class path), its output in a
 * log file: started from a node configuration file, stopped gracefully (SIGTERM: it leaves the
 * cluster, its tasks moved off first) or killed (SIGKILL: it vanishes, and is downed).
 */
public final class NodeProcess implements AutoCloseable {
  /** Printed by the node once it is an Up member (see the CLI's node command). */
  public static final String UP = "koala node: up at ";

  /** Printed by the node once a {@code --submit} dataflow runs as a job, with its name. */
  public static final String SUBMITTED = "koala node: submitted ";

  /** Printed by the node as it stops, with its remoting drops. */
  public static final String STOPPED = "koala node: stopped; remoting drops: ";

  private final String name;
  private final Process process;
  private final Path log;

  private NodeProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts node {@code name} from {@code config} with the further {@code koala node} {@code
   * options} (such as {@code --dataflows JAR}), its output in {@code <config>.log}.
   */
  public static NodeProcess start(String name, Path config, String... options) {
    return start(List.of(), name, config, options);
  }

  /**
   * {@link #start(String, Path, String...)}, the java command run by {@code launcher} (such as
   * {@code ip netns exec NAME}, which runs it in a network namespace; it must exec the command, so
   * that a kill reaches the node).
   */
  public static NodeProcess start(
      List<String> launcher, String name, Path config, String... options) {
    Path log = config.resolveSibling(config.getFileName() + ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(launcher);
    command.addAll(
        List.of(
            java,
            "-Xmx768m",
            "-XX:+UseParallelGC",
            "-Dkoala.log.level=INFO",
            "-cp",
            System.getProperty("java.class.path"),
            KoalaCli.class.getName(),
            "node",
            "--config",
            config.toString()));
    command.addAll(List.of(options));
    ProcessBuilder b =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    try {
      return new NodeProcess(name, b.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start node " + name, e);
    }
  }

  public String name() {
    return name;
  }

  /** Waits until the node says it is Up. */
  public void awaitUp(Duration timeout) {
    awaitLine(UP, timeout);
  }

  /** Waits until the node says it submitted a dataflow ({@code --submit}); returns its name. */
  public String awaitSubmitted(Duration timeout) {
    return awaitLine(SUBMITTED, timeout);
  }

  private String awaitLine(String prefix, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (String line : lines()) {
        if (line.startsWith(prefix)) {
          return line.substring(prefix.length()).trim();
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "node "
                + name
                + " exited ("
                + process.exitValue()
                + ") before '"
                + prefix
                + "'; see "
                + log);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "node " + name + " did not print '" + prefix + "' within " + timeout + "; see " + log);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  /** The lines the node has written to its log so far. */
  public List<String> lines() {
    try {
      return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      return List.of(); // being written: read again
    }
  }

  /**
   * Stops the node gracefully (SIGTERM: it leaves the cluster once its tasks are moved off) and
   * waits for the process to end; returns its remoting drops.
   */
  public long stop(Duration timeout) {
    process.destroy();
    waitFor(timeout);
    String drops = awaitLine(STOPPED, Duration.ofSeconds(1));
    return Long.parseLong(drops);
  }

  /** Kills the node (SIGKILL): it vanishes without a word. */
  public void kill() {
    process.destroyForcibly();
    waitFor(Duration.ofSeconds(30));
  }

  public boolean alive() {
    return process.isAlive();
  }

  private void waitFor(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("node " + name + " did not stop within " + timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while node " + name + " stopped", e);
    }
  }

  /** Kills the node if it still runs. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }

  /**
   * Writes node {@code i}'s configuration file, {@code dir/node-i.conf}: the {@code common}
   * settings, its port ({@code ports[i]}) and its data directory ({@code dir/node-i}).
   */
  public static Path configFile(Path dir, int i, int[] ports, String common) {
    Path file = dir.resolve("node-" + i + ".conf");
    String s =
        common
            + "koala.node.port = "
            + ports[i]
            + "\nkoala.data-dir = \""
            + dir.resolve("node-" + i)
            + "\"\n";
    try {
      Files.writeString(file, s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  /** {@code n} TCP ports free on loopback now. */
  public static int[] freePorts(int n) {
    int[] ports = new int[n];
    List<ServerSocket> open = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        open.add(s);
        ports[i] = s.getLocalPort();
      }
      for (ServerSocket s : open) {
        s.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ports;
  }
}
