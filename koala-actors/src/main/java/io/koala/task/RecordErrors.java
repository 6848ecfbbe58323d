package io.koala.task;

import io.koala.KoalaException;
import io.koala.function.RecordErrorPolicy;
import io.koala.function.UserFunctionException;
import io.koala.plan.TaskId;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one task does with a record its code cannot process, by the job's {@link RecordErrorPolicy}:
 * rethrow the failure (the task fails), or skip the record — counted by the chain position of the
 * operator it is charged to, logged, and refused once the task's budget is spent — and, under
 * {@link RecordErrorPolicy#deadLetter}, have it sent to the dead letters when this task sends them
 * on ({@link #deadLetters}). Thread-safe: a source's fetcher thread asks it about records it cannot
 * deserialize.
 */
final class RecordErrors {
  private static final Logger LOG = LoggerFactory.getLogger(RecordErrors.class);
  private static final long LOGGED_FIRST = 10;
  private static final long LOGGED_ONE_IN = 1_000;

  private final RecordErrorPolicy policy;
  private final String jobId;
  private final TaskId task;
  private final AtomicLongArray skipped; // by chain position
  private final AtomicLong total = new AtomicLong();
  private final boolean deadLetters;

  /**
   * @param positions the operators of the task's chain, a source included
   * @param sendsDeadLetters whether the task's vertex sends dead letters on (it is not on their own
   *     way to their sink)
   */
  RecordErrors(
      RecordErrorPolicy policy,
      String jobId,
      TaskId task,
      int positions,
      boolean sendsDeadLetters) {
    this.policy = policy;
    this.jobId = jobId;
    this.task = task;
    this.skipped = new AtomicLongArray(positions);
    this.deadLetters = policy.deadLetters() && sendsDeadLetters;
  }

  /**
   * Whether a record of the task's chain that {@link #skipOrThrow} skipped goes to the dead letters
   * (a source's unreadable record does not: it has no value to send).
   */
  boolean deadLetters() {
    return deadLetters;
  }

  /**
   * The record being processed failed with {@code failure}, charged to the operator at chain
   * position {@code position}; {@code key} is its key, or null when not known. Returns when the
   * record is skipped (the caller then sends it to the dead letters if {@link #deadLetters}).
   *
   * @throws UserFunctionException {@code failure} when the policy fails the task, or a failure
   *     naming the budget once the task has skipped as many records as it may
   */
  void skipOrThrow(UserFunctionException failure, int position, Object key) {
    if (!policy.skip()) {
      throw failure;
    }
    String record =
        key == null ? "key unknown" : "key " + KeySelection.shortened(String.valueOf(key));
    if (!trySkip(failure.operator(), position, record, failure.getCause(), deadLetters)) {
      throw new UserFunctionException(
          failure.operator(),
          new KoalaException(
              overBudget() + "; the record (" + record + "): " + failure.getCause(),
              failure.getCause()));
    }
  }

  /**
   * Whether a record ({@code record} says which: its key, or where it was read) that failed with
   * {@code cause}, charged to operator {@code operator} at chain position {@code position}, is
   * skipped (counted and logged, as sent to the dead letters when {@code deadLettered}); false when
   * the policy fails the task or the budget is spent, and then the caller fails it, naming {@link
   * #overBudget()} if the policy skips.
   */
  boolean trySkip(
      String operator, int position, String record, Throwable cause, boolean deadLettered) {
    if (!policy.skip()) {
      return false;
    }
    long n = total.incrementAndGet();
    if (n > policy.maxSkipped()) {
      total.decrementAndGet(); // counts skips only
      LOG.error("job {}: {}; the record ({}) fails it: {}", jobId, overBudget(), record, cause);
      return false;
    }
    skipped.incrementAndGet(position);
    if (n <= LOGGED_FIRST || n % LOGGED_ONE_IN == 0) {
      LOG.warn(
          "job {} task {}: {} a record operator '{}' could not process ({}), {} of at most {}"
              + " in this task{}: {}",
          jobId,
          task,
          deadLettered ? "sent to the dead letters" : "skipped",
          operator,
          record,
          n,
          policy.maxSkipped(),
          n == LOGGED_FIRST ? "; from now on one skip in " + LOGGED_ONE_IN + " is logged" : "",
          String.valueOf(cause));
    }
    return true;
  }

  /** Whether records may be skipped at all. */
  boolean skips() {
    return policy.skip();
  }

  /** Why a record that failed next is not skipped: the budget is spent. */
  String overBudget() {
    return String.format(
        Locale.ROOT,
        "task %s skipped %,d records it could not process, its budget (%s): failing instead",
        task,
        policy.maxSkipped(),
        policy);
  }

  /** Records skipped so far, charged to the operator at chain position {@code position}. */
  long skipped(int position) {
    return skipped.get(position);
  }
}
