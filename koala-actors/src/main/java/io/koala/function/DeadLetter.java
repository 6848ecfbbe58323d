package io.koala.function;

/**
 * A record a task could not process, sent to the job's dead letters ({@link
 * RecordErrorPolicy#deadLetter}, {@code DataflowBuilder.deadLetters()}) instead of failing the
 * task. Everything is text, so that any sink can write it and a record of any type fits: the record
 * as it entered the task ({@code String.valueOf}, cut to {@value #MAX_TEXT} characters), its class,
 * its key when known, and the failure.
 *
 * @param operator the operator it failed in (a downstream operator when its key selector failed as
 *     the record was emitted)
 * @param task the task, as {@code operator#index} of the task's vertex
 * @param key the record's key, or null when not known (cut like the record)
 * @param record the record as it entered the task; for one its source could not read, where it was
 *     (a partition and an offset, say)
 * @param recordType the record's class name; null for one its source could not read
 * @param error the failure: its class and message
 * @param timestamp the record's event time ({@code Long.MIN_VALUE}: none)
 */
public record DeadLetter(
    String operator,
    String task,
    String key,
    String record,
    String recordType,
    String error,
    long timestamp) {

  /** The longest text a dead letter keeps of a record or a key. */
  public static final int MAX_TEXT = 4_096;

  /** {@code value} as text of at most {@link #MAX_TEXT} characters ("null" for null). */
  public static String text(Object value) {
    String s = String.valueOf(value);
    return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT - 1) + "…";
  }
}
