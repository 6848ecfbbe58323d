package io.koala.operator;

import io.koala.state.TimerService;

/**
 * Timers of the current key with a namespace (a window, a join side), for operators of the SPI. The
 * namespace comes back in {@link Operator#onTimer}.
 */
public interface InternalTimers extends TimerService {
  void registerEventTimeTimer(long timestamp, byte[] namespace);

  void deleteEventTimeTimer(long timestamp, byte[] namespace);

  void registerProcessingTimeTimer(long timestamp, byte[] namespace);

  void deleteProcessingTimeTimer(long timestamp, byte[] namespace);
}
