package io.koala.task;

import io.koala.job.StatePlaneStats.Stall;

/**
 * Which stall the task's loop is in, and since when: the loop reports why it stopped with work
 * queued ({@link #stopped}) and that it runs again ({@link #resumed}); the time in between counts
 * for that reason. The clock is read only when a stall opens or closes, so a task that never stalls
 * pays nothing.
 */
final class TaskStalls {
  private final TaskHost host;
  private final TaskMetrics metrics;
  private Stall open; // null: not stalled
  private long since;

  TaskStalls(TaskHost host, TaskMetrics metrics) {
    this.host = host;
    this.metrics = metrics;
  }

  /** The loop runs again: the open stall, if any, ends now. */
  void resumed() {
    if (open != null) {
      metrics.stalled(open, host.nanoTime() - since);
      open = null;
    }
  }

  /**
   * Counts the open stall's time so far, keeping it open: a snapshot of the metrics taken during a
   * long stall shows it, not only once it ends.
   */
  void settle() {
    if (open != null) {
      long now = host.nanoTime();
      metrics.stalled(open, now - since);
      since = now;
    }
  }

  /** The loop stopped: for {@code reason}, or, when it is null, because it has nothing to do. */
  void stopped(Stall reason) {
    resumed();
    if (reason != null) {
      open = reason;
      since = host.nanoTime();
    }
  }
}
