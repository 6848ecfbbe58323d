package io.koala.runtime.internal;

import io.koala.checkpoint.CheckpointStorage;
import io.koala.coordinator.Checkpoints;
import io.koala.coordinator.CoordinatorState;
import io.koala.coordinator.JobCore;
import io.koala.coordinator.JobEffect;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.coordinator.JobSetup;
import io.koala.coordinator.ReplyTo;
import io.koala.coordinator.RestartPolicy;
import io.koala.coordinator.TaskAddress;
import io.koala.coordinator.WorkerPool;
import io.koala.job.JobStatus;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.TaskMessage;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.internal.journal.Blob;
import io.koala.runtime.internal.journal.JobJournal;
import io.koala.runtime.internal.journal.JournalSettings;
import io.koala.runtime.internal.journal.JournalState;
import io.koala.serialization.KryoSerde;
import io.koala.time.MonotonicMillis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.pattern.StatusReply;

/**
 * The actor that hosts one job's {@link JobCore}: it feeds the core every {@link JobInput} with the
 * time, and carries out the {@link JobEffect}s the core returns — deploying on workers, telling
 * tasks, asking the journal, timers, checkpoint files ({@link CheckpointFiles}), replies. It
 * decides nothing itself.
 *
 * <p>Each deployment attempt's tasks and workers report through a forwarder child of that attempt,
 * which stamps what they say with the attempt ({@link JobInput.FromAttempt}) and DeathWatches the
 * attempt's tasks; a new attempt stops the previous forwarder, so what an older incarnation still
 * says reaches the core stamped as old, and is dropped.
 */
final class JobCoordinator extends AbstractBehavior<JobInput> {

  /**
   * Everything a coordinator is made with besides its core's setup.
   *
   * @param workers the workers known now, by index
   * @param checkpointRoot where checkpoint files go; null with checkpoints off
   * @param journal the job's journal; null with checkpoints off
   * @param metricsTimeout how long tasks and workers are waited for when asked
   */
  record Setup(
      JobSetup job,
      List<ActorRef<Worker.Command>> workers,
      Path checkpointRoot,
      JournalSettings journal,
      Duration metricsTimeout) {}

  /** Coordinator → its attempt's forwarder: watch {@code ref}, reporting a termination. */
  record WatchTask(TaskId task, ActorRef<TaskMessage> ref) implements KoalaMessage {}

  private final JobCore core;
  // the core's clock: wall time at the start, then monotonic (no wall-clock step reaches a timeout)
  private final MonotonicMillis clock = new MonotonicMillis();
  private final String jobId;
  private final Setup setup;
  private final List<ActorRef<Worker.Command>> workers; // by index; grows as workers join
  private final TimerScheduler<JobInput> timers;
  private final ActorRef<JobJournal.Command> journal; // null: checkpoints off
  private final KryoSerde metadataSerde;
  private JobInput.Decoded<Checkpoints.Completed<Path, CoordinatorState>> restored; // read once
  private final CheckpointFiles files; // null: checkpoints off
  private final SavepointFiles savepoints; // null: checkpoints off
  private ActorRef<Object> inbox; // the current attempt's forwarder

  static Behavior<JobInput> create(Setup setup) {
    JobCoordinator[] self = new JobCoordinator[1]; // its logging context reads the running epoch
    return LogContext.coordinator(
        setup.job().jobId(),
        () -> self[0] == null ? 0 : self[0].core.runningEpoch(),
        Behaviors.<JobInput>setup(
            ctx -> {
              // named after this class, not the actor cell, so that its log can be configured
              ctx.setLoggerName(JobCoordinator.class);
              return Behaviors.withTimers(
                  timers -> self[0] = new JobCoordinator(ctx, timers, setup));
            }));
  }

  private JobCoordinator(ActorContext<JobInput> ctx, TimerScheduler<JobInput> timers, Setup setup) {
    super(ctx);
    JobSetup job = setup.job();
    this.jobId = job.jobId();
    this.setup = setup;
    this.timers = timers;
    this.workers = new ArrayList<>(setup.workers());
    for (int w : job.workers().pool().survivors()) {
      ctx.watchWith(workers.get(w), new JobInput.WorkerLost(w));
    }
    this.metadataSerde = new KryoSerde(KoalaSerialization.registry(ctx.getSystem()));
    if (setup.journal() != null) {
      this.journal = ctx.spawn(JobJournal.create(jobId, setup.journal()), "journal");
      CheckpointStorage storage = new CheckpointStorage(setup.checkpointRoot());
      this.files = new CheckpointFiles(jobId, storage, metadataSerde, job, ctx.getLog());
      this.savepoints = new SavepointFiles(files, storage.jobDirectory(jobId));
    } else {
      this.journal = null;
      this.files = null;
      this.savepoints = null;
    }
    if (job.sharded()) {
      ctx.getLog().info("job {}: its coordinator runs on {}", jobId, ctx.getSystem().address());
    }
    this.core = new JobCore(job, clock.now(), ctx.getLog());
    carryOut(core.start());
  }

