package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.dataflow.Dataflow;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Koala on cluster nodes that talk TLS ({@code koala.remote.tls}, key pairs made by {@code
 * keytool}): two nodes that trust each other's certificates run a keyed job across both to the
 * reference run's exact output, and a third node whose trust store holds only its own certificate
 * (and whose certificate neither of the others trusts) fails the TLS handshake and never becomes a
 * member.
 */
class ClusterTlsIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir static Path keys;
  static Config tlsA;
  static Config tlsB;
  static Config tlsC;

  @BeforeAll
  static void generateStores() {
    TestKeystores stores = new TestKeystores(keys);
    CompletableFuture<Path> a = CompletableFuture.supplyAsync(() -> stores.keyStore("node-a"));
    CompletableFuture<Path> c = CompletableFuture.supplyAsync(() -> stores.keyStore("node-c"));
    Path b = stores.keyStore("node-b");
    Path trusted = stores.trustStore("trust-ab", a.join(), b);
    tlsA = ConfigFactory.parseString(TestKeystores.tlsConfig(a.join(), trusted));
    tlsB = ConfigFactory.parseString(TestKeystores.tlsConfig(b, trusted));
    tlsC =
        ConfigFactory.parseString(
            TestKeystores.tlsConfig(c.join(), stores.trustStore("trust-c", c.join())));
  }

  @Test
  void nodesThatTrustEachOtherRunAJobAndANodeTrustingAnotherCertificateCannotJoin(
      @TempDir Path dir) {
    Dataflow dataflow = KoalaClusterIT.dataflow(12_000, 2);
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    Logger pekko = (Logger) LoggerFactory.getLogger("org.apache.pekko");
    log.start();
    pekko.addAppender(log);
    try (LocalCluster nodes =
        LocalCluster.start(
            0, dir, ConfigFactory.parseString("koala.checkpoint.interval = off"), dataflow)) {
      KoalaCluster a = nodes.join(tlsA);
      KoalaCluster b = nodes.join(tlsB);
      for (KoalaCluster n : List.of(a, b)) {
        assertThat(n.system().settings().config().getString("pekko.remote.artery.transport"))
            .isEqualTo("tls-tcp");
      }

      JobHandle job = a.submit(dataflow);
      LocalCluster.await("results", WAIT, () -> !job.collected("counts").isEmpty());
      // tasks on both nodes: records and control messages cross between them over TLS
      assertThat(job.metrics().tasksOnWorker(0)).isNotEmpty();
      assertThat(job.metrics().tasksOnWorker(1)).isNotEmpty();
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(KoalaClusterIT.outputs(job)).isEqualTo(KoalaClusterIT.reference(2));

      Address aAddress = Cluster.get(a.system()).selfMember().address();
      KoalaCluster c = nodes.launch(tlsC);
      Address cAddress = Cluster.get(c.system()).selfMember().address();
      LocalCluster.await(
          "node-c's TLS handshake with node-a failed",
          WAIT,
          () -> handshakeFailed(log, "outbound connection to [" + aAddress + "]"));
      holdsFor(
          "node-c stays out of the cluster",
          Duration.ofSeconds(3),
          () ->
              LocalCluster.up(c.system()) == 0
                  && members(a.system()) == 2
                  && members(b.system()) == 2
                  && !isMember(a.system(), cAddress)
                  && !isMember(b.system(), cAddress));
      assertThat(Cluster.get(c.system()).selfMember().status()).isNotEqualTo(MemberStatus.up());
      assertThat(a.workers()).isEqualTo(2);
      assertThat(b.workers()).isEqualTo(2);

      // one node after the other leaves: the last does not wait for the one that has gone
      nodes.leave(2);
      nodes.leave(1);
      long start = System.nanoTime();
      nodes.leave(0);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("the last node's leave (koala.cluster.leave-timeout = 5 min)")
          .isLessThan(Duration.ofSeconds(20));
    } finally {
      pekko.detachAppender(log);
    }
  }

  /** Whether Pekko logged a failed TLS handshake on a connection described by {@code stream}. */
  private static boolean handshakeFailed(ListAppender<ILoggingEvent> log, String stream) {
    List<ILoggingEvent> events;
    synchronized (log) {
      events = List.copyOf(log.list);
    }
    return events.stream()
        .map(ILoggingEvent::getFormattedMessage)
        .anyMatch(m -> m.contains(stream) && m.contains("SSLHandshakeException"));
  }

  /**
   * Checks {@code condition} throughout {@code period}, failing as soon as it does not hold: for
   * what must not happen, where there is no event to wait for.
   */
  private static void holdsFor(String what, Duration period, BooleanSupplier condition) {
    long end = System.nanoTime() + period.toNanos();
    do {
      if (!condition.getAsBoolean()) {
        throw new AssertionError("no longer true within " + period + ": " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    } while (System.nanoTime() < end);
  }

  /** The members {@code system} knows of, whatever their status. */
  private static long members(ActorSystem<?> system) {
    return StreamSupport.stream(Cluster.get(system).state().getMembers().spliterator(), false)
        .count();
  }

  private static boolean isMember(ActorSystem<?> system, Address address) {
    return StreamSupport.stream(Cluster.get(system).state().getMembers().spliterator(), false)
        .anyMatch(m -> m.address().equals(address));
  }
}
