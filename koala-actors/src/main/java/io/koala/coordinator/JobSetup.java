package io.koala.coordinator;

import io.koala.autoscaler.AutoscalerSettings;
import io.koala.plan.ExecutionPlan;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.ReconfigurationProtocol;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything a job core is made with.
 *
 * @param workers the workers known at the start (indices {@code 0..workers-1})
 * @param pool which of them are lost or leaving; some worker is placeable
 * @param checkpointing checkpoints and recovery, or null when {@code koala.checkpoint.interval =
 *     off}; with them the job keeps a journal (checkpoints, open requests, its end)
 * @param sharded a Cluster Sharding entity on the cluster's shared journal (DESIGN §9): it records
 *     its start in the journal, and a job id names one run
 * @param restoreFrom the checkpoint directory to resume from instead of the journal's latest, or
 *     null
 * @param scaleOnJoin operators rescaled onto each worker that joins
 * @param autoscaler the autoscaler's settings ({@link AutoscalerSettings#OFF}: no autoscaling)
 * @param listener told the job's status at every change, or null
 * @param epochsWaitForCheckpoints true, except to plant hazard C1 (an epoch starting while a
 *     checkpoint is in progress) in the simulator's tests of its own checks
 */
public record JobSetup(
    String jobId,
    ExecutionPlan plan,
    int workers,
    WorkerPool pool,
    ChannelSettings channels,
    ReconfigurationProtocol protocol,
    int bucketsPerStep,
    DrainSettings drain,
    Duration deployTimeout,
    Duration stepTimeout,
    Checkpointing checkpointing,
    boolean sharded,
    Path restoreFrom,
    List<String> scaleOnJoin,
    AutoscalerSettings autoscaler,
    ReplyTo<JobReply.StatusChanged> listener,
    boolean epochsWaitForCheckpoints) {

  public JobSetup {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(plan, "plan");
    scaleOnJoin = List.copyOf(scaleOnJoin);
    Objects.requireNonNull(autoscaler, "autoscaler");
    if (sharded && checkpointing == null) {
      throw new IllegalArgumentException("a sharded coordinator needs the job's journal");
    }
    if (restoreFrom != null && checkpointing == null) {
      throw new IllegalArgumentException("restoring from a checkpoint needs checkpoints");
    }
  }

  /**
   * How the job takes checkpoints and recovers from failures (DESIGN §8).
   *
   * @param interval time from one checkpoint's trigger to the next
   * @param retained completed checkpoints kept
   * @param maxRestarts rollbacks before the next failure fails the job
   * @param restartBackoff time from a rollback to the redeployment
   * @param redeployTimeout time a redeployment may take before its attempt fails
   */
  public record Checkpointing(
      Duration interval,
      int retained,
      int maxRestarts,
      Duration restartBackoff,
      Duration redeployTimeout) {}
}