  /** The setup of job {@code jobId}'s core from the runtime's {@code config}. */
  static JobSetup setup(
      KoalaConfig config,
      String jobId,
      ExecutionPlan plan,
      int workers,
      WorkerPool pool,
      boolean checkpointing,
      boolean sharded,
      Path restoreFrom,
      ReplyTo<JobReply.StatusChanged> listener) {
    EngineSettings engine = EngineSettings.of(config);
    return new JobSetup(
        jobId,
        plan,
        new JobSetup.Workers(workers, pool),
        engine.channels(),
        config.deployTimeout(),
        new JobSetup.Reconfiguration(
            engine.protocol(),
            config.bucketsPerStep(),
            engine.drain(),
            config.reconfigurationStepTimeout(),
            config.scaleOnJoin(),
            engine.autoscaler()),
        checkpointing
            ? new JobSetup.Checkpointing(
                config.checkpointInterval(),
                config.checkpointsRetained(),
                new RestartPolicy(
                    config.maxRestarts(),
                    config.restartBackoff(),
                    config.restartBackoffMax(),
                    config.restartsResetAfter(),
                    config.failureRateInterval()),
                config.redeployTimeout(),
                config.checkpointTimeout(),
                config.tolerableCheckpointFailures())
            : null,
        sharded,
        restoreFrom,
        listener,
        JobSetup.Planted.NONE);
  }

  /** A coordinator that can only say why its job cannot run here. */
  static Behavior<JobInput> undefinedJob(String why) {
    return Behaviors.receive(JobInput.class)
        .onMessage(
            JobInput.Subscribe.class,
            m -> {
              m.listener()
                  .tell(
                      new JobReply.StatusChanged(JobStatus.FAILED, JobCore.coordinatorError(why)));
              return Behaviors.same();
            })
        .build();
  }

  @Override
  public Receive<JobInput> createReceive() {
    return newReceiveBuilder().onAnyMessage(this::onInput).build();
  }

  private Behavior<JobInput> onInput(JobInput input) {
    if (input instanceof JobInput.TakeSavepoint t && t.directory() != null && savepoints != null) {
      // a directory that cannot take the savepoint is refused before the job is asked for one
      String problem = savepoints.problem(Path.of(t.directory()));
      if (problem != null) {
        t.replyTo().tell(new JobReply.SavepointOutcome(t.directory(), -1, 0, problem));
        return this;
      }
    }
    carryOut(core.on(input, clock.now()));
    return this;
  }

