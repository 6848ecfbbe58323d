package io.koala.state;

/**
 * Timers of the current key. A timer is identified by its key and timestamp (registering it twice
 * keeps one) and lives in the task's store with the key's state, so it moves with its bucket and
 * survives restarts. Event-time timers fire in timestamp order when the watermark reaches them;
 * processing-time timers when the wall clock does.
 */
public interface TimerService {
  /** The task's current watermark ({@link Long#MIN_VALUE} before the first one). */
  long currentWatermark();

  /** The wall clock, in milliseconds. */
  long currentProcessingTime();

  void registerEventTimeTimer(long timestamp);

  void deleteEventTimeTimer(long timestamp);

  void registerProcessingTimeTimer(long timestamp);

  void deleteProcessingTimeTimer(long timestamp);
}
