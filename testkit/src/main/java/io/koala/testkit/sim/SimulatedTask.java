package io.koala.testkit.sim;

import io.koala.coordinator.TaskAddress;
import io.koala.job.ErrorInfo;
import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.task.TaskEngine;
import io.koala.task.TaskHost;
import io.koala.task.TaskTimer;
import java.util.EnumMap;

/**
 * One task of the simulated job, of one deployment attempt: its engine, its store and its pending
 * timers. What the engine sends goes into the simulation's queues, as a task actor's messages do.
 */
final class SimulatedTask implements TaskHost {

  /** How the simulated job core addresses a task: by its id. */
  record Address(TaskId task) implements TaskAddress {}

  /** What a simulated task does besides computing: the simulation's side of its host. */
  interface Host {
    long now();

    void send(SimulatedTask from, Object target, KoalaMessage message);

    void finished(SimulatedTask task);

    void checkpointWanted(SimulatedTask task, String reason);

    void failed(SimulatedTask task, ErrorInfo error);

    boolean checkpointing();

    void snapshot(SimulatedTask task, long checkpointId, ReadTxn txn, byte[] metadata);
  }

  final TaskId id;
  final int attempt;
  final StateStore store;
  TaskEngine engine;
  final EnumMap<TaskTimer, Long> timers = new EnumMap<>(TaskTimer.class);
  long nextTick;
  boolean finished;
  private final Host host;
  private long nanos;

  SimulatedTask(TaskId id, int attempt, StateStore store, Host host, long nextTick) {
    this.id = id;
    this.attempt = attempt;
    this.store = store;
    this.host = host;
    this.nextTick = nextTick;
  }

  Address address() {
    return new Address(id);
  }

  /** Stops the task and closes its store: it processes nothing more. */
  void close() {
    engine.close();
    if (store != null) {
      store.close();
    }
  }

  @Override
  public void send(Object target, KoalaMessage message) {
    host.send(this, target, message);
  }

  @Override
  public void schedule(TaskTimer timer, long delayMillis) {
    timers.put(timer, host.now() + Math.max(0, delayMillis));
  }

  @Override
  public void checkpointWanted(String reason) {
    host.checkpointWanted(this, reason);
  }

  @Override
  public void finished() {
    finished = true;
    host.finished(this);
  }

  @Override
  public void failed(ErrorInfo error) {
    host.failed(this, error);
  }

  @Override
  public long currentTimeMillis() {
    return host.now();
  }

  @Override
  public long nanoTime() {
    return host.now() * 1_000_000 + (++nanos);
  }

  @Override
  public boolean checkpointing() {
    return host.checkpointing();
  }

  @Override
  public void snapshot(long checkpointId, ReadTxn txn, byte[] metadata) {
    host.snapshot(this, checkpointId, txn, metadata);
  }
}
