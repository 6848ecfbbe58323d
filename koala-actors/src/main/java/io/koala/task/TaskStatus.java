package io.koala.task;

import java.util.EnumSet;
import java.util.Set;

/**
 * Lifecycle of a task ({@link TaskEngine}), with its legal transitions ({@link #to}).
 *
 * <pre>
 *   CREATED --start--> RUNNING --all inputs ended, timers fired--> FINISHING --outputs drained-->
 *      |                                                                          FINISHED
 *      +--resumed as a retired holder-------------------------------------------> FINISHED
 *
 *   CREATED, RUNNING, FINISHING --cancel--> CANCELLED
 *   CREATED, RUNNING, FINISHING, FINISHED --error--> FAILED   (a finished holder still serves state)
 * </pre>
 */
public enum TaskStatus {
  CREATED,
  RUNNING,
  FINISHING,
  FINISHED,
  FAILED,
  CANCELLED;

  /** This status followed by {@code next}, if that is a legal transition. */
  TaskStatus to(TaskStatus next) {
    if (!successors().contains(next)) {
      throw new IllegalStateException("a " + this + " task cannot become " + next);
    }
    return next;
  }

  private Set<TaskStatus> successors() {
    return switch (this) {
      case CREATED -> EnumSet.of(RUNNING, FINISHED, FAILED, CANCELLED);
      case RUNNING -> EnumSet.of(FINISHING, FAILED, CANCELLED);
      case FINISHING -> EnumSet.of(FINISHED, FAILED, CANCELLED);
      case FINISHED -> EnumSet.of(FAILED);
      case FAILED, CANCELLED -> EnumSet.noneOf(TaskStatus.class);
    };
  }

  /** Whether the task stopped without finishing: it failed or was cancelled. */
  public boolean stopped() {
    return this == FAILED || this == CANCELLED;
  }

  /** Whether the task does no more work for its inputs: finished, failed or cancelled. */
  public boolean ended() {
    return this == FINISHED || stopped();
  }

  /** Whether the task runs its records and timers now: running, or finishing its last ones. */
  public boolean processing() {
    return this == RUNNING || this == FINISHING;
  }

  /**
   * Whether the task answers state queries: it has started (its operators declared their states)
   * and has not stopped.
   */
  public boolean servesQueries() {
    return processing() || this == FINISHED;
  }
}
