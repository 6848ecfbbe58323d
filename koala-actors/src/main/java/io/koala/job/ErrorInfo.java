package io.koala.job;

import io.koala.function.UserFunctionException;
import io.koala.plan.TaskId;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * A task failure as it travels to the coordinator and the client: exceptions themselves are not
 * sent between actors (they may not be serializable), their description is.
 *
 * @param operator the operator at fault, or the task's head operator when none is known
 * @param task the failed task, e.g. {@code count#1}
 * @param key the key being processed, if any ({@code null} otherwise)
 */
public record ErrorInfo(
    String operator,
    String task,
    String key,
    String exceptionClass,
    String message,
    String stackTrace) {

  /** Describes {@code error}, raised in {@code task} while processing {@code key} (may be null). */
  public static ErrorInfo of(String operator, TaskId task, Object key, Throwable error) {
    Throwable root =
        error instanceof UserFunctionException && error.getCause() != null
            ? error.getCause()
            : error;
    StringWriter trace = new StringWriter();
    root.printStackTrace(new PrintWriter(trace));
    String k = key == null ? null : abbreviate(String.valueOf(key));
    return new ErrorInfo(
        operator,
        task.toString(),
        k,
        root.getClass().getName(),
        root.getMessage(),
        trace.toString());
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "…";
  }

  /**
   * Whether this failure is the consequence of another task stopping (a {@link
   * HolderStoppedException}): the coordinator reports that stop, so this one is logged as
   * information, not as an error.
   */
  public boolean consequence() {
    return HolderStoppedException.class.getName().equals(exceptionClass);
  }

  /** One line: task, operator, key and the cause. */
  public String describe() {
    return "task "
        + task
        + " (operator '"
        + operator
        + "')"
        + (key == null ? "" : " on key " + key)
        + " failed: "
        + exceptionClass
        + (message == null ? "" : ": " + message);
  }
}
