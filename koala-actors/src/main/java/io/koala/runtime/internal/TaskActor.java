package io.koala.runtime.internal;

import io.koala.core.Credit;
import io.koala.core.Deliver;
import io.koala.core.ErrorInfo;
import io.koala.core.KoalaMessage;
import io.koala.core.StateServerAddress;
import io.koala.core.StateServiceAddress;
import io.koala.core.TaskEngine;
import io.koala.core.TaskMessage;
import io.koala.core.TaskMetricsSnapshot;
import io.koala.core.TaskSetup;
import io.koala.core.reconfig.EpochMessage;
import io.koala.core.reconfig.StateMessage;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.TaskId;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.StateStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The actor shell of one task: hands every message to its {@link TaskEngine} and carries out the
 * engine's effects (sends, timers, reports). Data that arrives before {@link Start} is stashed. Its
 * worker owns the task's state store.
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

  /** Anyone → task: reply with the task's metrics. */
  record GetMetrics(ActorRef<TaskMetricsSnapshot> replyTo) implements TaskMessage {}

  /** A task, its actor reference and, for a keyed task, its state server (else {@code null}). */
  record TaskRef(TaskId task, ActorRef<TaskMessage> ref, ActorRef<StateServer.Serve> stateServer)
      implements KoalaMessage {}

  /** Self: a timer the engine asked for is due. */
  record Wake(TaskEngine.Timer timer) implements TaskMessage {}

  /** Self (DeathWatch): the state server of a task this one fetched from stopped. */
  record HolderTerminated(TaskId holder) implements TaskMessage {}

  /** Self, every second: engine housekeeping. */
  enum Tick implements TaskMessage {
    INSTANCE
  }

  private static final int STASH = 100_000;

  private final ActorContext<TaskMessage> ctx;
  private final TaskSetup setup;
  private final ActorRef<JobCoordinator.Command> coordinator;
  private final TaskEngine engine;
  private final Map<TaskId, ActorRef<TaskMessage>> refs = new HashMap<>();
  private final Map<TaskId, ActorRef<StateServer.Serve>> servers = new HashMap<>();
  private final Set<TaskId> watched = new HashSet<>();
  private final List<ActorRef<StateService.Command>> stateServices;
  private final TimerScheduler<TaskMessage> timers;

  static Behavior<TaskMessage> create(
      TaskSetup setup,
      Vertex vertex,
      StateStore store,
      TypeRegistry registry,
      ActorRef<JobCoordinator.Command> coordinator,
      List<ActorRef<StateService.Command>> stateServices) {
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
                                    stateServices)
                                .waiting(stash);
                          } catch (RuntimeException e) {
                            // e.g. a user operator factory threw: fail the job, not just the actor
                            ErrorInfo error =
                                ErrorInfo.of(setup.task().operator().name(), setup.task(), null, e);
                            ctx.getLog().error("{}: {}", setup.task(), error.describe());
                            coordinator.tell(new JobCoordinator.TaskFailed(setup.task(), error));
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
      ActorRef<JobCoordinator.Command> coordinator,
      List<ActorRef<StateService.Command>> stateServices) {
    this.ctx = ctx;
    this.timers = timers;
    this.setup = setup;
    this.coordinator = coordinator;
    this.stateServices = stateServices;
    this.engine = new TaskEngine(setup, vertex, store, new KryoSerde(registry), new Effects());
  }

  private Behavior<TaskMessage> waiting(StashBuffer<TaskMessage> stash) {
    return Behaviors.receive(TaskMessage.class)
        .onMessage(Start.class, start -> onStart(start, stash))
        .onMessage(Addresses.class, this::onAddresses)
        .onMessage(GetMetrics.class, this::onGetMetrics)
        .onMessage(Cancel.class, c -> onCancel())
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
    engine.start(start.startMillis());
    return stash.unstashAll(running());
  }

  private Behavior<TaskMessage> running() {
    return Behaviors.receive(TaskMessage.class)
        .onMessage(Deliver.class, this::onDeliver)
        .onMessage(Credit.class, this::onCredit)
        .onMessage(StateMessage.StateReply.class, this::onStateReply)
        .onMessage(StateMessage.Release.class, this::onRelease)
        .onMessage(
            StateMessage.ServiceFailed.class,
            f -> {
              engine.onServiceFailed(f);
              return Behaviors.same();
            })
        .onMessage(EpochMessage.Command.class, this::onCommand)
        .onMessage(Addresses.class, this::onAddresses)
        .onMessage(Wake.class, this::onWake)
        .onMessage(HolderTerminated.class, this::onHolderTerminated)
        .onMessage(Tick.class, t -> onTick())
        .onMessage(GetMetrics.class, this::onGetMetrics)
        .onMessage(Cancel.class, c -> onCancel())
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

  private Behavior<TaskMessage> onDeliver(Deliver d) {
    engine.onDeliver(d);
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onCredit(Credit c) {
    engine.onCredit(c);
    return Behaviors.same();
  }

  private Behavior<TaskMessage> onStateReply(StateMessage.StateReply r) {
    engine.onStateReply(r);
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
    engine.cancel();
    engine.close(); // the worker closes the store once the task and its state server stopped
    return Behaviors.same();
  }

  /** Carries out the engine's effects. */
  private final class Effects implements TaskEngine.Services {
    @Override
    public int remoteStateServices() {
      return stateServices.size();
    }

    @Override
    public void send(Object target, KoalaMessage message) {
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
        ActorRef<StateServer.Serve> ref = servers.get(server.task());
        if (ref == null) {
          throw new IllegalStateException(
              "task " + setup.task() + " has no state server address for " + server.task());
        }
        if (watched.add(server.task())) {
          ctx.watchWith(ref, new HolderTerminated(server.task())); // C7: a holder's state is gone
        }
        ref.tell(new StateServer.Serve((StateMessage.Fetch) message, ctx.getSelf()));
        return;
      }
      if (target == TaskEngine.COORDINATOR) {
        coordinator.tell(new JobCoordinator.EpochReported((EpochMessage.Report) message));
        return;
      }
      if (target == TaskEngine.CLIENT) {
        coordinator.tell(new JobCoordinator.ResultsDelivered(setup.task(), (Deliver) message));
        return;
      }
      ActorRef<TaskMessage> ref = refs.get(target);
      if (ref == null) {
        throw new IllegalStateException("task " + setup.task() + " has no address for " + target);
      }
      ref.tell((TaskMessage) message);
    }

    @Override
    public void schedule(TaskEngine.Timer timer, long delayMillis) {
      if (delayMillis <= 0) {
        ctx.getSelf().tell(new Wake(timer));
      } else {
        timers.startSingleTimer(timer, new Wake(timer), Duration.ofMillis(delayMillis));
      }
    }

    @Override
    public void finished() {
      coordinator.tell(new JobCoordinator.TaskFinished(setup.task()));
    }

    @Override
    public void failed(ErrorInfo error) {
      ctx.getLog().error("{}: {}", setup.task(), error.describe());
      coordinator.tell(new JobCoordinator.TaskFailed(setup.task(), error));
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
}
