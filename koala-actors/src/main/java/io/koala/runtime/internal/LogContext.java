package io.koala.runtime.internal;

import io.koala.core.TaskMessage;
import io.koala.core.reconfig.EpochMessage;
import io.koala.plan.TaskId;
import java.util.Map;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The logging context (SLF4J MDC) of Koala's actors, set while they handle a message, so that every
 * line they log — through their context's logger or any SLF4J logger on that thread — carries it:
 * {@code koala.job} on a job's coordinator and tasks; {@code koala.operator}, {@code koala.task}
 * and {@code koala.attempt} on a task; {@code koala.epoch} while a task handles a message of a
 * reconfiguration epoch; {@code koala.key} on a task's failure while processing a key. A JSON log
 * encoder writes them as fields (docs/operations.md).
 */
final class LogContext {
  static final String JOB = "koala.job";
  static final String OPERATOR = "koala.operator";
  static final String TASK = "koala.task";
  static final String ATTEMPT = "koala.attempt";
  static final String EPOCH = "koala.epoch";
  static final String KEY = "koala.key";

  private LogContext() {}

  static Behavior<JobCoordinator.Command> coordinator(
      String jobId, Behavior<JobCoordinator.Command> behavior) {
    return Behaviors.withMdc(JobCoordinator.Command.class, Map.of(JOB, jobId), behavior);
  }

  static Behavior<TaskMessage> task(
      String jobId, TaskId task, int attempt, Behavior<TaskMessage> behavior) {
    return Behaviors.withMdc(
        TaskMessage.class,
        Map.of(
            JOB,
            jobId,
            OPERATOR,
            task.operator().name(),
            TASK,
            task.toString(),
            ATTEMPT,
            String.valueOf(attempt)),
        m ->
            m instanceof EpochMessage.Command e
                ? Map.of(EPOCH, String.valueOf(e.epoch()))
                : Map.of(),
        behavior);
  }

  /** Logs {@code task}'s failure at ERROR, with the key it was processing (if any) in the MDC. */
  static void failure(org.slf4j.Logger log, TaskId task, io.koala.core.ErrorInfo error) {
    if (error.key() != null) {
      org.slf4j.MDC.put(KEY, error.key());
    }
    try {
      log.error("{}: {}", task, error.describe());
    } finally {
      org.slf4j.MDC.remove(KEY);
    }
  }
}
