package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.protocol.KoalaMessage;
import io.koala.runtime.internal.JobClient;
import io.koala.runtime.internal.KoalaSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Koala's remoting over TLS ({@code koala.remote.tls}), with key pairs made by {@code keytool}: a
 * keyed job runs across worker ActorSystems that talk over {@code tls-tcp}; ActorSystems configured
 * through {@link RemoteSettings} exchange messages only with peers whose certificate they trust;
 * and with mutual authentication on, a client that presents no trusted certificate is refused by
 * the accepting side.
 */
class RemoteTlsIT {
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  static Path keyA;
  static Path keyB;
  static Path trustB;
  static Path trustAb;

  @BeforeAll
  static void generateStores() {
    TestKeystores stores = new TestKeystores(dir);
    CompletableFuture<Path> a = CompletableFuture.supplyAsync(() -> stores.keyStore("node-a"));
    keyB = stores.keyStore("node-b");
    keyA = a.join();
    trustB = stores.trustStore("trust-b", "node-b");
    trustAb = stores.trustStore("trust-ab", "node-a", "node-b");
  }

  static KoalaConfig tls(Path key, Path trust) {
    return KoalaConfig.load().withTls(key, TestKeystores.PASSWORD, trust, TestKeystores.PASSWORD);
  }

  // ------------------------------------------------------------- the runtime

