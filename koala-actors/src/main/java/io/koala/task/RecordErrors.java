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
 * operator it is charged to, logged, and refused once the task's budget is spent. Thread-safe: a
 * source's fetcher thread asks it about records it cannot deserialize.
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

  /**
   * @param positions the operators of the task's chain, a source included
   */
  RecordErrors(RecordErrorPolicy policy, String jobId, TaskId task, int positions) {
    this.policy = policy;
    this.jobId = jobId;
    this.task = task;
    this.skipped = new AtomicLongArray(positions);
  }

  /**
   * The record being processed failed with {@code failure}, charged to the operator at chain
   * position {@code position}; {@code key} is its key, or null when not known. Returns when the
   * record is skipped.
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
    if (!trySkip(failure.operator(), position, record, failure.getCause())) {
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
   * skipped (counted and logged); false when the policy fails the task or the budget is spent, and
   * then the caller fails it, naming {@link #overBudget()} if the policy skips.
   */
  boolean trySkip(String operator, int position, String record, Throwable cause) {
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
          "job {} task {}: skipped a record operator '{}' could not process ({}), {} of at most {}"
              + " in this task{}: {}",
          jobId,
          task,
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
