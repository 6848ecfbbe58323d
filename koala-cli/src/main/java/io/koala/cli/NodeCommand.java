package io.koala.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.cluster.DataflowProvider;
import io.koala.cluster.KoalaCluster;
import io.koala.dataflow.Dataflow;
import io.koala.runtime.ConfigurationException;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.SubmitOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.actor.BootstrapSetup;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code koala node --config FILE [--dataflows JAR,...] [--submit NAME]...}: starts a Koala cluster
 * node ({@link KoalaCluster}) from a HOCON file and runs until it is stopped. SIGTERM (or Ctrl-C)
 * leaves the cluster gracefully: the jobs move the node's tasks to the others first. The node
 * defines the dataflows of the {@link DataflowProvider}s the jars and its own class path list
 * ({@link UserDataflows}); with {@code --submit} it runs those named as jobs once it is Up and a
 * worker is known.
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description = {
      "Starts a Koala cluster node and runs until stopped; SIGTERM leaves gracefully (the jobs move"
          + " its tasks to the other nodes first).",
      "The file sets koala.node.host, port, seed-nodes, roles, koala.data-dir, and any other koala"
          + " or pekko setting (see koala-cluster's reference.conf), and your dataflows' own"
          + " settings.",
      "Your dataflows come from a jar: a public class in it implements",
      "  io.koala.cluster.DataflowProvider, whose List<Dataflow> dataflows(Config)",
      "  is given the node's configuration, and the jar names the class in",
      "  META-INF/services/io.koala.cluster.DataflowProvider.",
      "Start every node with the same --dataflows JAR; one also adds --submit NAME.",
      "Example:",
      "  ./koala node --config node.conf --dataflows orders.jar --submit order-totals"
    })
final class NodeCommand implements Callable<Integer> {
  @Option(names = "--config", required = true, description = "The node's HOCON file.")
  Path config;

  @Option(
      names = "--dataflows",
      split = ",",
      paramLabel = "JAR",
      description =
          "Jars whose DataflowProviders give the dataflows this node defines (repeatable, or"
              + " comma-separated); loaded with the node's classes as parent.")
  List<Path> jars = new ArrayList<>();

  @Option(
      names = "--submit",
      paramLabel = "NAME",
      description =
          "Runs the dataflow of this name as a job, coordinated here, once this node is Up and a"
              + " worker is known (repeatable; on one node only).")
  List<String> submit = new ArrayList<>();

  @Option(
      names = "--restore-from",
      paramLabel = "DIR",
      description =
          "Starts the --submit job from this checkpoint or savepoint directory, also one of an"
              + " earlier version of the dataflow (docs/upgrades.md); with one --submit only.")
  Path restoreFrom;

  @Option(
      names = "--allow-dropping-state",
      split = ",",
      paramLabel = "UID",
      description =
          "With --restore-from: operators whose state in the checkpoint the new version may leave"
              + " behind (repeatable, or comma-separated).")
  List<String> droppable = new ArrayList<>();

  @Override
  public Integer call() {
    if (!Files.isReadable(config)) {
      throw new ConfigurationException("--config " + config + ": no such readable file");
    }
    if (restoreFrom != null && submit.size() != 1) {
      throw new ConfigurationException(
          "--restore-from "
              + restoreFrom
              + " starts one job: give exactly one --submit NAME (got "
              + submit.size()
              + ")");
    }
    if (!droppable.isEmpty() && restoreFrom == null) {
      throw new ConfigurationException(
          "--allow-dropping-state " + droppable + " goes with --restore-from DIR");
    }
    Thread main = Thread.currentThread();
    ClassLoader before = main.getContextClassLoader();
    try (URLClassLoader user = UserDataflows.loader(jars, NodeCommand.class.getClassLoader())) {
      // the jars' classes, for the ActorSystem and for everything that loads a class by name
      ClassLoader classes = user == null ? NodeCommand.class.getClassLoader() : user;
      main.setContextClassLoader(classes);
      run(classes);
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      main.setContextClassLoader(before);
    }
  }

  private void run(ClassLoader classes) {
    Config file = ConfigFactory.parseFile(config.toFile());
    Config system =
        KoalaCluster.systemConfig(
            file.withFallback(
                    ConfigFactory.parseString(
                        // a process per node: a downed node exits, SIGTERM leaves gracefully
                        "pekko.coordinated-shutdown.exit-jvm = on\n"
                            + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = on\n"))
                .withFallback(ConfigFactory.load(classes)));
    Map<String, Dataflow> dataflows = UserDataflows.load(classes, system);
    for (String name : submit) {
      if (!dataflows.containsKey(name)) {
        throw new ConfigurationException(
            "--submit "
                + name
                + ": no such dataflow; "
                + (dataflows.isEmpty()
                    ? "this node defines none (give it --dataflows JAR)"
                    : "this node defines " + dataflows.keySet()));
      }
    }
    ActorSystem<Void> s =
        ActorSystem.create(
            Behaviors.empty(),
            system.getString("koala.node.system-name"),
            BootstrapSetup.create(system).withClassloader(classes));
    KoalaCluster node = KoalaCluster.start(s, KoalaConfig.from(system));
    node.define(dataflows.values().toArray(Dataflow[]::new));
    CompletableFuture<Void> up = new CompletableFuture<>();
    org.apache.pekko.cluster.Cluster.get(s)
        .registerOnMemberUp(
            () -> {
              System.out.println(NodeProcess.UP + s.address());
              up.complete(null);
            });
    org.apache.pekko.actor.CoordinatedShutdown.get(s)
        .addTask(
            org.apache.pekko.actor.CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
            "koala-node-report",
            () -> {
              System.out.println(NodeProcess.STOPPED + node.remotingDrops());
              System.out.flush();
              return CompletableFuture.completedFuture(org.apache.pekko.Done.getInstance());
            });
    if (!submit.isEmpty()) {
      submitWhenReady(node, up);
      SubmitOptions options =
          restoreFrom == null
              ? SubmitOptions.defaults()
              : SubmitOptions.restoreFrom(restoreFrom)
                  .allowDroppingState(droppable.toArray(String[]::new));
      submit.forEach(name -> submitJob(node, dataflows.get(name), options));
    }
    s.getWhenTerminated().toCompletableFuture().join();
  }

  /** Waits until this node is Up and its jobs have a worker to place tasks on, or it stopped. */
  private static void submitWhenReady(KoalaCluster node, CompletableFuture<Void> up) {
    CompletableFuture<?> stopped = node.system().getWhenTerminated().toCompletableFuture();
    CompletableFuture.anyOf(up, stopped).join();
    while (node.workers() == 0 && !stopped.isDone()) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  private static void submitJob(KoalaCluster node, Dataflow dataflow, SubmitOptions options) {
    if (node.system().whenTerminated().isCompleted()) {
      return;
    }
    try {
      node.submit(dataflow, options);
      System.out.println(NodeProcess.SUBMITTED + dataflow.name());
    } catch (RuntimeException e) {
      // the node keeps running: its other jobs, and those of the other nodes, go on
      System.err.println("koala node: --submit " + dataflow.name() + " failed: " + e.getMessage());
    }
  }
}
