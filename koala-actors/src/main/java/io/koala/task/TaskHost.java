package io.koala.task;

import io.koala.job.ErrorInfo;
import io.koala.protocol.KoalaMessage;
import io.koala.store.ReadTxn;

/**
 * The effects a {@link TaskEngine} asks its host to carry out, and the clock it reads: a task actor
 * in the runtime, the simulator's task in tests. The engine calls it from the task's thread only.
 */
public interface TaskHost {
  /**
   * Sends a data-plane message to a task ({@link io.koala.plan.TaskId}) or {@link
   * TaskEngine#CLIENT}.
   */
  void send(Object target, KoalaMessage message);

  /**
   * This task's address for peers outside the job's tasks (an ingest handle), as {@link #send}
   * takes it. Only hosts that talk to such peers have one.
   */
  default Object externalAddress() {
    throw new UnsupportedOperationException("this task host has no address for outside peers");
  }

  /** Calls {@link TaskEngine#onTimer} once after {@code delayMillis} (0: as soon as possible). */
  void schedule(TaskTimer timer, long delayMillis);

  /**
   * What code on other threads calls to wake the task (a sink whose consumer caught up): each call
   * asks for {@link TaskEngine#onTimer}({@link TaskTimer#READY}) on the task's thread. The waker is
   * thread-safe, unlike the host; calls may coalesce. The default suits hosts that run on one
   * thread.
   */
  default Runnable waker() {
    return () -> schedule(TaskTimer.READY, 0);
  }

  /**
   * Asks the coordinator for a checkpoint before its interval is due ({@code reason} says why, for
   * its log): a sink whose uncommitted output grows too large. The coordinator triggers one as soon
   * as one may start; a host without checkpoints ignores it.
   */
  default void checkpointWanted(String reason) {}

  /** The task has finished: every output channel has delivered end-of-channel. */
  void finished();

  /** The task has failed; it processes nothing more. */
  void failed(ErrorInfo error);

  long currentTimeMillis();

  long nanoTime();

  /**
   * Remote state services the task's keyed state lives at ({@code koala.store.backend = remote}),
   * or 0 when it lives in the task's own store.
   */
  default int remoteStateServices() {
    return 0;
  }

  /**
   * Whether the job takes checkpoints. Copies this task installs from holders are then released
   * only once a checkpoint that a rollback may still restore covers them (DESIGN §6.7); without
   * checkpoints, release follows installation.
   */
  default boolean checkpointing() {
    return false;
  }

  /**
   * Writes this task's snapshot for checkpoint {@code checkpointId}, then reports it to the
   * coordinator: the store as {@code txn} sees it ({@code null} for a task without keyed state),
   * opened at the barrier, which the host closes when done (it may copy on another thread while the
   * task goes on), and {@code metadata} ({@link TaskCheckpoint}).
   */
  default void snapshot(long checkpointId, ReadTxn txn, byte[] metadata) {
    if (txn != null) {
      txn.close();
    }
    throw new IllegalStateException("this host takes no checkpoints");
  }
}
