package io.koala.coordinator;

import io.koala.autoscaler.AutoscalerSettings;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.ReconfigurationProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Test fixture: the small keyed-count job the coordinator's tests run, and reading effects. */
final class JobSetups {
  static final ChannelSettings CHANNELS = new ChannelSettings(16, 1 << 20, 0, 4, 100);

  /**
   * Checkpoints every 100 ms, two retained, three restarts a period (backoff 50 ms doubling up to 1
   * s, a new period after a minute without a rollback), a 5 s timeout that rolls back.
   */
  static final JobSetup.Checkpointing CHECKPOINTS =
      new JobSetup.Checkpointing(
          Duration.ofMillis(100),
          2,
          new RestartPolicy(3, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMinutes(1)),
          Duration.ofSeconds(30),
          Duration.ofSeconds(5),
          0);

  private JobSetups() {}

  /** A task address as a host would hand it out. */
  record Address(TaskId task) implements TaskAddress {}

  /** source → keyBy → count → collecting sink, {@code parallelism} tasks each. */
  static ExecutionPlan plan(int parallelism) {
    DataflowBuilder b = Dataflow.builder("count").parallelism(parallelism);
    b.source(SourceSpec.<Long>collection("n", List.of(1L, 2L, 3L)))
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    return ExecutionPlan.of(b.build().plan());
  }

  /** Job "count" of {@code plan} on two workers. */
  static JobSetup setup(
      JobSetup.Checkpointing checkpointing,
      ReplyTo<JobReply.StatusChanged> listener,
      ExecutionPlan plan,
      List<String> scaleOnJoin,
      boolean sharded) {
    return setup(checkpointing, listener, plan, scaleOnJoin, sharded, AutoscalerSettings.OFF);
  }

  /** Job "count" of {@code plan} on two workers, autoscaled with {@code autoscaler}. */
  static JobSetup setup(
      JobSetup.Checkpointing checkpointing,
      ReplyTo<JobReply.StatusChanged> listener,
      ExecutionPlan plan,
      List<String> scaleOnJoin,
      boolean sharded,
      AutoscalerSettings autoscaler) {
    return new JobSetup(
        "count",
        plan,
        JobSetup.Workers.of(2),
        CHANNELS,
        Duration.ofSeconds(30),
        new JobSetup.Reconfiguration(
            ReconfigurationProtocol.KOALA,
            16,
            new DrainSettings(25, 512, 10),
            Duration.ofSeconds(30),
            scaleOnJoin,
            autoscaler),
        checkpointing,
        sharded,
        null,
        listener,
        JobSetup.Planted.NONE);
  }

  /** The effects of type {@code type} among {@code effects}. */
  static <T> List<T> of(Class<T> type, List<JobEffect> effects) {
    List<T> out = new ArrayList<>();
    for (JobEffect e : effects) {
      if (type.isInstance(e)) {
        out.add(type.cast(e));
      }
    }
    return out;
  }

  /** Sends the replies among {@code effects}, as a host does; returns the other effects. */
  static List<JobEffect> sendReplies(List<JobEffect> effects) {
    List<JobEffect> rest = new ArrayList<>();
    for (JobEffect e : effects) {
      if (e instanceof JobEffect.Reply<?> r) {
        r.send();
      } else {
        rest.add(e);
      }
    }
    return rest;
  }

  /** The addresses of the tasks {@code deploy} deploys. */
  static List<TaskAddress> addresses(JobEffect.Deploy deploy) {
    List<TaskAddress> tasks = new ArrayList<>();
    deploy.setups().forEach(s -> tasks.add(new Address(s.task())));
    return tasks;
  }
}
