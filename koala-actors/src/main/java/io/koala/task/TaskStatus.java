package io.koala.task;

/**
 * Lifecycle of a task ({@link TaskEngine}).
 *
 * <pre>
 *   CREATED --start--> RUNNING --all inputs ended, timers fired--> FINISHING --outputs drained-->
 *                         |                                             FINISHED
 *                         +--------- error ---------> FAILED      (any) --cancel--> CANCELLED
 * </pre>
 */
public enum TaskStatus {
  CREATED,
  RUNNING,
  FINISHING,
  FINISHED,
  FAILED,
  CANCELLED
}