  /** Carries out what the core decided, in order. */
  private void carryOut(List<JobEffect> effects) {
    for (JobEffect e : effects) {
      if (e instanceof JobEffect.Reply<?> r) {
        r.send();
      } else if (e instanceof JobEffect.ToTask t) {
        ref(t.task()).tell(t.message());
      } else if (e instanceof JobEffect.Deploy d) {
        workers
            .get(d.worker())
            .tell(
                new Worker.DeployTasks(
                    jobId, d.worker(), d.setups(), inbox.narrow(), d.attempt(), d.restores()));
      } else if (e instanceof JobEffect.WatchTasks w) {
        w.tasks().forEach(t -> inbox.tell(new WatchTask(t.task(), ref(t))));
      } else if (e instanceof JobEffect.StartTasks s) {
        List<TaskActor.TaskRef> book = refs(s.addressBook());
        s.tasks().forEach(t -> ref(t).tell(new TaskActor.Start(book, s.startMillis())));
      } else if (e instanceof JobEffect.Introduce i) {
        List<TaskActor.TaskRef> added = refs(i.added());
        i.tasks().forEach(t -> ref(t).tell(new TaskActor.Addresses(added)));
      } else if (e instanceof JobEffect.CancelTasks c) {
        c.tasks().forEach(t -> ref(t).tell(TaskActor.Cancel.INSTANCE));
      } else if (e instanceof JobEffect.CrashTask c) {
        ref(c.task()).tell(TaskActor.CrashNow.INSTANCE);
      } else if (e instanceof JobEffect.OpenAttempt a) {
        if (inbox != null) {
          getContext().stop(inbox); // and with it, the DeathWatch of the attempt's tasks
        }
        inbox = forwarder(a.attempt());
      } else if (e instanceof JobEffect.StopAttemptsBefore s) {
        s.workers()
            .forEach(w -> workers.get(w).tell(new Worker.StopAttemptsBefore(jobId, s.attempt())));
      } else if (e instanceof JobEffect.StopJob s) {
        s.workers().forEach(w -> workers.get(w).tell(new Worker.StopJob(jobId)));
      } else if (e instanceof JobEffect.StopTask s) {
        workers.get(s.worker()).tell(new Worker.StopTask(jobId, s.task(), s.attempt()));
      } else if (e instanceof JobEffect.WatchWorker w) {
        joined(w);
      } else if (e instanceof JobEffect.CheckWorker c) {
        getContext()
            .ask(
                Worker.Alive.class,
                workers.get(c.worker()),
                setup.metricsTimeout(),
                Worker.IsAlive::new,
                (alive, error) ->
                    new JobInput.TaskStopChecked(c.task(), c.attempt(), alive != null));
      } else if (e instanceof JobEffect.AskReleasedMetrics a) {
        TaskId task = a.task().task();
        getContext()
            .ask(
                TaskMetricsSnapshot.class,
                ref(a.task()),
                setup.metricsTimeout(),
                TaskActor.GetMetrics::new,
                (metrics, error) ->
                    new JobInput.FromAttempt(
                        a.attempt(), new JobInput.HolderReleased(task, metrics)));
      } else if (e instanceof JobEffect.GatherMetrics g) {
        getContext()
            .spawnAnonymous(
                MetricsAggregator.create(
                    refs(g.tasks()), g.request(), getContext().getSelf(), setup.metricsTimeout()));
      } else if (e instanceof JobEffect.StartTimer t) {
        if (t.repeat()) {
          timers.startTimerWithFixedDelay(t.key(), t.input(), t.delay());
        } else {
          timers.startSingleTimer(t.key(), t.input(), t.delay());
        }
      } else if (e instanceof JobEffect.CancelTimer t) {
        timers.cancel(t.key());
      } else if (e instanceof JobEffect.ToSelf s) {
        getContext().getSelf().tell(s.input());
      } else {
        carryOutStorage(e);
      }
    }
  }

  /** Carries out an effect on the journal or the checkpoint files. */
  private void carryOutStorage(JobEffect e) {
    if (e instanceof JobEffect.RecoverJournal r) {
      var given = restoreFrom();
      JobJournal.RestoredCheckpoint record =
          given == null || given.value() == null
              ? null
              : new JobJournal.RestoredCheckpoint(
                  given.value().id(),
                  Blob.of(files.encode(given.value())),
                  setup.job().checkpointing().retained());
      getContext()
          .ask(
              JournalState.class,
              journal,
              setup.job().deployTimeout(),
              to ->
                  r.incarnation()
                      ? new JobJournal.StartIncarnation(to, record)
                      : new JobJournal.Recover(to),
              this::recovered);
    } else if (e instanceof JobEffect.JournalRequest r) {
      byte[] bytes = RequestRecord.encode(metadataSerde, r.request(), workers);
      getContext()
          .askWithStatus(
              JobJournal.RequestAck.class,
              journal,
              Duration.ofSeconds(30),
              to -> new JobJournal.RecordRequest(r.seq(), bytes, to),
              (ack, error) -> new JobInput.RequestJournaled(r.seq(), message(error)));
    } else if (e instanceof JobEffect.JournalRequestDone r) {
      writeToJournal(
          JobJournal.RequestDoneAck.class,
          to -> new JobJournal.RequestDone(r.seq(), to),
          "mark request " + r.seq() + " done");
    } else if (e instanceof JobEffect.JournalCheckpoint j) {
      byte[] metadata = files.encode(j.checkpoint());
      long id = j.checkpoint().id();
      getContext()
          .askWithStatus(
              JobJournal.CheckpointAck.class,
              journal,
              Duration.ofSeconds(30),
              to -> new JobJournal.RecordCheckpoint(id, metadata, j.retained(), to),
              (ack, error) -> new JobInput.Journaled(j.attempt(), id, message(error)));
    } else if (e instanceof JobEffect.JournalDiscard d) {
      writeToJournal(
          JobJournal.DiscardAck.class,
          to -> new JobJournal.DiscardCheckpoint(d.checkpointId(), to),
          "discard checkpoint " + d.checkpointId());
    } else if (e instanceof JobEffect.JournalEnd end) {
      getContext()
          .askWithStatus(
              JobJournal.EndAck.class,
              journal,
              setup.metricsTimeout(),
              to -> new JobJournal.RecordEnd(end.status().name(), end.error(), to),
              (ack, error) -> new JobInput.EndJournaled(message(error)));
    } else if (e instanceof JobEffect.WriteMetadata w) {
      files.writeMetadata(w.checkpoint());
    } else if (e instanceof JobEffect.DeleteSnapshot d) {
      files.delete(d.file());
    } else if (e instanceof JobEffect.DiscardCheckpoint d) {
      files.discard(d.checkpointId(), d.snapshots());
    } else if (e instanceof JobEffect.QuarantineCheckpoint q) {
      files.quarantine(q.checkpointId(), q.snapshots());
    } else if (e instanceof JobEffect.DeleteCheckpoints) {
      files.deleteJob();
    } else if (e instanceof JobEffect.WriteSavepoint w) {
      writeSavepoint(w);
    } else {
      throw new IllegalStateException("unhandled " + e);
    }
  }

