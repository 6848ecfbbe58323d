package io.koala.runtime.internal;

import io.koala.KoalaException;
import io.koala.coordinator.Change;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.coordinator.PlannedCrash;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.routing.PartitionPolicy;
import io.koala.runtime.JobHandle;
import io.koala.runtime.Savepoint;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The client end of a submitted job: its status and completion as its listener last heard them, and
 * the asks of its coordinator — metrics, reconfigurations, checkpoints, cancellation, collected
 * results — from the system that hosts clients. What {@code JobHandle} and the cluster's admin API
 * call.
 *
 * @param status the status last reported (kept up to date only for a submission's own client)
 * @param completion completes when the job ends (likewise)
 */
public record JobClient(
    String jobId,
    RecipientRef<JobInput> coordinator,
    AtomicReference<JobStatus> status,
    CompletableFuture<JobStatus> completion,
    ActorSystem<Void> system,
    Duration askTimeout) {

  private static final AtomicLong REPLIES = new AtomicLong();
  private static final AtomicReference<Function<JobHandle, JobClient>> HANDLES =
      new AtomicReference<>();
  private static final AtomicReference<Function<JobClient, JobHandle>> MAKERS =
      new AtomicReference<>();

  /**
   * How {@link JobHandle} opens itself to Koala's own code outside its package — the runtimes of
   * other modules (the cluster's) and the test hooks ({@code io.koala.runtime.testing}) — without
   * widening its API: called once, by its static initializer.
   *
   * @param reader the client behind a handle
   * @param maker a new handle of a client
   */
  public static void openHandles(
      Function<JobHandle, JobClient> reader, Function<JobClient, JobHandle> maker) {
    if (!HANDLES.compareAndSet(null, reader) || !MAKERS.compareAndSet(null, maker)) {
      throw new IllegalStateException("job handles are already open");
    }
  }

  /** The client behind {@code handle} (its class is initialized: it has an instance). */
  public static JobClient of(JobHandle handle) {
    return HANDLES.get().apply(Objects.requireNonNull(handle, "handle"));
  }

  /** A user's handle of this job, as {@code submit} returns it. */
  public JobHandle handle() {
    Function<JobClient, JobHandle> maker = MAKERS.get();
    if (maker == null) {
      try { // its static initializer opens it
        Class.forName(JobHandle.class.getName(), true, JobHandle.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
      maker = MAKERS.get();
    }
    return maker.apply(this);
  }

  /** Asks the job's coordinator to cancel it. */
  public CompletionStage<JobStatus> cancel() {
    return AskPattern.ask(
        coordinator, r -> new JobInput.Cancel(new ActorReply<>(r)), askTimeout, system.scheduler());
  }

  /** Asks the job's coordinator for a metrics snapshot. */
  public CompletionStage<JobMetrics> metrics() {
    return AskPattern.ask(
        coordinator,
        r -> new JobInput.GetMetrics(new ActorReply<>(r)),
        askTimeout,
        system.scheduler());
  }

  /** See {@link io.koala.runtime.JobHandle#rescale(String, int, PartitionPolicy)}. */
  public CompletionStage<ReconfigurationReport> rescale(
      String operator, int parallelism, PartitionPolicy policy) {
    return reconfigure(new Change.Rescale(operator, parallelism, policy));
  }

  /** See {@link io.koala.runtime.JobHandle#rebalance(String, PartitionPolicy)}. */
  public CompletionStage<ReconfigurationReport> rebalance(String operator, PartitionPolicy policy) {
    return reconfigure(new Change.Rebalance(operator, policy));
  }

  /** See {@link io.koala.runtime.JobHandle#migrate(String, int, int)}. */
  public CompletionStage<ReconfigurationReport> migrate(String operator, int task, int worker) {
    return reconfigure(new Change.Migrate(operator, task, worker));
  }

  /**
   * Asks the job's coordinator to carry out {@code change}; completes with its report, or
   * exceptionally with a {@link ReconfigurationException}. No timeout: a reconfiguration waits for
   * those queued before it, and the coordinator fails the job if one makes no progress.
   */
  private CompletionStage<ReconfigurationReport> reconfigure(Change change) {
    CompletableFuture<ReconfigurationReport> done = new CompletableFuture<>();
    ActorRef<JobReply.Outcome> reply =
        oneReply(
            JobReply.Outcome.class,
            jobId + "-reconfiguration",
            o -> {
              if (o instanceof JobReply.Completed c) {
                done.complete(c.report());
              } else if (o instanceof JobReply.Rejected r) {
                done.completeExceptionally(new ReconfigurationException(r.kind(), r.reason()));
              }
            });
    coordinator.tell(new JobInput.Reconfigure(change, new ActorReply<>(reply)));
    return done;
  }

  /** See {@link io.koala.runtime.JobHandle#checkpoint()}. No timeout: it waits for the job. */
  public CompletionStage<Long> checkpoint() {
    CompletableFuture<Long> done = new CompletableFuture<>();
    ActorRef<JobReply.CheckpointOutcome> reply =
        oneReply(
            JobReply.CheckpointOutcome.class,
            jobId + "-checkpoint",
            o -> {
              if (o.error() == null) {
                done.complete(o.checkpointId());
              } else {
                done.completeExceptionally(new KoalaException(o.error()));
              }
            });
    coordinator.tell(new JobInput.TakeCheckpoint(new ActorReply<>(reply)));
    return done;
  }

  /**
   * See {@link io.koala.runtime.JobHandle#savepoint(Path)} ({@code stop} false) and {@link
   * io.koala.runtime.JobHandle#stopWithSavepoint(Path)}. No timeout: it waits for the job.
   */
  public CompletionStage<Savepoint> savepoint(Path directory, boolean stop) {
    String dir = directory.toAbsolutePath().normalize().toString();
    CompletableFuture<Savepoint> done = new CompletableFuture<>();
    ActorRef<JobReply.SavepointOutcome> reply =
        oneReply(
            JobReply.SavepointOutcome.class,
            jobId + "-savepoint",
            o -> {
              if (o.error() == null) {
                done.complete(
                    new Savepoint(
                        Path.of(o.directory()),
                        o.checkpointId(),
                        Instant.ofEpochMilli(o.triggeredMillis())));
              } else {
                done.completeExceptionally(new KoalaException(o.error()));
              }
            });
    coordinator.tell(new JobInput.TakeSavepoint(dir, stop, new ActorReply<>(reply)));
    return done;
  }

  /** See {@link io.koala.runtime.JobHandle#stop()}. No timeout: it waits for the job. */
  public CompletionStage<Long> stop() {
    CompletableFuture<Long> done = new CompletableFuture<>();
    ActorRef<JobReply.SavepointOutcome> reply =
        oneReply(
            JobReply.SavepointOutcome.class,
            jobId + "-stop",
            o -> {
              if (o.error() == null) {
                done.complete(o.checkpointId());
              } else {
                done.completeExceptionally(new KoalaException(o.error()));
              }
            });
    coordinator.tell(new JobInput.TakeSavepoint(null, true, new ActorReply<>(reply)));
    return done;
  }

  /** An actor that hands its first {@code type} message to {@code onReply}, then stops. */
  private <T> ActorRef<T> oneReply(Class<T> type, String name, Consumer<T> onReply) {
    return system.systemActorOf(
        Behaviors.receive(type)
            .onMessage(
                type,
                m -> {
                  onReply.accept(m);
                  return Behaviors.stopped();
                })
            .build(),
        name + "-" + REPLIES.incrementAndGet(),
        Props.empty());
  }

  /** Plans crashes for testing Koala ({@code io.koala.runtime.testing.TaskCrashes#plan}). */
  public void planCrashes(long seed, List<PlannedCrash> crashes) {
    coordinator.tell(new JobInput.PlanCrashes(seed, crashes));
  }

  /** The crashes injected so far ({@code io.koala.runtime.testing.TaskCrashes#injected}). */
  public List<PlannedCrash.Injected> injectedCrashes() {
    CompletionStage<JobReply.InjectedCrashes> reply =
        AskPattern.ask(
            coordinator,
            r -> new JobInput.GetInjectedCrashes(new ActorReply<>(r)),
            askTimeout,
            system.scheduler());
    try {
      return reply.toCompletableFuture().join().crashes();
    } catch (CompletionException e) {
      throw new KoalaException("job " + jobId + " did not answer: " + e.getCause(), e.getCause());
    }
  }

  /** Asks the job's coordinator for what a collecting sink has received. */
  public CompletionStage<List<Object>> collected(String sink) {
    CompletionStage<JobReply.Collected> reply =
        AskPattern.ask(
            coordinator,
            r -> new JobInput.GetCollected(sink, new ActorReply<>(r)),
            askTimeout,
            system.scheduler());
    return reply.thenApply(JobReply.Collected::values);
  }
}
