package io.koala.runtime.internal;

import io.koala.coordinator.JobInput;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.TaskMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Asks every task of a job for its metrics and sends what it has to the coordinator once all have
 * answered or the timeout passes (a task that does not answer is left out), then stops.
 */
final class MetricsAggregator {

  interface Command extends KoalaMessage {}

  /** Task → aggregator: one task's metrics. */
  record Reply(TaskMetricsSnapshot snapshot) implements Command {}

  /** Self: stop waiting. */
  enum Timeout implements Command {
    INSTANCE
  }

  private MetricsAggregator() {}

  static Behavior<Command> create(
      List<ActorRef<TaskMessage>> tasks,
      int request,
      ActorRef<JobInput> coordinator,
      Duration timeout) {
    return Behaviors.setup(
        ctx -> {
          ActorRef<TaskMetricsSnapshot> adapter =
              ctx.messageAdapter(TaskMetricsSnapshot.class, Reply::new);
          for (ActorRef<TaskMessage> t : tasks) {
            t.tell(new TaskActor.GetMetrics(adapter));
          }
          List<TaskMetricsSnapshot> got = new ArrayList<>();
          if (tasks.isEmpty()) {
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
                          got.add(r.snapshot());
                          if (got.size() < tasks.size()) {
                            return Behaviors.same();
                          }
                          coordinator.tell(new JobInput.MetricsGathered(request, got));
                          return Behaviors.stopped();
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
}
