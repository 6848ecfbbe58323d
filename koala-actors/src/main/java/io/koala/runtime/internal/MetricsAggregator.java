package io.koala.runtime.internal;

import io.koala.coordinator.JobInput;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Asks every task of a job for its metrics and sends what it has to the coordinator once each has
 * answered or stopped, or the timeout passes (a task that does not answer is left out), then stops.
 * It watches the tasks: a task that stopped before it could answer — a retired holder released
 * while the metrics were asked for — is left out at once, where waiting for it held every metrics
 * snapshot (the autoscaler's, a service's {@code JobHandle.metrics()}) for the whole timeout (issue
 * 48, N5).
 */
final class MetricsAggregator {

  interface Command extends KoalaMessage {}

  /** Task → aggregator: one task's metrics. */
  record Reply(TaskMetricsSnapshot snapshot) implements Command {}

  /** A task asked stopped: it will not answer. */
  record Gone(TaskId task) implements Command {}

  /** Self: stop waiting. */
  enum Timeout implements Command {
    INSTANCE
  }

  private MetricsAggregator() {}

  static Behavior<Command> create(
      List<TaskActor.TaskRef> tasks,
      int request,
      ActorRef<JobInput> coordinator,
      Duration timeout) {
    return Behaviors.setup(
        ctx -> {
          ActorRef<TaskMetricsSnapshot> adapter =
              ctx.messageAdapter(TaskMetricsSnapshot.class, Reply::new);
          Set<TaskId> waiting = new HashSet<>();
          for (TaskActor.TaskRef t : tasks) {
            waiting.add(t.task());
            ctx.watchWith(t.ref(), new Gone(t.task()));
            t.ref().tell(new TaskActor.GetMetrics(adapter));
          }
          List<TaskMetricsSnapshot> got = new ArrayList<>();
          if (waiting.isEmpty()) {
            coordinator.tell(new JobInput.MetricsGathered(request, got));
            return Behaviors.stopped();
          }
          return Behaviors.withTimers(
              timers -> {
                timers.startSingleTimer(Timeout.INSTANCE, timeout);
                return Behaviors.receive(Command.class)
                    .onMessage(
                        Reply.class,
                        r -> {
                          if (waiting.remove(r.snapshot().task())) {
                            got.add(r.snapshot());
                          }
                          return done(waiting, got, request, coordinator);
                        })
                    .onMessage(
                        Gone.class,
                        g -> {
                          waiting.remove(g.task());
                          return done(waiting, got, request, coordinator);
                        })
                    .onMessage(
                        Timeout.class,
                        t -> {
                          coordinator.tell(new JobInput.MetricsGathered(request, got));
                          return Behaviors.stopped();
                        })
                    .build();
              });
        });
  }

  /** Sends what it has once no task is awaited. */
  private static Behavior<Command> done(
      Set<TaskId> waiting,
      List<TaskMetricsSnapshot> got,
      int request,
      ActorRef<JobInput> coordinator) {
    if (!waiting.isEmpty()) {
      return Behaviors.same();
    }
    coordinator.tell(new JobInput.MetricsGathered(request, got));
    return Behaviors.stopped();
  }
}
