package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.coordinator.Checkpoints;
import io.koala.coordinator.Retirement;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.deploy.DeploymentPlan;
import io.koala.deploy.LiveDeployment;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.runtime.KoalaConfig;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.upgrade.PlanSignature;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint's journaled metadata decodes, in what could be another process, to the deployment
 * and retirement the coordinator had at the trigger.
 */
class CheckpointMetadataTest {

  @Test
  void roundTripsThroughKoalasSerializer() {
    DataflowBuilder b = Dataflow.builder("meta").parallelism(2);
    b.source(SourceSpec.generator("n", (i, seed) -> i % 10).count(100))
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    Dataflow dataflow = b.build();
    ExecutionPlan plan = ExecutionPlan.of(dataflow.plan());
    KoalaConfig config = KoalaConfig.load();
    LiveDeployment initial =
        LiveDeployment.of(
            plan, DeploymentPlan.of("meta-1", plan, 2, EngineSettings.of(config).channels()));
    OperatorId count = new OperatorId("count");
    TaskId retired = new TaskId(count, 1);
    // a channel taken and a task retired since the job started
    LiveDeployment live =
        initial.withChannelsFrom(initial.nextChannel() + 1).withRetired(List.of(retired));
    Retirement retirement =
        new Retirement(EngineSettings.of(config).drain())
            .epochStarted(count)
            .epochEnded(count, 3, List.of(retired), List.of(new TaskId(count, 0)))
            .next()
            .taskFinished(retired)
            .next();
    TaskId source = new TaskId(new OperatorId("n"), 0);
    Checkpoints.Completed<Path, io.koala.coordinator.CoordinatorState> c =
        new Checkpoints.Completed<>(
            7,
            1234,
            Map.of(source, Path.of("/ckpt/n-0.snap"), retired, Path.of("/ckpt/count-1.snap")),
            Set.of(retired),
            new io.koala.coordinator.CoordinatorState(live, retirement, 3, 2));

    TypeRegistry registry = TypeRegistry.withDefaults();
    KoalaSerialization.registerMessages(registry);
    KryoSerde serde = new KryoSerde(registry);
    byte[] bytes = CheckpointMetadata.of(c, PlanSignature.of(plan)).encode(serde);
    CheckpointMetadata decoded = CheckpointMetadata.decode(new KryoSerde(registry), bytes);
    Checkpoints.Completed<Path, io.koala.coordinator.CoordinatorState> back =
        decoded.completed(plan, EngineSettings.of(config).drain());

    assertThat(decoded.signature()).isEqualTo(PlanSignature.of(plan));

    assertThat(back.id()).isEqualTo(7);
    assertThat(back.triggeredMillis()).isEqualTo(1234);
    assertThat(back.snapshots()).isEqualTo(c.snapshots());
    assertThat(back.holders()).containsExactly(retired);
    LiveDeployment d = back.state().deployment();
    assertThat(d.setups().keySet()).isEqualTo(live.setups().keySet());
    for (TaskId t : live.setups().keySet()) {
      assertThat(d.placement(t)).isEqualTo(live.placement(t));
      assertThat(d.setup(t).toString()).isEqualTo(live.setup(t).toString());
    }
    assertThat(d.liveTasks(count)).containsExactly(live.liveTasks(count));
    assertThat(d.highestIndex(count)).isEqualTo(live.highestIndex(count));
    assertThat(d.retired()).isEqualTo(live.retired());
    assertThat(d.retired()).containsExactly(retired);
    assertThat(d.nextChannel()).isEqualTo(initial.nextChannel() + 1);
    assertThat(back.state().retirement().retiring(count)).containsExactly(1);
    // a new process has taken no request and made no report before the checkpoint
    assertThat(back.state().taken()).isZero();
    assertThat(back.state().reports()).isZero();
  }
}
