package io.koala.runtime.internal;

import io.koala.checkpoint.CheckpointStorage;
import io.koala.checkpoint.SnapshotFile;
import io.koala.checkpoint.SnapshotHandle;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.TaskAddress;
import io.koala.job.ErrorInfo;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.TaskId;
import io.koala.protocol.CheckpointMessage;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.IngestMessage;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.QueryMessage;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateServerAddress;
import io.koala.protocol.StateServiceAddress;
import io.koala.protocol.TaskMessage;
import io.koala.protocol.TaskSetup;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.EntryVisitor;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.Table;
import io.koala.task.TaskCheckpoint;
import io.koala.task.TaskEngine;
import io.koala.task.TaskHost;
import io.koala.task.TaskStatus;
import io.koala.task.TaskTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.dispatch.ControlMessage;

/**
 * The actor shell of one task: hands every message to its {@link TaskEngine} and carries out the
 * engine's effects (sends, timers, reports). Data that arrives before {@link Start} is stashed. Its
 * worker owns the task's state store.
 *
 * <p>With checkpoints on, the engine opens a read transaction at the barrier and hands it over; the
 * snapshot file is written from it on the worker's bounded copier pool (never the task dispatcher)
 * while the task goes on, and the result comes back to this actor ({@link SnapshotWritten}), which
 * then tells the coordinator — so the report follows the task's barrier on its client channel, both
 * going from this actor to the coordinator. A failed write fails the task (and, through the
 * coordinator, rolls the job back). LMDB cannot grow its map while a read transaction is open: the
 * snapshot's read grows a map more than half used before it begins, and a write that needs a bigger
 * map during the copy waits for it (up to a minute, then the task fails like on any other store
 * failure).
 */
final class TaskActor {

  /** Coordinator → task: where every task is; start processing. */
  record Start(List<TaskRef> addressBook, long startMillis) implements TaskMessage {}

  /**
   * Coordinator → task: tasks created by a reconfiguration, and their state servers. Sent before
   * the epoch's first command, so a task knows every address a command may name.
   */
  record Addresses(List<TaskRef> added) implements TaskMessage {}

  /** Coordinator → task: stop processing for good (the worker stops the actor afterwards). */
  enum Cancel implements TaskMessage {
    INSTANCE
  }

  /**
   * Coordinator → task, for testing Koala ({@link io.koala.runtime.testing.TaskCrashes}): stop at
   * once, as the actor of a task whose node died would; the coordinator's DeathWatch then rolls the
   * job back.
   */
  enum CrashNow implements TaskMessage {
    INSTANCE
  }

  /** Anyone → task: reply with the task's metrics. */
  record GetMetrics(ActorRef<TaskMetricsSnapshot> replyTo) implements TaskMessage {}

  /** A task, its actor reference and, for a keyed task, its state server (else {@code null}). */
  record TaskRef(TaskId task, ActorRef<TaskMessage> ref, ActorRef<StateServer.Command> stateServer)
      implements TaskAddress {}

  /** Self: a timer the engine asked for is due. */
  record Wake(TaskTimer timer) implements TaskMessage {}

  /**
   * A state server's (or state service's) answer to one of this task's fetches. It is a Pekko
   * {@link ControlMessage}, so the task's mailbox ({@code koala.task-mailbox}, control-aware) hands
   * it over ahead of the data waiting there: a reply that queued behind a task's backlog of batches
   * held its parked records, and the batches they came in, for up to a second (issue 20).
   */
  record StateReplied(StateMessage.StateReply reply) implements TaskMessage, ControlMessage {}

  /**
   * Query client → task: a state query ({@link TaskEngine#onQuery}). A {@link ControlMessage}, so
   * it is answered between batches without waiting behind the data queued in the mailbox.
   */
  record Query(QueryMessage message) implements TaskMessage, ControlMessage {}

