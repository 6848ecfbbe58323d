package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.ActorIdentity;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Identify;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.Patterns;
import org.apache.pekko.remote.RemoteActorRefProvider;
import org.apache.pekko.remote.transport.ThrottlerTransportAdapter;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.FutureConverters;

/**
 * A node whose remoting never finishes shutting down terminates all the same once {@link
 * RemotingShutdownDeadline} tells its remoting terminator to go on. Here the terminator waits for a
 * flush that a blackholed peer never acknowledges (flush timeout 10 minutes), in the state where in
 * ClusterTlsIT it waited for a stalled TLS stream.
 */
class RemotingShutdownDeadlineIT {
  private static final Config REMOTE =
      ConfigFactory.parseString(
              """
              pekko.actor.provider = remote
              pekko.remote.warn-about-direct-use = off
              pekko.remote.artery.canonical.hostname = 127.0.0.1
              pekko.remote.artery.canonical.port = 0
              pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off
              """)
          .withFallback(ConfigFactory.load());

  /** The node's: it can blackhole the peer, and waits 10 minutes for the peer's flush ack. */
  private static final Config STALLING =
      ConfigFactory.parseString(
              """
              pekko.remote.artery.advanced.test-mode = on
              pekko.remote.artery.advanced.shutdown-flush-timeout = 600 s
              """)
          .withFallback(REMOTE);

  @Test
  @SuppressWarnings("deprecation") // Artery's test mode takes classic remoting's throttle command
  void aNodeWhoseRemotingNeverFinishesShuttingDownTerminatesAfterTheDeadline() throws Exception {
    ActorSystem<Void> peer = ActorSystem.create(Behaviors.empty(), "peer", REMOTE);
    ActorSystem<Void> node = ActorSystem.create(Behaviors.empty(), "node", STALLING);
    try {
      RemotingShutdownDeadline.install(node);
      Address peerAddress = peer.address();
      // a completed handshake: the node's flush at termination waits for the peer's ack
      Object identity =
          Patterns.ask(
                  Adapter.toClassic(node).actorSelection(peerAddress + "/user"),
                  new Identify(1),
                  Duration.ofSeconds(20))
              .toCompletableFuture()
              .get(20, TimeUnit.SECONDS);
      assertThat(((ActorIdentity) identity).getActorRef()).isPresent();
      RemoteActorRefProvider provider =
          (RemoteActorRefProvider) ((ExtendedActorSystem) Adapter.toClassic(node)).provider();
      FutureConverters.asJava(
              provider
                  .transport()
                  .managementCommand(
                      new ThrottlerTransportAdapter.SetThrottle(
                          peerAddress,
                          ThrottlerTransportAdapter.bothDirection(),
                          ThrottlerTransportAdapter.blackholeThrottleMode())))
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);

      long start = System.nanoTime();
      node.terminate();

      assertThatThrownBy(
              () -> node.getWhenTerminated().toCompletableFuture().get(8, TimeUnit.SECONDS))
          .as("the node's remoting waits for the flush")
          .isInstanceOf(TimeoutException.class);
      node.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(RemotingShutdownDeadline.AFTER);
    } finally {
      node.terminate();
      peer.terminate();
      peer.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
