package io.koala.cluster;

import io.koala.time.DurationText;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A deadline on a terminating node's remoting, which Pekko 1.x lacks. When an ActorSystem
 * terminates, its remoting terminator aborts the Artery streams and waits, with no deadline, until
 * every one has completed before it lets the system guardian stop (apache/pekko#3247; Pekko 2.0
 * bounds it with {@code pekko.remote.artery.advanced.shutdown-streams-timeout}, #3317). A TLS
 * stream between two {@link LocalCluster} nodes that did not complete kept a node that had left the
 * cluster from terminating for good: every thread idle, the remoting terminator, a TLS stage and
 * the node's TCP listener still alive, its connection to another node still established
 * (ClusterTlsIT, in some runs of the module's tests, never alone).
 *
 * <p>From {@link #AFTER} after the node's {@code actor-system-terminate} phase began (Pekko 2's
 * default stream timeout and flush, and a second), as long as the system has not terminated, the
 * remoting terminator is told every {@link #EVERY} what it waits for: {@code Done}, its transport
 * has shut down. It then lets the system guardian stop every actor, the streams and their
 * connections included, much as Pekko 2 goes on once its timeout expired (which unbinds the TCP
 * listener first; here it closes as its actor stops). In any other state the terminator ignores the
 * message (Pekko logs it as unhandled). Remove with Pekko 2.
 */
final class RemotingShutdownDeadline {
  private static final Logger LOG = LoggerFactory.getLogger(RemotingShutdownDeadline.class);

  static final Duration AFTER = Duration.ofSeconds(12);
  static final Duration EVERY = Duration.ofSeconds(5);

  private RemotingShutdownDeadline() {}

  /** Sets the deadline on {@code system}'s remoting whenever the system terminates. */
  static void install(ActorSystem<?> system) {
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseActorSystemTerminate(),
            "koala-remoting-deadline",
            () -> {
              tellTerminatorAfter(system, AFTER, true);
              return CompletableFuture.completedFuture(Done.getInstance());
            });
  }

  private static void tellTerminatorAfter(ActorSystem<?> system, Duration delay, boolean first) {
    CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (system.whenTerminated().isCompleted()) {
                return;
              }
              if (first) {
                LOG.warn(
                    "node {} has not terminated {} after it began to: telling its remoting"
                        + " terminator that the transport has shut down (Pekko 1.x waits for"
                        + " remoting streams without a deadline, apache/pekko#3247)",
                    system.address(),
                    DurationText.of(AFTER));
              }
              Adapter.toClassic(system)
                  .actorSelection("/system/remoting-terminator")
                  .tell(Done.getInstance(), ActorRef.noSender());
              tellTerminatorAfter(system, EVERY, false);
            });
  }
}