  @Test
  void aKeyedJobRunsToCompletionBetweenWorkerSystemsOverTls() {
    List<String> words = new ArrayList<>();
    Map<String, Long> expected = new TreeMap<>();
    for (int i = 0; i < 3_000; i++) {
      String word = "w" + (i * 31 % 97);
      words.add(word);
      expected.merge(word, 1L, Long::sum);
    }
    DataflowBuilder b = Dataflow.builder("tls-count").parallelism(2);
    b.source(SourceSpec.collection("words", words))
        .keyBy(w -> w)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    KoalaConfig config =
        tls(keyA, trustAb)
            .withWorkers(2)
            .withSeparateSystems(true)
            // an application's wish that Koala overrides: its systems never use Java serialization
            .with("pekko.actor.allow-java-serialization", "on");

    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      Map<String, Long> counts = new TreeMap<>();
      for (KeyValue<String, Long> kv : job.<KeyValue<String, Long>>collected("counts")) {
        counts.merge(kv.key(), kv.value(), Math::max);
      }
      assertThat(counts).isEqualTo(expected);
      assertThat(job.<KeyValue<String, Long>>collected("counts")).hasSize(words.size());
      // the count tasks were on both workers, so records crossed between their systems
      assertThat(job.metrics().tasksOnWorker(0)).isNotEmpty();
      assertThat(job.metrics().tasksOnWorker(1)).isNotEmpty();
      Config pekko = JobClient.of(job).system().settings().config();
      assertThat(pekko.getString("pekko.remote.artery.transport")).isEqualTo("tls-tcp");
      assertThat(pekko.getBoolean("pekko.actor.allow-java-serialization")).isFalse();
      assertThat(pekko.getString("pekko.remote.artery.ssl.config-ssl-engine.trust-store"))
          .isEqualTo(trustAb.toString());
    }
  }

  // ------------------------------------------------ plain ActorSystems

  /** Sent to the echo actor, which answers {@code "pong " + text}. */
  record Ping(String text, ActorRef<String> replyTo) implements KoalaMessage {}

  static Behavior<Ping> echo(CompletableFuture<String> received) {
    return Behaviors.receiveMessage(
        ping -> {
          received.complete(ping.text());
          ping.replyTo().tell("pong " + ping.text());
          return Behaviors.same();
        });
  }

  /** An ActorSystem with remoting configured through {@link RemoteSettings} alone. */
  static ActorSystem<Void> node(String name, KoalaConfig koala) {
    Config pekko =
        koala
            .remote()
            .pekkoConfig("127.0.0.1", 0)
            .withFallback(
                ConfigFactory.parseString(
                    "pekko.actor.provider = remote\n"
                        + "pekko.remote.warn-about-direct-use = off\n"
                        + "pekko.coordinated-shutdown.exit-jvm = off\n"
                        + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"))
            .withFallback(koala.underlying());
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), name, pekko);
    KoalaSerialization.registry(system).register(Ping.class);
    return system;
  }

  static void stop(ActorSystem<?>... systems) throws Exception {
    for (ActorSystem<?> s : systems) {
      s.terminate();
    }
    for (ActorSystem<?> s : systems) {
      s.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /** Asks, from {@code client}, the echo actor of {@code server}. */
  static CompletionStage<String> ask(
      ActorSystem<Void> client, ActorSystem<Void> server, Behavior<Ping> echo, Duration timeout) {
    ActorRef<Ping> local = server.systemActorOf(echo, "echo", Props.empty());
    ActorRef<Ping> remote =
        ActorRefResolver.get(client)
            .resolveActorRef(ActorRefResolver.get(server).toSerializationFormat(local));
    return AskPattern.ask(
        remote, replyTo -> new Ping("hello", replyTo), timeout, client.scheduler());
  }

  @Test
  void systemsThatTrustEachOthersCertificatesExchangeMessages() throws Exception {
    ActorSystem<Void> client = node("tls-client", tls(keyA, trustAb));
    ActorSystem<Void> server = node("tls-server", tls(keyB, trustAb));
    try {
      CompletableFuture<String> received = new CompletableFuture<>();
      String reply =
          ask(client, server, echo(received), WAIT)
              .toCompletableFuture()
              .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(reply).isEqualTo("pong hello");
      assertThat(received).isCompletedWithValue("hello");
    } finally {
      stop(client, server);
    }
  }

  /**
   * The client trusts the server's certificate, so only the server's check of the client's (mutual
   * authentication) can stop the message: it does, and the echo never sees it.
   */
  @Test
  void aSystemThatTrustsADifferentCertificateRefusesThePeer() throws Exception {
    ActorSystem<Void> client = node("tls-client", tls(keyA, trustAb));
    ActorSystem<Void> server = node("tls-server", tls(keyB, trustB));
    try {
      CompletableFuture<String> received = new CompletableFuture<>();
      CompletionStage<String> reply = ask(client, server, echo(received), Duration.ofSeconds(3));
      assertThatThrownBy(() -> reply.toCompletableFuture().get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(TimeoutException.class);
      assertThat(received).isNotDone();
    } finally {
      stop(client, server);
    }
  }

  /**
   * A TLS client that trusts the server but presents no certificate of its own: refused during the
   * handshake when mutual authentication is on (the default), let in when it is off.
   */
  @ParameterizedTest(name = "require-mutual-authentication = {0}")
  @ValueSource(booleans = {true, false})
  void aClientWithoutACertificateIsRefusedOnlyWithMutualAuthentication(boolean mutual)
      throws Exception {
    ActorSystem<Void> server =
        node(
            "tls-server",
            tls(keyB, trustB).with("koala.remote.tls.require-mutual-authentication", mutual));
    try {
      int port = server.address().getPort().orElseThrow();
      SSLException refused = connectWithoutCertificate(port, trustB);
      if (mutual) {
        assertThat(refused).as("the handshake's failure").hasMessageContaining("certificate");
      } else {
        assertThat(refused).as("the handshake's failure").isNull();
      }
    } finally {
      stop(server);
    }
  }

  /**
   * Connects over TLSv1.3 trusting {@code trust}, with no client certificate, and reads: the
   * server's refusal arrives as an {@link SSLException} (in TLS 1.3 the client's certificate is
   * judged after the client's side of the handshake is done, so at the first read); an accepted
   * connection stays open and silent (Artery waits for its header), and the read times out.
   *
   * @return the refusal, or {@code null} if the connection was accepted
   */
  static SSLException connectWithoutCertificate(int port, Path trust)
      throws IOException, GeneralSecurityException {
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(trust)) {
      trusted.load(in, TestKeystores.PASSWORD.toCharArray());
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trusted);
    SSLContext context = SSLContext.getInstance("TLSv1.3");
    context.init(null, tmf.getTrustManagers(), null);
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.setSoTimeout(1_500);
      socket.startHandshake();
      socket.getInputStream().read();
      return null;
    } catch (SSLException e) {
      return e;
    } catch (SocketTimeoutException e) {
      return null;
    }
  }
}
