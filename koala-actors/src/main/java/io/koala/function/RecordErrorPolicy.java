package io.koala.function;

import java.util.Locale;

/**
 * What a job does with a record its code cannot process — a user function or key selector that
 * throws, a key selector that returns null, a key too long for the state store, a record emitted
 * over the size a channel carries, a record a source cannot deserialize: fail the task ({@link
 * #fail()}, the default: the job rolls back to its latest checkpoint, meets the record again and,
 * once its restarts are spent, fails naming it), skip the record ({@link #skip(long)}), or send it
 * to the job's dead letters ({@link #deadLetter(long)}).
 *
 * <p>A skipped record is abandoned where it failed: what the operators before the failing one
 * emitted or wrote to state for it stays. Each skip is counted ({@code
 * JobMetrics.recordsSkipped(operator)}) and logged with the operator, the task, the key and the
 * cause (the first ten of a task, then one in a thousand). Past its budget of skips in one task
 * since the task started or was restored, the task fails as under {@link #fail()}, naming the
 * budget: a job whose every record fails is not left running while it drops them all. A timer
 * callback that throws always fails the task.
 *
 * <p>Under {@link #deadLetter(long)} a skipped record also becomes a {@link DeadLetter} on the
 * stream {@code DataflowBuilder.deadLetters()}, which the dataflow sends to a sink of its choice;
 * dead letters travel like any record, so an exactly-once sink writes each once. A record a source
 * cannot deserialize has no value to send: its dead letter says where it was read, and may come
 * again after a rollback (at least once). Records that fail on the dead letters' own way to their
 * sink are skipped (counted and logged) but not dead-lettered.
 *
 * <pre>{@code
 * DataflowBuilder b = Dataflow.builder("orders").onRecordError(RecordErrorPolicy.deadLetter(1_000));
 * b.deadLetters().sink(KafkaSink.atLeastOnce(...));
 * }</pre>
 *
 * @param skip whether failing records are skipped (else they fail the task)
 * @param maxSkipped the skips one task may make before it fails; 0 with {@link #fail()}
 * @param deadLetters whether a skipped record is sent to the job's dead letters
 */
public record RecordErrorPolicy(boolean skip, long maxSkipped, boolean deadLetters) {
  private static final RecordErrorPolicy FAIL = new RecordErrorPolicy(false, 0, false);

  public RecordErrorPolicy {
    if (maxSkipped < 0 || (!skip && (maxSkipped != 0 || deadLetters))) {
      throw new IllegalArgumentException(
          "a record error policy skips 1 or more records per task, or fails at the first: "
              + (skip ? "skip(" + maxSkipped + ")" : "fail with a budget of " + maxSkipped));
    }
  }

  /** A failing record fails its task: the default. */
  public static RecordErrorPolicy fail() {
    return FAIL;
  }

  /**
   * A failing record is skipped, counted and logged; the {@code maxSkipped + 1}-th in one task
   * fails it.
   *
   * @param maxSkipped at least 1
   */
  public static RecordErrorPolicy skip(long maxSkipped) {
    return new RecordErrorPolicy(true, budget("skip", maxSkipped), false);
  }

  /**
   * A failing record is skipped as by {@link #skip(long)}, and sent to the job's dead letters
   * ({@code DataflowBuilder.deadLetters()}, which the dataflow must send somewhere).
   *
   * @param maxRecords the records one task may send there before the next fails it; at least 1
   */
  public static RecordErrorPolicy deadLetter(long maxRecords) {
    return new RecordErrorPolicy(true, budget("deadLetter", maxRecords), true);
  }

  private static long budget(String policy, long n) {
    if (n < 1) {
      throw new IllegalArgumentException(
          policy + "(" + n + "): the budget of skipped records must be at least 1");
    }
    return n;
  }

  @Override
  public String toString() {
    return skip
        ? String.format(Locale.ROOT, "%s(%,d)", deadLetters ? "deadLetter" : "skip", maxSkipped)
        : "fail";
  }
}