  /**
   * Writes a savepoint off the coordinator's thread (copies may take long), answering {@link
   * JobInput.SavepointWritten}; the core deletes no checkpoint file meanwhile.
   */
  private void writeSavepoint(JobEffect.WriteSavepoint w) {
    Checkpoints.Completed<Path, CoordinatorState> c = w.checkpoint();
    CompletableFuture<Void> written;
    try {
      SavepointFiles.Plan plan = savepoints.plan(c, Path.of(w.directory()));
      written =
          CompletableFuture.runAsync(
              () -> savepoints.write(plan),
              getContext().getSystem().dispatchers().lookup(DispatcherSelector.blocking()));
    } catch (RuntimeException error) {
      written = CompletableFuture.failedFuture(error);
    }
    getContext()
        .pipeToSelf(
            written,
            (ok, error) -> {
              Throwable cause = error instanceof CompletionException ce ? ce.getCause() : error;
              String why = cause == null ? null : String.valueOf(cause.getMessage());
              if (why != null) {
                getContext()
                    .getLog()
                    .warn("job {}: savepoint {} not written: {}", jobId, w.directory(), why);
              } else {
                getContext()
                    .getLog()
                    .info("job {}: savepoint of checkpoint {} in {}", jobId, c.id(), w.directory());
              }
              return new JobInput.SavepointWritten(
                  c.id(), c.triggeredMillis(), w.directory(), w.stop(), why, w.replyTo());
            });
  }

  /**
   * A journal write whose failure costs only a repeat after a restart (a request run again, a
   * checkpoint's record kept): sent, and a failure logged.
   */
  private <T> void writeToJournal(
      Class<T> ack, Function<ActorRef<StatusReply<T>>, JobJournal.Command> command, String what) {
    getContext()
        .askWithStatus(
            ack,
            journal,
            Duration.ofSeconds(30),
            command::apply,
            (reply, error) -> {
              if (error != null) {
                getContext()
                    .getLog()
                    .warn("job {}: the journal did not {}: {}", jobId, what, error.toString());
              }
              return JobInput.CheckpointTick.INSTANCE;
            });
  }

