package io.koala.runtime.internal;

import io.koala.core.ErrorInfo;
import io.koala.core.KoalaMessage;
import io.koala.core.TaskMessage;
import io.koala.core.TaskSetup;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.TaskId;
import io.koala.serialization.TypeRegistry;
import io.koala.store.LmdbStateStore;
import io.koala.store.StateStore;
import io.koala.store.StoreOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * One node's host of tasks: creates a job's tasks on request (each keyed task with its own LMDB
 * environment under the worker's directory), and stops them when the job ends.
 */
final class Worker extends AbstractBehavior<Worker.Command> {

  interface Command extends KoalaMessage {}

  /** Coordinator → worker: create these tasks; reply {@link JobCoordinator.TasksDeployed}. */
  record DeployTasks(
      String jobId, List<TaskSetup> tasks, ActorRef<JobCoordinator.Command> coordinator)
      implements Command {}

  /** Coordinator → worker: stop every task of the job and release its state. */
  record StopJob(String jobId) implements Command {}

  /**
   * Coordinator → worker: stop a retired task that holds no state anyone needs any more (§6.5), and
   * delete its store.
   */
  record StopTask(String jobId, TaskId task) implements Command {}

  /** Self: a task actor has stopped. */
  record TaskStopped(String jobId, TaskId task) implements Command {}

  private final int index;
  private final Path directory;
  private final DataflowCatalog catalog;
  private final TypeRegistry registry;
  private final StoreOptions storeOptions;
  private final boolean deleteJobState;
  private final List<ActorRef<StateService.Command>> stateServices; // the remote backend's
  private final Map<String, Map<TaskId, Hosted>> jobs = new HashMap<>();

  /**
   * A task this worker hosts: its actor, its state server, its store, and how many of the two
   * actors are still alive (the store is closed when both have stopped).
   */
  private static final class Hosted {
    final ActorRef<TaskMessage> task;
    final ActorRef<StateServer.Serve> server;
    final StateStore store;
    int alive;
    boolean discard;

    Hosted(ActorRef<TaskMessage> task, ActorRef<StateServer.Serve> server, StateStore store) {
      this.task = task;
      this.server = server;
      this.store = store;
      this.alive = server == null ? 1 : 2;
    }
  }

  private final Set<String> stopping = new HashSet<>();

  static Behavior<Command> create(
      int index,
      Path directory,
      DataflowCatalog catalog,
      TypeRegistry registry,
      StoreOptions storeOptions,
      boolean deleteJobState,
      List<ActorRef<StateService.Command>> stateServices) {
    return Behaviors.setup(
        ctx ->
            new Worker(
                ctx,
                index,
                directory,
                catalog,
                registry,
                storeOptions,
                deleteJobState,
                stateServices));
  }

  private Worker(
      ActorContext<Command> ctx,
      int index,
      Path directory,
      DataflowCatalog catalog,
      TypeRegistry registry,
      StoreOptions storeOptions,
      boolean deleteJobState,
      List<ActorRef<StateService.Command>> stateServices) {
    super(ctx);
    this.stateServices = List.copyOf(stateServices);
    this.index = index;
    this.directory = directory;
    this.catalog = catalog;
    this.registry = registry;
    this.storeOptions = storeOptions;
    this.deleteJobState = deleteJobState;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(DeployTasks.class, this::onDeploy)
        .onMessage(StopJob.class, this::onStopJob)
        .onMessage(StopTask.class, this::onStopTask)
        .onMessage(TaskStopped.class, this::onTaskStopped)
        .build();
  }

  private Behavior<Command> onDeploy(DeployTasks d) {
    List<TaskActor.TaskRef> refs = new ArrayList<>();
    Map<TaskId, Hosted> tasks = jobs.computeIfAbsent(d.jobId(), k -> new HashMap<>());
    TaskSetup current = null;
    try {
      ExecutionPlan plan =
          catalog
              .get(d.jobId())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "worker " + index + " does not know the dataflow of job " + d.jobId()));
      for (TaskSetup setup : d.tasks()) {
        current = setup;
        Vertex vertex = plan.vertex(setup.task().operator());
        StateStore store =
            vertex.isKeyed()
                ? LmdbStateStore.open(taskDirectory(d.jobId(), setup.task()), storeOptions)
                : null;
        ActorRef<TaskMessage> ref;
        ActorRef<StateServer.Serve> server = null;
        try {
          ref =
              getContext()
                  .spawn(
                      TaskActor.create(
                          setup, vertex, store, registry, d.coordinator(), stateServices),
                      actorName(d.jobId(), setup.task()),
                      DispatcherSelector.fromConfig("koala.task-dispatcher"));
          if (store != null) {
            server =
                getContext()
                    .spawn(
                        StateServer.create(setup.task(), store),
                        actorName(d.jobId(), setup.task()) + "-state");
          }
        } catch (RuntimeException e) {
          if (store != null) {
            store.close(); // the task that would have owned it does not exist
          }
          throw e;
        }
        TaskStopped stopped = new TaskStopped(d.jobId(), setup.task());
        getContext().watchWith(ref, stopped);
        if (server != null) {
          getContext().watchWith(server, stopped);
        }
        tasks.put(setup.task(), new Hosted(ref, server, store));
        refs.add(new TaskActor.TaskRef(setup.task(), ref, server));
      }
      d.coordinator().tell(new JobCoordinator.TasksDeployed(index, refs));
    } catch (RuntimeException e) {
      TaskId task = current == null ? null : current.task();
      getContext()
          .getLog()
          .error("worker {} cannot deploy {} of job {}", index, task, d.jobId(), e);
      d.coordinator()
          .tell(
              new JobCoordinator.DeployFailed(
                  index,
                  ErrorInfo.of(
                      task == null ? "deployment" : task.operator().name(),
                      task == null
                          ? new TaskId(new io.koala.plan.OperatorId("worker"), index)
                          : task,
                      null,
                      e)));
    }
    return this;
  }

  private Behavior<Command> onStopJob(StopJob s) {
    Map<TaskId, Hosted> tasks = jobs.get(s.jobId());
    stopping.add(s.jobId());
    if (tasks == null || tasks.isEmpty()) {
      jobStopped(s.jobId());
      return this;
    }
    for (Hosted h : tasks.values()) {
      getContext().stop(h.task);
      if (h.server != null) {
        getContext().stop(h.server);
      }
    }
    return this;
  }

  private Behavior<Command> onStopTask(StopTask s) {
    Map<TaskId, Hosted> tasks = jobs.get(s.jobId());
    Hosted h = tasks == null ? null : tasks.get(s.task());
    if (h != null) {
      h.discard = true;
      getContext().stop(h.task);
      if (h.server != null) {
        getContext().stop(h.server);
      }
    }
    return this;
  }

  private Behavior<Command> onTaskStopped(TaskStopped s) {
    Map<TaskId, Hosted> tasks = jobs.get(s.jobId());
    Hosted h = tasks == null ? null : tasks.get(s.task());
    if (h == null) {
      return this;
    }
    if (--h.alive > 0) {
      // one of the pair stopped on its own: stop the other, then release the store
      getContext().stop(h.task);
      if (h.server != null) {
        getContext().stop(h.server);
      }
      return this;
    }
    if (h.store != null) {
      h.store.close();
    }
    if (h.discard) {
      deleteRecursively(taskDirectory(s.jobId(), s.task()));
    }
    tasks.remove(s.task());
    if (tasks.isEmpty() && stopping.contains(s.jobId())) {
      jobStopped(s.jobId());
    }
    return this;
  }

  private void jobStopped(String jobId) {
    jobs.remove(jobId);
    stopping.remove(jobId);
    if (deleteJobState) {
      deleteRecursively(directory.resolve(jobId));
    }
  }

  private Path taskDirectory(String jobId, TaskId task) {
    return directory.resolve(jobId).resolve(task.operator().name() + "-" + task.index());
  }

  private static String actorName(String jobId, TaskId task) {
    return jobId + "_" + task.operator().name() + "-" + task.index();
  }

  static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }
}
