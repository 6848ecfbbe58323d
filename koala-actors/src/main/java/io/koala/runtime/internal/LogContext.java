package io.koala.runtime.internal;

import io.koala.coordinator.JobInput;
import io.koala.job.ErrorInfo;
import io.koala.protocol.TaskSetup;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * The logging context (SLF4J MDC) of Koala's lines, so that a JSON log encoder writes it as fields
 * (docs/operations.md): {@code koala.job} on everything a job's coordinator logs, with {@code
 * koala.epoch} while a reconfiguration runs; a task's failure carries {@code koala.job}, {@code
 * koala.operator}, {@code koala.task}, {@code koala.attempt} and the {@code koala.key} it was
 * processing. Tasks set it only when they log, not around every message they handle: their messages
 * are the data path, and they log only on failure.
 */
final class LogContext {
  static final String JOB = "koala.job";
  static final String OPERATOR = "koala.operator";
  static final String TASK = "koala.task";
  static final String ATTEMPT = "koala.attempt";
  static final String EPOCH = "koala.epoch";
  static final String KEY = "koala.key";

  private LogContext() {}

  /**
   * {@code behavior}, a coordinator of job {@code jobId}, with its context set while it handles a
   * message; {@code epoch}: the running reconfiguration's epoch, 0 when none.
   */
  static Behavior<JobInput> coordinator(
      String jobId, LongSupplier epoch, Behavior<JobInput> behavior) {
    return Behaviors.withMdc(
        JobInput.class,
        Map.of(JOB, jobId),
        m -> {
          long e = epoch.getAsLong();
          return e > 0 ? Map.of(EPOCH, String.valueOf(e)) : Map.of();
        },
        behavior);
  }

  /**
   * Logs the failure of {@code setup}'s task (of attempt {@code attempt}) in context: at ERROR, or
   * at INFO when it is the consequence of another task's stop ({@link ErrorInfo#consequence()}):
   * the coordinator reports a stop that matters (its rollback names the cause), and a job cancelled
   * stops holders before their owners hear of the cancellation, which is no news.
   */
  static void failure(Logger log, TaskSetup setup, int attempt, ErrorInfo error) {
    MDC.put(JOB, setup.jobId());
    MDC.put(OPERATOR, setup.task().operator().name());
    MDC.put(TASK, setup.task().toString());
    MDC.put(ATTEMPT, String.valueOf(attempt));
    if (error.key() != null) {
      MDC.put(KEY, error.key());
    }
    try {
      if (error.consequence()) {
        log.info("{}: {}", setup.task(), error.describe()); // the holder's stop is the news
      } else {
        log.error("{}: {}", setup.task(), error.describe());
      }
    } finally {
      for (String k : new String[] {JOB, OPERATOR, TASK, ATTEMPT, KEY}) {
        MDC.remove(k);
      }
    }
  }
}
