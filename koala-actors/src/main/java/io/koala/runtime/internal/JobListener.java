package io.koala.runtime.internal;

import io.koala.core.ErrorInfo;
import io.koala.core.KoalaMessage;
import io.koala.runtime.JobFailedException;
import io.koala.runtime.JobStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The client end of a job on the client's node: turns the coordinator's status events into the
 * {@code JobHandle}'s status and completion future.
 */
public final class JobListener {

  /** Coordinator → listener. */
  public interface Event extends KoalaMessage {}

  /** The job's status changed; {@code error} is set when it failed. */
  public record StatusChanged(JobStatus status, ErrorInfo error) implements Event {}

  private JobListener() {}

  /** A listener the coordinator is given at its creation. */
  static Behavior<Event> create(
      String jobId, AtomicReference<JobStatus> status, CompletableFuture<JobStatus> completion) {
    return Behaviors.receive(Event.class)
        .onMessage(
            StatusChanged.class,
            e -> ended(jobId, status, completion, e) ? Behaviors.stopped() : Behaviors.same())
        .build();
  }

  /** Self: time to subscribe again. */
  enum Resubscribe implements Event {
    INSTANCE
  }

  /**
   * A listener of the sharded coordinator {@code coordinator}, which may move to another node: it
   * subscribes now ({@code submission}: as the job's submission) and again every {@link
   * JobCoordinator#SUBSCRIBE_INTERVAL} until the job has ended.
   */
  static Behavior<Event> subscribing(
      String jobId,
      RecipientRef<JobCoordinator.Command> coordinator,
      boolean submission,
      AtomicReference<JobStatus> status,
      CompletableFuture<JobStatus> completion) {
    return Behaviors.setup(
        ctx -> {
          coordinator.tell(new JobCoordinator.Subscribe(ctx.getSelf(), submission));
          return Behaviors.withTimers(
              timers -> {
                timers.startTimerWithFixedDelay(
                    Resubscribe.INSTANCE, JobCoordinator.SUBSCRIBE_INTERVAL);
                return Behaviors.receive(Event.class)
                    .onMessage(
                        Resubscribe.class,
                        m -> {
                          coordinator.tell(new JobCoordinator.Subscribe(ctx.getSelf(), false));
                          return Behaviors.same();
                        })
                    .onMessage(
                        StatusChanged.class,
                        e ->
                            ended(jobId, status, completion, e)
                                ? Behaviors.stopped()
                                : Behaviors.same())
                    .build();
              });
        });
  }

  /** Records {@code e} in the handle's status and completion; whether the job has ended. */
  private static boolean ended(
      String jobId,
      AtomicReference<JobStatus> status,
      CompletableFuture<JobStatus> completion,
      StatusChanged e) {
    status.set(e.status());
    if (e.status() == JobStatus.FAILED) {
      completion.completeExceptionally(new JobFailedException(jobId, e.error()));
      return true;
    }
    if (e.status().isTerminal()) {
      completion.complete(e.status());
      return true;
    }
    return false;
  }
}
