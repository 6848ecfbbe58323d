package io.koala.state;

/** The clock a timer follows. */
public enum TimeDomain {
  /** Fires when the task's watermark reaches the timer's timestamp. */
  EVENT_TIME,
  /** Fires when the wall clock reaches the timer's timestamp. */
  PROCESSING_TIME
}
