package io.koala.connector;

/** What a source task tells the reader it opens. */
public interface SourceContext {
  String sourceName();

  /**
   * This task's slot among the source's tasks, {@code 0 <= taskIndex < parallelism}: the task reads
   * the splits its source's {@link SourceSpec#slotOf} gives this slot. It is the task's index until
   * a reconfiguration changes the source's tasks (a moved task takes a slot of its own).
   */
  int taskIndex();

  /** How many tasks the source has. */
  int parallelism();

  /** The job's start, in wall-clock milliseconds: the origin of rate schedules. */
  long startMillis();

  /**
   * The time as the task sees it (in the simulator, simulated time). Readers that measure
   * availability or idleness read this clock, not the system's.
   */
  long currentTimeMillis();

  /**
   * What code on another thread calls, once records have arrived, to have a reader that found
   * nothing ({@link ReadResult#waitUntil}) read again before the time it named. Thread-safe; calls
   * may coalesce.
   */
  Runnable waker();

  /**
   * Whether to skip a record this reader cannot read — its bytes do not deserialize, say — and read
   * on, by the job's {@link io.koala.function.RecordErrorPolicy}: true, it is counted as the
   * source's skipped record and logged with {@code what} (where it was: a partition and offset) and
   * {@code cause}; false (the policy fails, or its budget is spent), the reader fails as it would
   * without a policy. Thread-safe: a reader's own fetching thread may ask. A context that skips
   * nothing answers false.
   */
  default boolean skipRecord(String what, Exception cause) {
    return false;
  }
}
