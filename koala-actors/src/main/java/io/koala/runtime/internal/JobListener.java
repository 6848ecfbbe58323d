package io.koala.runtime.internal;

import io.koala.core.ErrorInfo;
import io.koala.core.KoalaMessage;
import io.koala.runtime.JobFailedException;
import io.koala.runtime.JobStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.Behavior;
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

  static Behavior<Event> create(
      String jobId, AtomicReference<JobStatus> status, CompletableFuture<JobStatus> completion) {
    return Behaviors.receive(Event.class)
        .onMessage(
            StatusChanged.class,
            e -> {
              status.set(e.status());
              if (e.status() == JobStatus.FAILED) {
                completion.completeExceptionally(new JobFailedException(jobId, e.error()));
                return Behaviors.stopped();
              }
              if (e.status().isTerminal()) {
                completion.complete(e.status());
                return Behaviors.stopped();
              }
              return Behaviors.same();
            })
        .build();
  }
}
