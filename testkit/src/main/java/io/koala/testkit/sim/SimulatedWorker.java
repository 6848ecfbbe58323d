package io.koala.testkit.sim;

import io.koala.coordinator.JobEffect;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.TaskAddress;
import io.koala.coordinator.TaskRestore;
import io.koala.job.ErrorInfo;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.keys.StateServing;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.TaskId;
import io.koala.protocol.CheckpointMessage;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.QueryMessage;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateServerAddress;
import io.koala.protocol.TaskSetup;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.task.KeyQueries;
import io.koala.task.TaskCheckpoint;
import io.koala.task.TaskEngine;
import io.koala.task.TaskStatus;
import io.koala.task.TaskTimer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated job's worker: it creates the tasks of each deployment attempt (restored from their
 * snapshot images), delivers what reaches them, plays their host — what they send goes into the
 * simulation's queues, their snapshots are written to the in-memory checkpoint files — and stops
 * them: released holders, crashed tasks, the tasks of an attempt a rollback replaced.
 */
final class SimulatedWorker implements SimulatedTask.Host {
  static final String COORDINATOR = TaskEngine.COORDINATOR;
  static final String WORKER = "worker";
  private static final long TICK_MILLIS = 1000;

  /** The coordinator → a task: start, with sources counting from {@code startMillis}. */
  record Start(long startMillis) {}

  /**
   * A task's snapshot being written by its host from {@code txn} (or, with a planted bug, from its
   * {@code store} as it is when written), reported with the task's results (of its attempt).
   */
  private record Snapshotted(
      int attempt, TaskId task, long checkpointId, ReadTxn txn, byte[] metadata, StateStore store) {

    /** The image the host writes. */
    TaskImage write() {
      ReadTxn view = txn != null ? txn : store != null ? store.beginRead() : null;
      try {
        return TaskImage.of(view, metadata);
      } finally {
        if (view != null) {
          view.close();
        }
      }
    }

    Written written() {
      return new Written(attempt, task, checkpointId, write());
    }
  }

  /** A task's snapshot written before its task stopped, still to be reported. */
  private record Written(int attempt, TaskId task, long checkpointId, TaskImage image) {}

  private final Simulation sim;
  private final ExecutionPlan plan;
  private final TypeRegistry registry;
  final Map<TaskId, SimulatedTask> tasks = new LinkedHashMap<>();
  private final List<TaskId> dead = new ArrayList<>(); // crashed, in the current attempt
  // the metrics the tasks of the current attempt had when they crashed
  private final Map<TaskId, TaskMetricsSnapshot> crashedMetrics = new LinkedHashMap<>();
  final Map<Path, TaskImage> files = new HashMap<>(); // the checkpoint files
  final List<TaskId> released = new ArrayList<>();
  final Map<TaskId, TaskMetricsSnapshot> releasedMetrics = new LinkedHashMap<>();

  SimulatedWorker(Simulation sim, ExecutionPlan plan, TypeRegistry registry) {
    this.sim = sim;
    this.plan = plan;
    this.registry = registry;
  }

  // ------------------------------------------------ what the coordinator has the worker do

  /** Creates tasks, restored from their snapshot images when the effect says so. */
  void deploy(JobEffect.Deploy d) {
    List<TaskAddress> deployed = new ArrayList<>();
    for (TaskSetup setup : d.setups()) {
      TaskRestore restore = d.restores().get(setup.task());
      TaskImage image = restore == null ? null : files.get(Path.of(restore.file()));
      if (restore != null && image == null) {
        report(
            WORKER,
            d.attempt(),
            new JobInput.SnapshotUnusable(
                d.worker(), setup.task(), restore.checkpointId(), restore.file(), "missing"));
        return;
      }
      if (restore != null
          && sim.environment()
              .corrupt(d.attempt(), setup.task(), restore.file(), sim.checkpointsRetained() > 1)) {
        report(
            WORKER,
            d.attempt(),
            new JobInput.SnapshotUnusable(
                d.worker(),
                setup.task(),
                restore.checkpointId(),
                restore.file(),
                "a checksum mismatch (injected)"));
        return;
      }
      if (restore != null
          && sim.environment().unreadable(d.attempt(), setup.task(), restore.file())) {
        // as for a missing file, the tasks deployed before it go with the attempt's rollback
        report(
            WORKER,
            d.attempt(),
            new JobInput.SnapshotUnreadable(
                d.worker(),
                setup.task(),
                restore.checkpointId(),
                restore.file(),
                "an I/O error (injected)"));
        return;
      }
      deployed.add(add(setup, d.attempt(), image, restore != null && restore.holder()));
    }
    report(WORKER, d.attempt(), new JobInput.TasksDeployed(d.worker(), deployed));
  }

