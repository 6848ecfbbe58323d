package io.koala.runtime.internal;

import io.koala.coordinator.JobCore;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.job.JobStatus;
import io.koala.protocol.KoalaMessage;
import io.koala.runtime.JobFailedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The client end of a job on the client's node: turns the coordinator's status events into the
 * {@code JobHandle}'s status and completion future.
 */
public final class JobListener {

  /** What a subscribing listener handles. */
  interface Command extends KoalaMessage {}

  /** The coordinator told the job's status. */
  record Changed(JobReply.StatusChanged event) implements Command {}

  /** Self: time to subscribe again. */
  enum Resubscribe implements Command {
    INSTANCE
  }

  /**
   * Self: the watched coordinator stopped a while ago and no end of its job came: it went with its
   * node.
   */
  enum CoordinatorGone implements Command {
    INSTANCE
  }

  /** How long after a watched coordinator stops its job's last status may still arrive. */
  static final java.time.Duration LAST_WORD = java.time.Duration.ofSeconds(2);

  private JobListener() {}

  /** A listener the coordinator is given at its creation. */
  static Behavior<JobReply.StatusChanged> create(
      String jobId, AtomicReference<JobStatus> status, CompletableFuture<JobStatus> completion) {
    return Behaviors.receive(JobReply.StatusChanged.class)
        .onMessage(
            JobReply.StatusChanged.class,
            e -> ended(jobId, status, completion, e) ? Behaviors.stopped() : Behaviors.same())
        .build();
  }

  /**
   * A listener of the coordinator {@code coordinator}, which may move to another node (a sharded
   * one): it subscribes now ({@code submission}: as the job's submission, asking a sharded
   * coordinator to start from {@code restoreFrom} when not null) and again every {@link
   * JobCore#SUBSCRIBE_INTERVAL} until the job has ended. When {@code watched} is not null (the
   * coordinator of a job that ends with its node), its stop without a word of the job's end fails
   * the job, naming the node.
   */
  static Behavior<Command> subscribing(
      String jobId,
      RecipientRef<JobInput> coordinator,
      boolean submission,
      String restoreFrom,
      ActorRef<JobInput> watched,
      AtomicReference<JobStatus> status,
      CompletableFuture<JobStatus> completion) {
    return Behaviors.setup(
        ctx -> {
          ActorReply<JobReply.StatusChanged> events =
              new ActorReply<>(ctx.messageAdapter(JobReply.StatusChanged.class, Changed::new));
          coordinator.tell(new JobInput.Subscribe(events, submission, restoreFrom));
          if (watched != null) {
            ctx.watch(watched);
          }
          return Behaviors.withTimers(
              timers -> {
                timers.startTimerWithFixedDelay(Resubscribe.INSTANCE, JobCore.SUBSCRIBE_INTERVAL);
                return Behaviors.receive(Command.class)
                    .onMessage(
                        Resubscribe.class,
                        m -> {
                          coordinator.tell(new JobInput.Subscribe(events, false));
                          return Behaviors.same();
                        })
                    .onMessage(
                        Changed.class,
                        c ->
                            ended(jobId, status, completion, c.event())
                                ? Behaviors.stopped()
                                : Behaviors.same())
                    .onMessage(
                        CoordinatorGone.class,
                        g -> {
                          ended(
                              jobId,
                              status,
                              completion,
                              new JobReply.StatusChanged(
                                  JobStatus.FAILED,
                                  JobCore.coordinatorError(
                                      "job "
                                          + jobId
                                          + "'s coordinator on "
                                          + watched.path().address()
                                          + " stopped (its node left or failed): the job ended"
                                          + " with it")));
                          return Behaviors.stopped();
                        })
                    .onSignal(
                        Terminated.class,
                        t -> {
                          timers.cancel(Resubscribe.INSTANCE);
                          timers.startSingleTimer(CoordinatorGone.INSTANCE, LAST_WORD);
                          return Behaviors.same();
                        })
                    .build();
              });
        });
  }

  /** Records {@code e} in the handle's status and completion; whether the job has ended. */
  private static boolean ended(
      String jobId,
      AtomicReference<JobStatus> status,
      CompletableFuture<JobStatus> completion,
      JobReply.StatusChanged e) {
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