  /** The journal's state at start-up, decoded for the core, with the checkpoint to restore. */
  private JobInput recovered(JournalState state, Throwable error) {
    if (state == null) {
      return new JobInput.Recovered(null, message(error));
    }
    List<JobInput.Decoded<Checkpoints.Completed<Path, CoordinatorState>>> checkpoints =
        new ArrayList<>();
    for (JournalState.Checkpoint c : state.checkpoints()) {
      try {
        checkpoints.add(new JobInput.Decoded<>(c.id(), files.decode(c.metadata().bytes()), null));
      } catch (RuntimeException e) {
        checkpoints.add(new JobInput.Decoded<>(c.id(), null, e.toString()));
      }
    }
    List<JobInput.Decoded<JobInput.JournaledRequest>> requests = new ArrayList<>();
    for (JournalState.Request r : state.requests()) {
      try {
        requests.add(
            RequestRecord.decode(
                metadataSerde, r.seq(), r.request().bytes(), workers, setup.job().sharded()));
      } catch (RuntimeException e) {
        requests.add(new JobInput.Decoded<>(r.seq(), null, e.toString()));
      }
    }
    JobInput.Decoded<Checkpoints.Completed<Path, CoordinatorState>> restore = restoreFrom();
    return new JobInput.Recovered(
        new JobInput.RecoveredJournal(
            state.incarnations(),
            state.endedStatus(),
            state.endedError(),
            checkpoints,
            state.lastCheckpointId(),
            requests,
            state.lastRequestSeq(),
            restore),
        null);
  }

  /**
   * The checkpoint the job was asked to start from ({@code restoreFrom}), read once (reading one of
   * another version of the dataflow carries its state over, writing files); null when none.
   */
  private JobInput.Decoded<Checkpoints.Completed<Path, CoordinatorState>> restoreFrom() {
    Path dir = setup.job().restoreFrom();
    if (dir != null && restored == null) {
      try {
        restored = new JobInput.Decoded<>(0, files.read(dir), null);
      } catch (RuntimeException e) {
        restored = new JobInput.Decoded<>(0, null, e.getMessage());
      }
    }
    return restored;
  }

  private static String message(Throwable error) {
    return error == null ? null : String.valueOf(error.getMessage());
  }

  /** A worker joined: it gets tasks by its index from now on, and is DeathWatched. */
  private void joined(JobEffect.WatchWorker w) {
    while (workers.size() < w.worker()) {
      workers.add(getContext().getSystem().deadLetters()); // a join missed: lost in the pool
    }
    ActorRef<Worker.Command> ref = ((Worker.Address) w.address()).ref();
    workers.add(ref);
    getContext().watchWith(ref, new JobInput.WorkerLost(w.worker()));
  }

  /** A child that stamps what the tasks and workers of {@code n} say with {@code n}. */
  private ActorRef<Object> forwarder(int n) {
    ActorRef<JobInput> self = getContext().getSelf();
    return getContext()
        .spawn(
            Behaviors.setup(
                ctx ->
                    Behaviors.receive(Object.class)
                        .onMessage(
                            WatchTask.class,
                            w -> {
                              // watched here, so that a task's last words (TaskFailed) reach the
                              // coordinator before the news of its stop, as they were sent
                              ctx.watchWith(w.ref(), new JobInput.TaskTerminated(w.task(), n));
                              return Behaviors.same();
                            })
                        .onMessage(
                            JobInput.OfAttempt.class,
                            m -> {
                              self.tell(new JobInput.FromAttempt(n, m));
                              return Behaviors.same();
                            })
                        .build()),
            "attempt-" + n);
  }

  /**
   * Checks that every {@code koala.cluster.scale-on-join} operator of {@code plan} can be rescaled:
   * keyed, and heading its tasks. Names not in the dataflow do not concern the job.
   *
   * @throws io.koala.runtime.ConfigurationException naming the operator and the path
   */
  static void checkScaleOnJoin(String jobId, ExecutionPlan plan, KoalaConfig config) {
    for (String name : config.scaleOnJoin()) {
      io.koala.plan.OperatorId op = new io.koala.plan.OperatorId(name);
      ExecutionPlan.Vertex v;
      try {
        v = plan.vertexOf(op);
      } catch (IllegalArgumentException absent) {
        continue;
      }
      String why = null;
      if (!v.id().equals(op)) {
        why = "it runs chained in the tasks of '" + v.id() + "'; name '" + v.id() + "'";
      } else {
        why = v.whyNotReconfigurable();
      }
      if (why != null) {
        throw new io.koala.runtime.ConfigurationException(
            "koala.cluster.scale-on-join names operator '"
                + name
                + "' of job "
                + jobId
                + ", which cannot be rescaled: "
                + why);
      }
    }
  }

  private static ActorRef<TaskMessage> ref(TaskAddress task) {
    return ((TaskActor.TaskRef) task).ref();
  }

  private static List<TaskActor.TaskRef> refs(List<TaskAddress> tasks) {
    List<TaskActor.TaskRef> out = new ArrayList<>(tasks.size());
    tasks.forEach(t -> out.add((TaskActor.TaskRef) t));
    return out;
  }
}