  /** Self (DeathWatch): the state server of a task this one fetched from stopped. */
  record HolderTerminated(TaskId holder) implements TaskMessage {}

  /** Self: the copier wrote this task's snapshot of checkpoint {@code checkpointId} (or failed). */
  record SnapshotWritten(long checkpointId, String file, long bytes, String error)
      implements TaskMessage {}

  /**
   * How a task takes snapshots: the job's checkpoint storage, and the bounded pool of the worker
   * that writes the files.
   */
  record Snapshots(CheckpointStorage storage, Executor copier) {}

  /**
   * What a task starts from: its {@code attempt} (the job's restore count, which fences the
   * messages of older incarnations: §5.2, C4, C8), and, after a rollback, its snapshot's metadata
   * ({@code null} for a fresh task) and whether it resumes as a finished task or retired holder.
   */
  record Incarnation(int attempt, TaskCheckpoint restored, boolean holder) {
    static Incarnation fresh(int attempt) {
      return new Incarnation(attempt, null, false);
    }
  }

  /** Self, every second: engine housekeeping. */
  enum Tick implements TaskMessage {
    INSTANCE
  }

  private static final int STASH = 100_000;

  private final ActorContext<TaskMessage> ctx;
  private final TaskSetup setup;
  private final int attempt; // its deployment: 0, one more after each rollback
  private final ActorRef<JobInput.OfAttempt> coordinator;
  private final TaskEngine engine;
  private final Map<TaskId, ActorRef<TaskMessage>> refs = new HashMap<>();
  private final Map<TaskId, ActorRef<StateServer.Command>> servers = new HashMap<>();
  private final Set<TaskId> watched = new HashSet<>();
  private final List<ActorRef<StateService.Command>> stateServices;
  private final TimerScheduler<TaskMessage> timers;
  private final Snapshots snapshots; // null: no checkpoints
  private final List<CompletableFuture<?>> copies = new ArrayList<>();

