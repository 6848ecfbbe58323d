package io.koala.runtime.internal;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stopping the actors a runtime started in the application's ActorSystem, which goes on: each is
 * stopped, and the caller waits until all have terminated (a worker's tasks close their stores as
 * they stop), so that the runtime's data directory can go.
 */
final class HostedActors {
  private static final Logger LOG = LoggerFactory.getLogger(HostedActors.class);
  private static final AtomicLong STOPPERS = new AtomicLong();

  private HostedActors() {}

  /** Stops {@code refs}, actors of {@code system}, and waits up to {@code timeout} for them. */
  static void stop(ActorSystem<Void> system, List<ActorRef<?>> refs, Duration timeout) {
    if (refs.isEmpty()) {
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    system.systemActorOf(
        watching(refs, done), "koala-stopper-" + STOPPERS.incrementAndGet(), Props.empty());
    try {
      done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      LOG.warn("{} of Koala's actors did not stop within {}", refs.size(), timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      LOG.warn("stopping Koala's actors failed", e.getCause());
    }
  }

  private static Behavior<Void> watching(List<ActorRef<?>> refs, CompletableFuture<Void> done) {
    return Behaviors.setup(
        ctx -> {
          Set<ActorRef<?>> left = new HashSet<>(refs);
          for (ActorRef<?> ref : refs) {
            ctx.watch(ref);
            Adapter.toClassic(ctx.getSystem()).stop(Adapter.toClassic(ref));
          }
          return Behaviors.receive(Void.class)
              .onSignal(
                  Terminated.class,
                  t -> {
                    left.remove(t.getRef());
                    if (left.isEmpty()) {
                      done.complete(null);
                      return Behaviors.stopped();
                    }
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
