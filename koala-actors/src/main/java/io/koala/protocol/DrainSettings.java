package io.koala.protocol;

/**
 * How hard owners drain retiring holders.
 *
 * @param piggybackKeys keys asked for with each fetch to a retiring holder (the paper's N: 25
 *     "progressive-default", 50 "progressive-large"); 0 for fetch on demand only, the holder then
 *     draining only while the owner is idle
 * @param idleChunkKeys keys asked for by the timer when the task processed nothing since the last
 *     tick (a busy task asks for {@code piggybackKeys})
 * @param intervalMillis how often the timer checks for drain work
 */
public record DrainSettings(int piggybackKeys, int idleChunkKeys, long intervalMillis)
    implements KoalaMessage {
  public DrainSettings {
    if (piggybackKeys < 0 || idleChunkKeys < 1 || intervalMillis < 1) {
      throw new IllegalArgumentException(
          "invalid drain settings: "
              + piggybackKeys
              + " piggybacked keys, "
              + idleChunkKeys
              + " keys per idle chunk, every "
              + intervalMillis
              + " ms");
    }
  }
}