  static Behavior<TaskMessage> create(
      TaskSetup setup,
      Vertex vertex,
      StateStore store,
      TypeRegistry registry,
      ActorRef<JobInput.OfAttempt> coordinator,
      List<ActorRef<StateService.Command>> stateServices,
      Snapshots snapshots,
      Incarnation incarnation) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers ->
                    Behaviors.withStash(
                        STASH,
                        stash -> {
                          try {
                            return new TaskActor(
                                    ctx,
                                    timers,
                                    setup,
                                    vertex,
                                    store,
                                    registry,
                                    coordinator,
                                    stateServices,
                                    snapshots,
                                    incarnation)
                                .waiting(stash);
                          } catch (RuntimeException e) {
                            // e.g. a user operator factory threw: fail the job, not just the actor
                            ErrorInfo error =
                                ErrorInfo.of(setup.task().operator().name(), setup.task(), null, e);
                            LogContext.failure(ctx.getLog(), setup, incarnation.attempt(), error);
                            coordinator.tell(new JobInput.TaskFailed(setup.task(), error));
                            return Behaviors.stopped(); // the worker closes the store
                          }
                        })));
  }

  private TaskActor(
      ActorContext<TaskMessage> ctx,
      TimerScheduler<TaskMessage> timers,
      TaskSetup setup,
      Vertex vertex,
      StateStore store,
      TypeRegistry registry,
      ActorRef<JobInput.OfAttempt> coordinator,
      List<ActorRef<StateService.Command>> stateServices,
      Snapshots snapshots,
      Incarnation incarnation) {
    this.ctx = ctx;
    this.snapshots = snapshots;
    this.timers = timers;
    this.setup = setup;
    this.attempt = incarnation.attempt();
    this.coordinator = coordinator;
    this.stateServices = stateServices;
    this.engine = new TaskEngine(setup, vertex, store, new KryoSerde(registry), new Effects());
    if (incarnation.restored() != null) {
      if (incarnation.holder()) {
        engine.startAsHolder(incarnation.restored());
      } else {
        engine.restore(incarnation.restored());
      }
    }
  }

  /** The name of {@code task}'s files: its store directory's and its snapshot's. */
  static String fileName(TaskId task) {
    return task.operator().name() + "-" + task.index();
  }

  private Behavior<TaskMessage> waiting(StashBuffer<TaskMessage> stash) {
    return Behaviors.receive(TaskMessage.class)
        .onMessage(Start.class, start -> onStart(start, stash))
        .onMessage(Addresses.class, this::onAddresses)
        .onMessage(GetMetrics.class, this::onGetMetrics)
        .onMessage(Cancel.class, c -> onCancel())
        .onMessage(SnapshotWritten.class, this::onSnapshotWritten)
        .onMessage(CrashNow.class, c -> Behaviors.stopped())
        .onMessage(
            TaskMessage.class,
            m -> {
              stash.stash(m);
              return Behaviors.same();
            })
        .onSignal(PostStop.class, s -> onStop())
        .build();
  }

  private Behavior<TaskMessage> onStart(Start start, StashBuffer<TaskMessage> stash) {
    learn(start.addressBook());
    timers.startTimerAtFixedRate(Tick.INSTANCE, Tick.INSTANCE, Duration.ofSeconds(1));
    if (engine.status() == TaskStatus.CREATED) {
      engine.start(start.startMillis()); // a restored holder or finished task does not start
    }
    return stash.unstashAll(running());
  }

  private Behavior<TaskMessage> running() {
    return Behaviors.receive(TaskMessage.class)
        .onMessage(Deliver.class, this::onDeliver)
        .onMessage(Credit.class, this::onCredit)
        .onMessage(IngestMessage.ToTask.class, this::onIngest)
        .onMessage(StateReplied.class, this::onStateReply)
        .onMessage(
            Query.class,
            q -> {
              if (q.message() instanceof QueryMessage.Read r) {
                engine.onQuery(r);
              } else if (q.message() instanceof QueryMessage.Scan scan) {
                engine.onScan(scan);
              } else {
                engine.onHolderScanned((QueryMessage.HolderScanned) q.message());
              }
              return Behaviors.same();
            })
        .onMessage(StateMessage.Release.class, this::onRelease)
        .onMessage(
            StateMessage.ServiceFailed.class,
            f -> {
              engine.onServiceFailed(f);
              return Behaviors.same();
            })
        .onMessage(EpochMessage.Command.class, this::onCommand)
        .onMessage(CheckpointMessage.Command.class, this::onCheckpoint)
        .onMessage(SnapshotWritten.class, this::onSnapshotWritten)
        .onMessage(Addresses.class, this::onAddresses)
        .onMessage(Wake.class, this::onWake)
        .onMessage(HolderTerminated.class, this::onHolderTerminated)
        .onMessage(Tick.class, t -> onTick())
        .onMessage(GetMetrics.class, this::onGetMetrics)
        .onMessage(Cancel.class, c -> onCancel())
        .onMessage(CrashNow.class, c -> Behaviors.stopped())
        .onMessage(Start.class, s -> Behaviors.same())
        .onSignal(PostStop.class, s -> onStop())
        .build();
  }

  private void learn(List<TaskRef> book) {
    for (TaskRef r : book) {
      refs.put(r.task(), r.ref());
      if (r.stateServer() != null) {
        servers.put(r.task(), r.stateServer());
      }
    }
  }

  private Behavior<TaskMessage> onAddresses(Addresses a) {
    learn(a.added());
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onCommand(EpochMessage.Command c) {
    engine.onCommand(c);
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onCheckpoint(CheckpointMessage.Command c) {
    engine.onCheckpoint(c);
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onSnapshotWritten(SnapshotWritten w) {
    if (w.error() != null) {
      ErrorInfo error =
          ErrorInfo.of(
              setup.task().operator().name(),
              setup.task(),
              null,
              new io.koala.checkpoint.CheckpointException(
                  "snapshot of checkpoint " + w.checkpointId() + " failed: " + w.error()));
      LogContext.failure(ctx.getLog(), setup, attempt, error);
      engine.cancel();
      coordinator.tell(new JobInput.TaskFailed(setup.task(), error));
      return Behaviors.same();
    }
    coordinator.tell(
        new JobInput.SnapshotTaken(setup.task(), w.checkpointId(), w.file(), w.bytes()));
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onDeliver(Deliver d) {
    engine.onDeliver(d);
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onIngest(IngestMessage.ToTask m) {
    engine.onIngest(m);
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onCredit(Credit c) {
    engine.onCredit(c);
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onStateReply(StateReplied r) {
    engine.onStateReply(r.reply());
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onRelease(StateMessage.Release r) {
    engine.onRelease(r);
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onHolderTerminated(HolderTerminated h) {
    engine.onHolderTerminated(h.holder().index());
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onWake(Wake w) {
    engine.onTimer(w.timer());
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onTick() {
    engine.onTick();
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onGetMetrics(GetMetrics m) {
    m.replyTo().tell(engine.metrics());
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onCancel() {
    engine.cancel();
    timers.cancelAll();
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onStop() {
    // the worker closes the store once this actor stopped: no copy may still read from it (a copy
    // runs for as long as writing the file takes; its result is dropped)
    for (CompletableFuture<?> copy : copies) {
      try {
        copy.join();
      } catch (RuntimeException e) {
        ctx.getLog().debug("{}: snapshot abandoned at stop: {}", setup.task(), e.toString());
      }
    }
    engine.cancel();
    engine.close(); // the worker closes the store once the task and its state server stopped
    return Behaviors.same();
  }

  /** Carries out the engine's effects. */
  private final class Effects implements TaskHost {
    @Override
    public int remoteStateServices() {
      return stateServices.size();
    }

    @Override
    public Object externalAddress() {
      return new ActorReply<>(ctx.getSelf());
    }

    @Override
    @SuppressWarnings("unchecked")
    public void send(Object target, KoalaMessage message) {
      if (target instanceof ActorReply<?> peer) {
        ((ActorReply<KoalaMessage>) peer).tell(message); // an ingest handle
        return;
      }
      if (target instanceof StateServiceAddress service) {
        ActorRef<StateService.Command> ref = stateServices.get(service.index());
        if (message instanceof StateMessage.ServiceFetch f) {
          ref.tell(new StateService.Read(setup.jobId(), f, ctx.getSelf()));
        } else {
          ref.tell(
              new StateService.Write(
                  setup.jobId(), (StateMessage.ServiceWrite) message, ctx.getSelf()));
        }
        return;
      }
      if (target instanceof StateServerAddress server) {
        ActorRef<StateServer.Command> ref = servers.get(server.task());
        if (ref == null && message instanceof StateMessage.Release) {
          return; // a retired holder no checkpoint restored here: its state is gone already
        }
        if (ref == null) {
          throw new IllegalStateException(
              "task " + setup.task() + " has no state server address for " + server.task());
        }
        if (message instanceof StateMessage.Fetch && watched.add(server.task())) {
          ctx.watchWith(ref, new HolderTerminated(server.task())); // C7: a holder's state is gone
        }
        if (message instanceof QueryMessage.HolderRead read) {
          ref.tell(new StateServer.Answer(read)); // a failed holder fails its owner's fetches
        } else if (message instanceof QueryMessage.HolderScan scan) {
          ref.tell(new StateServer.ScanKeys(scan, ctx.getSelf()));
        } else if (message instanceof StateMessage.Release release) {
          ref.tell(new StateServer.Release(release)); // after the reads sent before it
        } else {
          ref.tell(new StateServer.Serve((StateMessage.Fetch) message, ctx.getSelf()));
        }
        return;
      }
      if (target == TaskEngine.COORDINATOR) {
        coordinator.tell(new JobInput.EpochReported((EpochMessage.Report) message));
        return;
      }
      if (target == TaskEngine.CLIENT) {
        coordinator.tell(new JobInput.ResultsDelivered(setup.task(), (Deliver) message));
        return;
      }
      ActorRef<TaskMessage> ref = refs.get(target);
      if (ref == null && message instanceof Credit) {
        return; // a credit for what an ended task sent needs no reader
      }
      if (ref == null) {
        throw new IllegalStateException("task " + setup.task() + " has no address for " + target);
      }
      ref.tell((TaskMessage) message);
    }

    @Override
    public void schedule(TaskTimer timer, long delayMillis) {
      if (delayMillis <= 0) {
        ctx.getSelf().tell(new Wake(timer));
      } else {
        timers.startSingleTimer(timer, new Wake(timer), Duration.ofMillis(delayMillis));
      }
    }

    @Override
    public Runnable waker() {
      ActorRef<TaskMessage> self = ctx.getSelf(); // thread-safe, unlike ctx
      Wake ready = new Wake(TaskTimer.READY);
      return () -> self.tell(ready);
    }

    @Override
    public void checkpointWanted(String reason) {
      coordinator.tell(new JobInput.CheckpointWanted(setup.task(), reason));
    }

    @Override
    public void finished() {
      coordinator.tell(new JobInput.TaskFinished(setup.task()));
    }

    @Override
    public void failed(ErrorInfo error) {
      LogContext.failure(ctx.getLog(), setup, attempt, error);
      coordinator.tell(new JobInput.TaskFailed(setup.task(), error));
    }

    @Override
    public boolean checkpointing() {
      return snapshots != null;
    }

    @Override
    public void snapshot(long checkpointId, ReadTxn txn, byte[] metadata) {
      if (snapshots == null) {
        if (txn != null) {
          txn.close();
        }
        throw new IllegalStateException("task " + setup.task() + " takes no checkpoints");
      }
      String name = fileName(setup.task());
      java.nio.file.Path target;
      try {
        target = snapshots.storage().snapshotPath(setup.jobId(), checkpointId, name);
      } catch (RuntimeException e) {
        if (txn != null) {
          txn.close();
        }
        throw e;
      }
      ReadTxn view = txn != null ? txn : EMPTY;
      CompletableFuture<SnapshotHandle> copy;
      try {
        copy =
            CompletableFuture.supplyAsync(
                // write closes the view, whatever happens
                () -> SnapshotFile.write(view, name, checkpointId, metadata, target),
                snapshots.copier());
      } catch (RuntimeException e) { // the pool refused the copy
        view.close();
        throw e;
      }
      copies.removeIf(CompletableFuture::isDone);
      copies.add(copy);
      ctx.pipeToSelf(
          copy,
          (handle, error) ->
              error == null
                  ? new SnapshotWritten(
                      checkpointId, handle.path().toString(), handle.bytes(), null)
                  : new SnapshotWritten(
                      checkpointId,
                      target.toString(),
                      0,
                      String.valueOf(
                          error instanceof java.util.concurrent.CompletionException
                                  && error.getCause() != null
                              ? error.getCause()
                              : error)));
    }

    @Override
    public long currentTimeMillis() {
      return System.currentTimeMillis();
    }

    @Override
    public long nanoTime() {
      return System.nanoTime();
    }
  }

  /** The view of a task without keyed state: its snapshot holds only its metadata. */
  private static final ReadTxn EMPTY =
      new ReadTxn() {
        @Override
        public byte[] get(Table table, byte[] key) {
          return null;
        }

        @Override
        public int scan(Table table, byte[] prefix, byte[] after, int limit, EntryVisitor visitor) {
          return 0;
        }

        @Override
        public void close() {}
      };
}