  /**
   * Adds a task of {@code attempt}, restored from {@code image} if not null: as a finished task or
   * retired holder if {@code holder}, else to be started.
   */
  private SimulatedTask.Address add(TaskSetup setup, int attempt, TaskImage image, boolean holder) {
    ExecutionPlan.Vertex vertex = plan.vertex(setup.task().operator());
    StateStore store =
        !vertex.isKeyed() ? null : image == null ? new InMemoryStateStore() : image.restore();
    SimulatedTask task = new SimulatedTask(setup.task(), attempt, store, this, now() + TICK_MILLIS);
    task.engine = new TaskEngine(setup, vertex, task.store, new KryoSerde(registry), task);
    if (image != null) {
      TaskCheckpoint cp = TaskCheckpoint.decode(image.metadata());
      if (holder) {
        task.engine.startAsHolder(cp);
        task.finished = true;
      } else {
        task.engine.restore(cp);
      }
    }
    tasks.put(setup.task(), task);
    dead.remove(setup.task());
    return task.address();
  }

  void cancel(TaskId task) {
    SimulatedTask t = tasks.get(task);
    if (t != null) {
      t.engine.cancel();
    }
  }

  /** A planned crash: the task dies with its store, and the coordinator's DeathWatch hears it. */
  void crash(TaskId task) {
    SimulatedTask t = tasks.remove(task);
    crashedMetrics.put(task, t.engine.metrics());
    t.engine.cancel();
    sim.rewrite(task, m -> m instanceof Snapshotted s ? s.written() : m); // its copier finishes
    t.close();
    dead.add(task);
    report(WORKER, t.attempt, new JobInput.TaskTerminated(task, t.attempt));
  }

  /** A rollback: every task of earlier attempts stops, and what is in flight to or from them. */
  void stopAttemptsBefore(int attempt) {
    sim.dropTaskMessages(
        m -> {
          if (m instanceof Snapshotted s && s.txn() != null) {
            s.txn().close(); // never written
          }
        });
    for (SimulatedTask t : List.copyOf(tasks.values())) {
      if (t.attempt < attempt) {
        t.engine.cancel();
        t.close();
        tasks.remove(t.id);
      }
    }
    dead.clear();
    crashedMetrics.clear();
    releasedMetrics.clear(); // like every task's counters: the restored run counts afresh
  }

  /**
   * No owner references holder {@code task} of {@code attempt} any more and it has finished: its
   * state is gone. As the runtime's worker does, a task it does not run (of another attempt, or
   * stopped already) is left alone.
   */
  void release(TaskId task, int attempt) {
    SimulatedTask t = tasks.get(task);
    if (t == null && crashedMetrics.containsKey(task)) {
      // it crashed once it had handed everything over: released without a rollback, its counts
      // are those it had when it died (the oracle's truth, whatever the coordinator could see)
      releasedMetrics.put(task, crashedMetrics.remove(task).released());
      released.add(task);
      return;
    }
    if (t == null || t.attempt != attempt) {
      return;
    }
    tasks.remove(task);
    releasedMetrics.put(task, t.engine.metrics().released());
    t.close();
    released.add(task);
  }

  /** Whether {@code task} crashed in the current attempt. */
  boolean crashed(TaskId task) {
    return dead.contains(task);
  }

  /** The metrics of {@code task} now, or null if it is gone. */
  TaskMetricsSnapshot metrics(TaskId task) {
    SimulatedTask t = tasks.get(task);
    return t == null ? null : t.engine.metrics();
  }

  /** Every task stops and its store closes; snapshots never written are dropped. */
  void close() {
    sim.forEachMessage(
        m -> {
          if (m instanceof Snapshotted s && s.txn() != null) {
            s.txn().close();
          }
        });
    tasks.values().forEach(SimulatedTask::close);
  }

  // ------------------------------------------------ delivery

  /** {@code m} reaches the coordinator: what it feeds the job core. */
  JobInput toCoordinator(Object m) {
    if (m instanceof Snapshotted s) {
      return snapshotted(s.written());
    }
    if (m instanceof Written w) {
      return snapshotted(w);
    }
    return (JobInput) m;
  }

  /** A task's snapshot is written: it becomes a file, and the coordinator hears of it. */
  private JobInput snapshotted(Written w) {
    Path file = Path.of("chk-" + w.checkpointId(), w.task() + "-" + w.attempt());
    files.put(file, w.image());
    return new JobInput.FromAttempt(
        w.attempt(),
        new JobInput.SnapshotTaken(w.task(), w.checkpointId(), file.toString(), w.image().bytes()));
  }

  void toTask(TaskId to, Object m) {
    SimulatedTask t = tasks.get(to);
    if (t == null) {
      if (!dead.contains(to)
          && !(m instanceof StateMessage.Release
              || m instanceof Credit
              || m instanceof QueryMessage.Read)) {
        // a release, a credit for an item it sent before it ended, or a read routed by a table
        // that still names it may still reach it (the read is sent again, as a client does)
        sim.failed(
            ErrorInfo.of(
                "simulation",
                to,
                null,
                new IllegalStateException(m + " sent to task " + to + ", released as a holder")));
      }
      return; // what reaches a crashed task is lost, as a dead actor's messages are
    }
    TaskEngine engine = t.engine;
    if (m instanceof Deliver d) {
      engine.onDeliver(d);
    } else if (m instanceof Credit c) {
      engine.onCredit(c);
    } else if (m instanceof StateMessage.StateReply r) {
      engine.onStateReply(r);
    } else if (m instanceof StateMessage.Release r) {
      engine.onRelease(r);
    } else if (m instanceof QueryMessage.Read r) {
      engine.onQuery(r);
    } else if (m instanceof EpochMessage.Command c) {
      engine.onCommand(c);
    } else if (m instanceof CheckpointMessage.Command c) {
      engine.onCheckpoint(c);
    } else if (m instanceof Start s) {
      if (engine.status() == TaskStatus.CREATED) {
        engine.start(s.startMillis());
      }
    } else {
      throw new IllegalStateException("unhandled " + m);
    }
  }

