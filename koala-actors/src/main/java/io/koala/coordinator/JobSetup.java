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
 * @param workers the workers at the start
 * @param channels the data channels' credits and batching
 * @param deployTimeout time the first deployment may take
 * @param reconfiguration how the job is reconfigured
 * @param checkpointing checkpoints and recovery, or null when {@code koala.checkpoint.interval =
 *     off}; with them the job keeps a journal (checkpoints, open requests, its end)
 * @param sharded a Cluster Sharding entity on the cluster's shared journal (DESIGN §9): it records
 *     its start in the journal, and a job id names one run
 * @param restoreFrom the checkpoint directory to resume from instead of the journal's latest, or
 *     null
 * @param listener told the job's status at every change, or null
 * @param planted faults planted by the simulator's tests of its own checks ({@link Planted#NONE}
 *     everywhere else)
 */
public record JobSetup(
    String jobId,
    ExecutionPlan plan,
    Workers workers,
    ChannelSettings channels,
    Duration deployTimeout,
    Reconfiguration reconfiguration,
    Checkpointing checkpointing,
    boolean sharded,
    Path restoreFrom,
    ReplyTo<JobReply.StatusChanged> listener,
    Planted planted) {

  public JobSetup {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(workers, "workers");
    Objects.requireNonNull(reconfiguration, "reconfiguration");
    Objects.requireNonNull(planted, "planted");
    if (sharded && checkpointing == null) {
      throw new IllegalArgumentException("a sharded coordinator needs the job's journal");
    }
    if (restoreFrom != null && checkpointing == null) {
      throw new IllegalArgumentException("restoring from a checkpoint needs checkpoints");
    }
  }

  /**
   * The workers a job starts with.
   *
   * @param count the workers known at the start (indices {@code 0..count-1})
   * @param pool which of them are lost or leaving; some worker is placeable
   */
  public record Workers(int count, WorkerPool pool) {
    public Workers {
      Objects.requireNonNull(pool, "pool");
    }

    /** {@code count} workers, none lost or leaving. */
    public static Workers of(int count) {
      return new Workers(count, WorkerPool.of(count));
    }
  }

  /**
   * How the job is reconfigured (DESIGN §6, §7).
   *
   * @param protocol how every epoch moves state
   * @param bucketsPerStep the buckets a staged protocol moves in one epoch
   * @param drain how retired holders are drained
   * @param stepTimeout time an epoch may go without progress before it fails
   * @param scaleOnJoin operators rescaled onto each worker that joins
   * @param autoscaler the autoscaler's settings ({@link AutoscalerSettings#OFF}: no autoscaling)
   */
  public record Reconfiguration(
      ReconfigurationProtocol protocol,
      int bucketsPerStep,
      DrainSettings drain,
      Duration stepTimeout,
      List<String> scaleOnJoin,
      AutoscalerSettings autoscaler) {
    public Reconfiguration {
      Objects.requireNonNull(protocol, "protocol");
      scaleOnJoin = List.copyOf(scaleOnJoin);
      Objects.requireNonNull(autoscaler, "autoscaler");
    }
  }

  /**
   * How the job takes checkpoints and recovers from failures (DESIGN §8).
   *
   * @param interval time from one checkpoint's trigger to the next
   * @param retained completed checkpoints kept
   * @param restarts when a job that failed is deployed again, and when it gives up
   * @param redeployTimeout time a redeployment may take before its attempt fails
   * @param timeout time a checkpoint may take from its trigger to its commit before it is abandoned
   * @param tolerableFailures checkpoints in a row that may time out without a rollback
   */
  public record Checkpointing(
      Duration interval,
      int retained,
      RestartPolicy restarts,
      Duration redeployTimeout,
      Duration timeout,
      int tolerableFailures) {
    public Checkpointing {
      if (tolerableFailures < 0) {
        throw new IllegalArgumentException(
            "tolerable checkpoint failures must be >= 0, got " + tolerableFailures);
      }
    }
  }

  /**
   * Faults the simulator plants to show that its checks catch them; the one port through which a
   * test changes what the core decides.
   *
   * @param epochDuringCheckpoint an epoch may start while a checkpoint is in progress (hazard C1)
   */
  public record Planted(boolean epochDuringCheckpoint) {
    /** Nothing planted: the core as it runs. */
    public static final Planted NONE = new Planted(false);
  }
}
