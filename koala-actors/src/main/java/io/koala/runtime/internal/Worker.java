package io.koala.runtime.internal;

import io.koala.checkpoint.CheckpointException;
import io.koala.checkpoint.CheckpointStorage;
import io.koala.checkpoint.CorruptCheckpointException;
import io.koala.checkpoint.SnapshotFile;
import io.koala.checkpoint.SnapshotInfo;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.TaskRestore;
import io.koala.coordinator.WorkerAddress;
import io.koala.job.ErrorInfo;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.TaskMessage;
import io.koala.protocol.TaskSetup;
import io.koala.serialization.TypeRegistry;
import io.koala.store.LmdbStateStore;
import io.koala.store.StateStore;
import io.koala.store.StoreOptions;
import io.koala.task.TaskCheckpoint;
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
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * One node's host of tasks: creates a job's tasks on request (each keyed task with its own LMDB
 * environment under the worker's directory), and stops them when the job ends.
 *
 * <p>A job's tasks are deployed once per <b>attempt</b>: attempt 0 at submission, one more after
 * each rollback to a checkpoint (DESIGN §8). Tasks of different attempts never share an actor name
 * or a store directory, so a new incarnation is created while the old one is still stopping. A task
 * restored from a checkpoint gets a fresh store into which its snapshot file is loaded before the
 * task exists; a missing or corrupt file is reported to the coordinator naming the file.
 */
final class Worker extends AbstractBehavior<Worker.Command> {

  interface Command extends KoalaMessage {}

  /**
   * Coordinator → worker: create these tasks of attempt {@code attempt}, each task named in {@code
   * restore} from its snapshot file; reply {@link JobInput.TasksDeployed}, else {@link
   * JobInput.DeployFailed}, {@link JobInput.SnapshotUnusable} or {@link
   * JobInput.SnapshotUnreadable}. The tasks report to {@code coordinator}. {@code worker} is this
   * worker's index as the coordinator knows it (in a cluster each node's coordinators number the
   * workers they have seen), given back in the reply.
   */
  record DeployTasks(
      String jobId,
      int worker,
      List<TaskSetup> tasks,
      ActorRef<JobInput.OfAttempt> coordinator,
      int attempt,
      Map<TaskId, TaskRestore> restore)
      implements Command {}

  /**
   * Coordinator → worker: stop every task of the job deployed before attempt {@code attempt} and
   * delete their stores (the job rolled back; a new attempt replaces them).
   */
  record StopAttemptsBefore(String jobId, int attempt) implements Command {}

  /** Coordinator → worker: stop every task of the job and release its state. */
  record StopJob(String jobId) implements Command {}

  /**
   * Coordinator → worker: stop a retired task that holds no state anyone needs any more (§6.5), and
   * delete its store.
   */
  record StopTask(String jobId, TaskId task, int attempt) implements Command {}

  /**
   * Runtime → worker: stop at once, with every task hosted here, as a worker whose node went away
   * does ({@link ActorRuntime#loseWorker}); coordinators learn it through DeathWatch.
   */
  enum Stop implements Command {
    INSTANCE
  }

  /**
   * Coordinator → worker: reply {@link Alive} (a task stopped unexpectedly: is its worker still
   * there, or is the worker lost?).
   */
  record IsAlive(ActorRef<Alive> replyTo) implements Command {}

  /** Reply to {@link IsAlive}. */
  enum Alive implements KoalaMessage {
    INSTANCE
  }

  /**
   * Self (DeathWatch): the coordinator side of attempt {@code attempt} of job {@code jobId} is gone
   * — a rollback replaced it, or the coordinator's node went away — so its tasks here stop.
   */
  record CoordinatorGone(String jobId, int attempt) implements Command {}

  /** Self: a task actor has stopped. */
  record TaskStopped(String jobId, TaskId task, int attempt) implements Command {}

  /** How a job core reaches a worker that joined ({@link JobInput.WorkerJoined}). */
  record Address(ActorRef<Command> ref) implements WorkerAddress {}

  /** A task of one attempt. */
  private record Key(TaskId task, int attempt) {}

  private final int index;
  private final Path directory;
  private final DataflowCatalog catalog;
  private final TypeRegistry registry;
  private final StoreOptions storeOptions;
  private final boolean deleteJobState;
  private final List<ActorRef<StateService.Command>> stateServices; // the remote backend's
  private final Map<String, Map<Key, Hosted>> jobs = new HashMap<>();
  private final Path checkpointRoot; // null: no checkpoints
  private final Executor copier;

  /**
   * A task this worker hosts: its actor, its state server, its store, and how many of the two
   * actors are still alive (the store is closed when both have stopped).
   */
  private static final class Hosted {
    final ActorRef<TaskMessage> task;
    final ActorRef<StateServer.Command> server;
    final StateStore store;
    final Path directory;
    int alive;
    boolean discard;

    Hosted(
        ActorRef<TaskMessage> task,
        ActorRef<StateServer.Command> server,
        StateStore store,
        Path directory) {
      this.task = task;
      this.server = server;
      this.store = store;
      this.directory = directory;
      this.alive = server == null ? 1 : 2;
    }
  }

  private final Set<String> stopping = new HashSet<>();
  private final Map<String, Map<Integer, ActorRef<JobInput.OfAttempt>>> watched =
      new HashMap<>(); // job → attempt → the coordinator side its tasks report to

  static Behavior<Command> create(
      int index,
      Path directory,
      DataflowCatalog catalog,
      TypeRegistry registry,
      StoreOptions storeOptions,
      boolean deleteJobState,
      List<ActorRef<StateService.Command>> stateServices,
      Path checkpointRoot,
      Executor copier) {
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
                stateServices,
                checkpointRoot,
                copier));
  }

  private Worker(
      ActorContext<Command> ctx,
      int index,
      Path directory,
      DataflowCatalog catalog,
      TypeRegistry registry,
      StoreOptions storeOptions,
      boolean deleteJobState,
      List<ActorRef<StateService.Command>> stateServices,
      Path checkpointRoot,
      Executor copier) {
    super(ctx);
    this.checkpointRoot = checkpointRoot;
    this.copier = copier;
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
        .onMessage(StopAttemptsBefore.class, this::onStopAttemptsBefore)
        .onMessage(CoordinatorGone.class, this::onCoordinatorGone)
        .onMessage(TaskStopped.class, this::onTaskStopped)
        .onMessage(IsAlive.class, this::onIsAlive)
        .onMessage(Stop.class, m -> Behaviors.stopped())
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> onIsAlive(IsAlive m) {
    m.replyTo().tell(Alive.INSTANCE);
    return this;
  }

  /**
   * The worker stopped (lost, or its ActorSystem terminated): its task actors have stopped before
   * it, without it hearing of each; it closes the stores they leave.
   */
  private Behavior<Command> onPostStop() {
    for (Map<Key, Hosted> tasks : jobs.values()) {
      for (Map.Entry<Key, Hosted> e : tasks.entrySet()) {
        if (e.getValue().store != null) {
          try {
            e.getValue().store.close();
          } catch (RuntimeException ex) {
            getContext()
                .getLog()
                .warn(
                    "worker {}: cannot close the store of {} on stopping: {}",
                    index,
                    e.getKey().task(),
                    ex.toString());
          }
        }
      }
    }
    jobs.clear();
    return this;
  }

  private Behavior<Command> onDeploy(DeployTasks d) {
    Map<Integer, ActorRef<JobInput.OfAttempt>> attempts =
        watched.computeIfAbsent(d.jobId(), k -> new HashMap<>());
    if (attempts.putIfAbsent(d.attempt(), d.coordinator()) == null) {
      // tasks whose coordinator is gone would run on, unheard, for good
      getContext().watchWith(d.coordinator(), new CoordinatorGone(d.jobId(), d.attempt()));
    }
    List<TaskActor.TaskRef> refs = new ArrayList<>();
    boolean firstHere = !jobs.containsKey(d.jobId());
    Map<Key, Hosted> tasks = jobs.computeIfAbsent(d.jobId(), k -> new HashMap<>());
    TaskSetup current = null;
    try {
      if (firstHere) {
        // The job's first deployment on this worker in this process: whatever its directory
        // holds was left by an earlier process (killed before the job ended, or with
        // delete-job-state off). No task may start from it: a restored task starts from its
        // snapshot alone, a fresh one from nothing.
        deleteRecursively(directory.resolve(d.jobId()));
      }
      ExecutionPlan plan =
          catalog
              .get(d.jobId())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "worker " + index + " does not know the dataflow of job " + d.jobId()));
      TaskActor.Snapshots snapshots =
          checkpointRoot == null
              ? null
              : new TaskActor.Snapshots(new CheckpointStorage(checkpointRoot), copier);
      for (TaskSetup setup : d.tasks()) {
        current = setup;
        Vertex vertex = plan.vertex(setup.task().operator());
        Path dir = taskDirectory(d.jobId(), setup.task(), d.attempt());
        TaskRestore restore = d.restore().get(setup.task());
        if (restore != null) {
          deleteRecursively(dir); // a restored task starts from its snapshot alone
        }
        StateStore store = vertex.isKeyed() ? LmdbStateStore.open(dir, storeOptions) : null;
        ActorRef<TaskMessage> ref;
        ActorRef<StateServer.Command> server = null;
        try {
          TaskActor.Incarnation incarnation = TaskActor.Incarnation.fresh(d.attempt());
          if (restore != null) {
            incarnation = restored(d, restore, store);
          }
          String name = actorName(d.jobId(), setup.task(), d.attempt());
          ref =
              getContext()
                  .spawn(
                      TaskActor.create(
                          setup,
                          vertex,
                          store,
                          registry,
                          d.coordinator(),
                          stateServices,
                          snapshots,
                          incarnation),
                      name,
                      DispatcherSelector.fromConfig("koala.task-dispatcher")
                          .withMailboxFromConfig("koala.task-mailbox"));
          if (store != null) {
            server =
                getContext().spawn(StateServer.create(setup.task(), store, ref), name + "-state");
          }
        } catch (RuntimeException e) {
          if (store != null) {
            store.close(); // the task that would have owned it does not exist
          }
          throw e;
        }
        TaskStopped stopped = new TaskStopped(d.jobId(), setup.task(), d.attempt());
        getContext().watchWith(ref, stopped);
        if (server != null) {
          getContext().watchWith(server, stopped);
        }
        tasks.put(new Key(setup.task(), d.attempt()), new Hosted(ref, server, store, dir));
        refs.add(new TaskActor.TaskRef(setup.task(), ref, server));
      }
      d.coordinator().tell(new JobInput.TasksDeployed(d.worker(), List.copyOf(refs)));
    } catch (Unrestorable e) {
      getContext()
          .getLog()
          .error(
              "worker {} cannot restore {} of job {} from {}: {}",
              index,
              current.task(),
              d.jobId(),
              e.restore.file(),
              e.getCause().toString());
      stopDeployed(d.jobId(), refs, d.attempt());
      String problem = String.valueOf(e.getCause().getMessage());
      d.coordinator()
          .tell(
              e.getCause() instanceof CorruptCheckpointException
                  ? new JobInput.SnapshotUnusable(
                      d.worker(),
                      current.task(),
                      e.restore.checkpointId(),
                      e.restore.file(),
                      problem)
                  : new JobInput.SnapshotUnreadable(
                      d.worker(),
                      current.task(),
                      e.restore.checkpointId(),
                      e.restore.file(),
                      problem));
    } catch (RuntimeException e) {
      TaskId task = current == null ? null : current.task();
      getContext()
          .getLog()
          .error("worker {} cannot deploy {} of job {}", index, task, d.jobId(), e);
      stopDeployed(d.jobId(), refs, d.attempt());
      d.coordinator()
          .tell(
              new JobInput.DeployFailed(
                  d.worker(),
                  ErrorInfo.of(
                      task == null ? "deployment" : task.operator().name(),
                      task == null
                          ? new TaskId(new io.koala.plan.OperatorId("worker"), d.worker())
                          : task,
                      null,
                      e)));
    }
    return this;
  }

  /**
   * A snapshot file that cannot be restored: corrupt ({@link CorruptCheckpointException}, the
   * checkpoint is unusable), or unreadable now (missing, an I/O error: the attempt failed).
   */
  private static final class Unrestorable extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient TaskRestore restore;

    Unrestorable(TaskRestore restore, CheckpointException cause) {
      super(cause);
      this.restore = restore;
    }
  }

  /**
   * Loads {@code restore}'s snapshot file into {@code store} (empty, fresh), or only reads its
   * metadata for a task without keyed state. Runs on this worker's thread, for as long as loading
   * the file takes.
   */
  private static TaskActor.Incarnation restored(
      DeployTasks d, TaskRestore restore, StateStore store) {
    Path file = Path.of(restore.file());
    SnapshotInfo info;
    try {
      if (!Files.exists(file)) {
        throw new CheckpointException("snapshot file " + file + " does not exist");
      }
      info = store != null ? SnapshotFile.restore(file, store) : SnapshotFile.verify(file);
    } catch (CheckpointException e) {
      throw new Unrestorable(restore, e);
    }
    return new TaskActor.Incarnation(
        d.attempt(), TaskCheckpoint.decode(info.metadata()), restore.holder());
  }

  /** Stops the tasks of a deployment that failed part-way, and deletes their stores. */
  private void stopDeployed(String jobId, List<TaskActor.TaskRef> deployed, int attempt) {
    Map<Key, Hosted> tasks = jobs.get(jobId);
    for (TaskActor.TaskRef r : deployed) {
      Hosted h = tasks.get(new Key(r.task(), attempt));
      if (h != null) {
        stop(h, true);
      }
    }
  }

  private void stop(Hosted h, boolean discard) {
    h.discard |= discard;
    getContext().stop(h.task);
    if (h.server != null) {
      getContext().stop(h.server);
    }
  }

  private Behavior<Command> onStopAttemptsBefore(StopAttemptsBefore s) {
    Map<Key, Hosted> tasks = jobs.get(s.jobId());
    if (tasks != null) {
      tasks.forEach(
          (k, h) -> {
            if (k.attempt() < s.attempt()) {
              stop(h, true);
            }
          });
    }
    return this;
  }

  private Behavior<Command> onCoordinatorGone(CoordinatorGone g) {
    Map<Integer, ActorRef<JobInput.OfAttempt>> attempts = watched.get(g.jobId());
    if (attempts != null) {
      attempts.remove(g.attempt());
    }
    Map<Key, Hosted> tasks = jobs.get(g.jobId());
    if (tasks != null) {
      tasks.forEach(
          (k, h) -> {
            if (k.attempt() == g.attempt()) {
              stop(h, true);
            }
          });
    }
    return this;
  }

  private Behavior<Command> onStopJob(StopJob s) {
    Map<Key, Hosted> tasks = jobs.get(s.jobId());
    stopping.add(s.jobId());
    if (tasks == null || tasks.isEmpty()) {
      jobStopped(s.jobId());
      return this;
    }
    for (Hosted h : tasks.values()) {
      stop(h, false);
    }
    return this;
  }

  private Behavior<Command> onStopTask(StopTask s) {
    Map<Key, Hosted> tasks = jobs.get(s.jobId());
    Hosted h = tasks == null ? null : tasks.get(new Key(s.task(), s.attempt()));
    if (h != null) {
      stop(h, true);
    }
    return this;
  }

  private Behavior<Command> onTaskStopped(TaskStopped s) {
    Map<Key, Hosted> tasks = jobs.get(s.jobId());
    Key key = new Key(s.task(), s.attempt());
    Hosted h = tasks == null ? null : tasks.get(key);
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
      deleteRecursively(h.directory);
    }
    tasks.remove(key);
    if (tasks.isEmpty() && stopping.contains(s.jobId())) {
      jobStopped(s.jobId());
    }
    return this;
  }

  private void jobStopped(String jobId) {
    jobs.remove(jobId);
    Map<Integer, ActorRef<JobInput.OfAttempt>> attempts = watched.remove(jobId);
    if (attempts != null) {
      attempts.values().forEach(getContext()::unwatch);
    }
    stopping.remove(jobId);
    if (deleteJobState) {
      deleteRecursively(directory.resolve(jobId));
    }
  }

  /**
   * {@code <dir>/<job>/<task>} for the first attempt, {@code <dir>/<job>/attempt-<n>/<task>} after.
   */
  private Path taskDirectory(String jobId, TaskId task, int attempt) {
    Path job = directory.resolve(jobId);
    return (attempt == 0 ? job : job.resolve("attempt-" + attempt))
        .resolve(TaskActor.fileName(task));
  }

  private static String actorName(String jobId, TaskId task, int attempt) {
    String name = jobId + "_" + TaskActor.fileName(task);
    return attempt == 0 ? name : name + "_a" + attempt;
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