  /**
   * What reaches a task's state server: a fetch, a read its owner hands it (answered to the read's
   * client), or a release it passes on to its task, behind what the owner sent it before.
   */
  void serve(StateServerAddress server, Object m) {
    SimulatedTask holder = tasks.get(server.task());
    if (m instanceof StateMessage.Release release) {
      sim.send(server, server.task(), release);
      return;
    }
    if (m instanceof QueryMessage.HolderRead read) {
      if (holder != null) { // else the holder stopped: no answer, and the client asks again
        sim.send(
            server,
            read.read().replyTo(),
            KeyQueries.answer(
                read.read(), holder.store, server.task().index(), true, read.declared()));
      }
      return;
    }
    StateMessage.Fetch fetch = (StateMessage.Fetch) m;
    if (holder == null) {
      if (!dead.contains(server.task())) {
        sim.failed(
            ErrorInfo.of(
                "simulation",
                server.task(),
                null,
                new IllegalStateException(
                    "a fetch reached " + server.task() + " after it was released: state lost")));
      }
      return;
    }
    try (ReadTxn txn = holder.store.beginRead()) {
      sim.send(server, fetch.owner(), StateServing.serve(txn, fetch, server.task()));
    }
  }

  /**
   * Adds to {@code due} the tasks' timers and ticks due by {@code now}; returns when the next of
   * the others is due.
   */
  long due(long now, List<Runnable> due) {
    long next = Long.MAX_VALUE;
    for (SimulatedTask t : tasks.values()) {
      if (t.finished) {
        continue;
      }
      for (Map.Entry<TaskTimer, Long> e : t.timers.entrySet()) {
        if (e.getValue() <= now) {
          TaskTimer timer = e.getKey();
          due.add(
              () -> {
                t.timers.remove(timer);
                t.engine.onTimer(timer);
              });
        } else {
          next = Math.min(next, e.getValue());
        }
      }
      if (t.nextTick <= now) {
        due.add(
            () -> {
              t.nextTick = now + TICK_MILLIS;
              t.engine.onTick();
            });
      } else {
        next = Math.min(next, t.nextTick);
      }
    }
    return next;
  }

  // ------------------------------------------------ the tasks' host

  @Override
  public long now() {
    return sim.now();
  }

  @Override
  public void send(SimulatedTask from, Object target, KoalaMessage message) {
    if (COORDINATOR.equals(target)) {
      report(from, new JobInput.EpochReported((EpochMessage.Report) message));
    } else if (TaskEngine.CLIENT.equals(target)) {
      report(from, new JobInput.ResultsDelivered(from.id, (Deliver) message));
    } else {
      sim.send(from.id, target, message);
    }
  }

  @Override
  public void finished(SimulatedTask task) {
    report(task, new JobInput.TaskFinished(task.id));
  }

  @Override
  public void checkpointWanted(SimulatedTask task, String reason) {
    report(task, new JobInput.CheckpointWanted(task.id, reason));
  }

  @Override
  public void failed(SimulatedTask task, ErrorInfo error) {
    sim.failed(error); // in the simulator, a task's failure ends the run
    report(task, new JobInput.TaskFailed(task.id, error));
  }

  @Override
  public boolean checkpointing() {
    return sim.checkpointing();
  }

  @Override
  public void snapshot(SimulatedTask task, long checkpointId, ReadTxn txn, byte[] metadata) {
    ReadTxn view = txn;
    if (txn != null && sim.plantedAndApplied(Simulation.Fault.SNAPSHOT_AFTER_BARRIER)) {
      txn.close(); // the bug: the copy reads the store when it runs, not at the barrier
      view = null;
    }
    if (sim.environment().snapshotHangs(task.attempt, task.id, checkpointId)) {
      if (view != null) {
        view.close(); // its copier hangs: the checkpoint waits until it times out
      }
      return;
    }
    // the host writes the snapshot later (asynchronously), then reports with the results
    sim.send(
        task.id,
        COORDINATOR,
        new Snapshotted(task.attempt, task.id, checkpointId, view, metadata, task.store));
  }

  /** What a task tells the coordinator, stamped with the task's attempt. */
  private void report(SimulatedTask from, JobInput.OfAttempt input) {
    report(from.id, from.attempt, input);
  }

  /** What {@code from} tells the coordinator about attempt {@code attempt}. */
  private void report(Object from, int attempt, JobInput.OfAttempt input) {
    sim.send(from, COORDINATOR, new JobInput.FromAttempt(attempt, input));
  }
}
