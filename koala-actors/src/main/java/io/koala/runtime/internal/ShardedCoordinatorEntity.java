package io.koala.runtime.internal;

import io.koala.coordinator.JobInput;
import io.koala.coordinator.WorkerPool;
import io.koala.plan.ExecutionPlan;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a job's coordinator starts as a Cluster Sharding entity on a node (DESIGN §9): with the job's
 * dataflow as this node defined it, once some worker is placeable, from the checkpoint its first
 * message names. Cluster Sharding starts it wherever the cluster chooses, for a submission or again
 * after the node that ran it was lost.
 */
final class ShardedCoordinatorEntity {
  private static final Logger LOG = LoggerFactory.getLogger(ShardedCoordinatorEntity.class);

  /** The coordinator of a job on the workers a node knows now. */
  @FunctionalInterface
  interface Coordinators {
    Behavior<JobInput> create(String jobId, ExecutionPlan plan, WorkerPool pool, Path restoreFrom);
  }

  private final DataflowCatalog catalog;
  private final String node;
  private final Supplier<WorkerPool> pool;
  private final Map<String, ActorRef<JobInput>> hosted;
  private final Coordinators coordinators;

  /**
   * @param catalog the dataflows this node defined, by job id
   * @param node this node's address, for errors
   * @param pool the node's workers now, or null when it knows none yet
   * @param hosted the coordinators running on this node, by job id: an entity is in it from when it
   *     becomes the coordinator until it stops
   * @param coordinators makes the coordinator's behavior
   */
  ShardedCoordinatorEntity(
      DataflowCatalog catalog,
      String node,
      Supplier<WorkerPool> pool,
      Map<String, ActorRef<JobInput>> hosted,
      Coordinators coordinators) {
    this.catalog = catalog;
    this.node = node;
    this.pool = pool;
    this.hosted = hosted;
    this.coordinators = coordinators;
  }

  /**
   * The behavior of job {@code jobId}'s entity. Its first message, when it is a submission's {@link
   * JobInput.Start}, names the checkpoint the job starts from (a coordinator that starts again
   * after its node was lost gets none: it resumes from the journal, where the first one recorded
   * that checkpoint). It waits (its messages stashed) until some worker is placeable; a job whose
   * dataflow this node has not defined fails, naming the node.
   */
  Behavior<JobInput> behavior(String jobId) {
    return Behaviors.setup(
        ctx -> {
          ExecutionPlan plan = catalog.get(jobId).orElse(null);
          if (plan == null) {
            String why =
                "job "
                    + jobId
                    + "'s coordinator started on node "
                    + node
                    + ", which has not defined its dataflow: every node defines the dataflows of"
                    + " the cluster's jobs (KoalaCluster.define)";
            LOG.error(why);
            return JobCoordinator.undefinedJob(why);
          }
          return Behaviors.withStash(
              10_000,
              stash ->
                  Behaviors.withTimers(
                      timers -> {
                        timers.startTimerWithFixedDelay(
                            JobInput.DeployTimeout.INSTANCE, Duration.ofMillis(100));
                        return Behaviors.receive(JobInput.class)
                            .onAnyMessage(
                                first -> {
                                  Path restoreFrom =
                                      first instanceof JobInput.Start s && s.restoreFrom() != null
                                          ? Path.of(s.restoreFrom())
                                          : null;
                                  if (!(first instanceof JobInput.DeployTimeout)
                                      && !(first instanceof JobInput.Start)) {
                                    stash.stash(first);
                                  }
                                  return awaitWorkers(ctx, stash, timers, jobId, plan, restoreFrom);
                                })
                            .build();
                      }));
        });
  }

  /** Stashes what arrives until a worker is placeable, then becomes the coordinator. */
  private Behavior<JobInput> awaitWorkers(
      ActorContext<JobInput> ctx,
      StashBuffer<JobInput> stash,
      TimerScheduler<JobInput> timers,
      String jobId,
      ExecutionPlan plan,
      Path restoreFrom) {
    WorkerPool now = pool.get();
    if (now != null && !now.placeable().isEmpty()) {
      timers.cancel(JobInput.DeployTimeout.INSTANCE);
      ActorRef<JobInput> self = ctx.getSelf();
      hosted.put(jobId, self);
      ctx.spawn( // stops with the coordinator, and then forgets it
          Behaviors.<Void>receiveSignal(
              (c, signal) -> {
                if (signal instanceof PostStop) {
                  hosted.remove(jobId, self);
                }
                return Behaviors.same();
              }),
          "hosted");
      return stash.unstashAll(coordinators.create(jobId, plan, now, restoreFrom));
    }
    return Behaviors.receive(JobInput.class)
        .onMessage(
            JobInput.DeployTimeout.class,
            t -> awaitWorkers(ctx, stash, timers, jobId, plan, restoreFrom))
        .onAnyMessage(
            m -> {
              stash.stash(m);
              return Behaviors.same();
            })
        .build();
  }
}
