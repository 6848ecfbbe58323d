package io.koala.runtime.internal;

import io.koala.coordinator.Checkpoints;
import io.koala.coordinator.CoordinatorState;
import io.koala.coordinator.Retirement;
import io.koala.deploy.LiveDeployment;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.TaskId;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.KoalaMessage;
import io.koala.serialization.KryoSerde;
import io.koala.upgrade.PlanSignature;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * A completed checkpoint as the job's journal keeps it ({@code JobJournal.RecordCheckpoint}'s
 * metadata): every task's snapshot file, which of them are holders (finished tasks and retired
 * holders), and the coordinator's deployment and retirement at the trigger, as plain values encoded
 * with Koala's serializer (class ids come from class names, so a new process decodes them). The
 * dataflow's plan is code and does not travel: decoding needs it; its {@code signature} travels, so
 * that a restore tells whether the dataflow changed (docs/upgrades.md).
 */
record CheckpointMetadata(
    long id,
    long triggeredMillis,
    Map<TaskId, String> snapshots,
    List<TaskId> holders,
    LiveDeployment.Image deployment,
    Retirement.Image retirement,
    PlanSignature signature)
    implements KoalaMessage {

  CheckpointMetadata {
    snapshots = new LinkedHashMap<>(snapshots);
    holders = new ArrayList<>(holders);
  }

  static CheckpointMetadata of(
      Checkpoints.Completed<Path, CoordinatorState> c, PlanSignature signature) {
    Map<TaskId, String> files = new LinkedHashMap<>();
    c.snapshots().forEach((t, p) -> files.put(t, p.toString()));
    return new CheckpointMetadata(
        c.id(),
        c.triggeredMillis(),
        files,
        new ArrayList<>(c.holders()),
        c.state().deployment().image(),
        c.state().retirement().image(),
        signature);
  }

  /**
   * The checkpoint, as the coordinator of a new process keeps it: no request taken and no report
   * made before it (requests are not journaled yet).
   */
  Checkpoints.Completed<Path, CoordinatorState> completed(ExecutionPlan plan, DrainSettings drain) {
    Map<TaskId, Path> files = new LinkedHashMap<>();
    snapshots.forEach((t, p) -> files.put(t, Path.of(p)));
    return completed(plan, drain, files);
  }

  /**
   * As {@link #completed(ExecutionPlan, DrainSettings)}, with the snapshot files at {@code files}.
   */
  Checkpoints.Completed<Path, CoordinatorState> completed(
      ExecutionPlan plan, DrainSettings drain, Map<TaskId, Path> files) {
    return new Checkpoints.Completed<>(
        id,
        triggeredMillis,
        files,
        new LinkedHashSet<>(holders),
        new CoordinatorState(
            LiveDeployment.restore(plan, deployment), Retirement.restore(drain, retirement), 0, 0));
  }

  /** This checkpoint as job {@code jobId}'s: its task setups name that job. */
  CheckpointMetadata forJob(String jobId) {
    return new CheckpointMetadata(
        id,
        triggeredMillis,
        snapshots,
        holders,
        deployment.withJobId(jobId),
        retirement,
        signature);
  }

  byte[] encode(KryoSerde serde) {
    return serde.toBytes(this, CheckpointMetadata.class);
  }

  static CheckpointMetadata decode(KryoSerde serde, byte[] bytes) {
    return serde.fromBytes(bytes, CheckpointMetadata.class);
  }
}
