package io.koala.protocol;

/**
 * Batching and flow-control settings of a task's channels, how it tracks its hot keys, and how its
 * load counters decay.
 *
 * @param maxBatchRecords records per batch at most
 * @param maxBatchBytes estimated bytes per batch at most
 * @param lingerMillis how long a partial batch may wait before it is sent
 * @param credits credit window of every channel, in items
 * @param watermarkIntervalMillis how often a source emits its watermark
 * @param maxWaitingBytes estimated bytes of the records a task keeps waiting (parked for their
 *     key's state, held for a peer marker) at which it takes no more records from its direct
 *     upstream channels (DESIGN §4.2, D5)
 * @param hotWindowMillis how long a keyed task's generation of recently touched keys collects keys
 *     ({@code koala.reconfiguration.hot-set.window}); 0: no hot set is tracked
 * @param hotKeys the most recently touched keys a keyed task tracks ({@code
 *     koala.reconfiguration.hot-set.max-keys})
 * @param loadHalfLifeMillis the half-life of a task's decayed busy fraction and record rates, in
 *     total and per bucket ({@code koala.metrics.load-half-life}); positive
 */
public record ChannelSettings(
    int maxBatchRecords,
    int maxBatchBytes,
    long lingerMillis,
    int credits,
    long watermarkIntervalMillis,
    long maxWaitingBytes,
    long hotWindowMillis,
    int hotKeys,
    long loadHalfLifeMillis)
    implements KoalaMessage {

  /** {@code koala.reconfiguration.hot-set.window}'s default: off. */
  public static final long DEFAULT_HOT_WINDOW_MILLIS = 0;

  /** {@code koala.reconfiguration.hot-set.max-keys}' default. */
  public static final int DEFAULT_HOT_KEYS = 262_144;

  /** {@code koala.metrics.load-half-life}'s default: 10 s. */
  public static final long DEFAULT_LOAD_HALF_LIFE_MILLIS = 10_000;

  /**
   * Largest message Koala sends between tasks (Artery's frame, which the runtime sets to this). A
   * batch is bounded to a quarter of it by configuration, and a single record to half of it.
   */
  public static final int FRAME_BYTES = 1 << 20;

  /** Largest estimated size of one record. */
  public static final int MAX_RECORD_BYTES = FRAME_BYTES / 2;

  /** Largest configurable batch size in bytes. */
  public static final int MAX_BATCH_BYTES = FRAME_BYTES / 4;

  /** The default of {@link #maxWaitingBytes}, as {@code koala.channel.max-waiting-bytes}. */
  public static final long DEFAULT_MAX_WAITING_BYTES = 4L << 20;

  public ChannelSettings {
    if (maxBatchRecords < 1
        || maxBatchBytes < 1
        || lingerMillis < 0
        || credits < 1
        || watermarkIntervalMillis < 1
        || maxWaitingBytes < 1
        || hotWindowMillis < 0
        || hotKeys < 0
        || loadHalfLifeMillis < 1) {
      throw new IllegalArgumentException(
          "invalid channel settings: "
              + maxBatchRecords
              + " records, "
              + maxBatchBytes
              + " bytes, linger "
              + lingerMillis
              + " ms, "
              + credits
              + " credits, watermarks every "
              + watermarkIntervalMillis
              + " ms, "
              + maxWaitingBytes
              + " bytes waiting, hot set of "
              + hotKeys
              + " keys over "
              + hotWindowMillis
              + " ms, load half-life "
              + loadHalfLifeMillis
              + " ms");
    }
  }

  /** Settings with the default load half-life. */
  public ChannelSettings(
      int maxBatchRecords,
      int maxBatchBytes,
      long lingerMillis,
      int credits,
      long watermarkIntervalMillis,
      long maxWaitingBytes,
      long hotWindowMillis,
      int hotKeys) {
    this(
        maxBatchRecords,
        maxBatchBytes,
        lingerMillis,
        credits,
        watermarkIntervalMillis,
        maxWaitingBytes,
        hotWindowMillis,
        hotKeys,
        DEFAULT_LOAD_HALF_LIFE_MILLIS);
  }

  /** Settings with the default hot set and load half-life. */
  public ChannelSettings(
      int maxBatchRecords,
      int maxBatchBytes,
      long lingerMillis,
      int credits,
      long watermarkIntervalMillis,
      long maxWaitingBytes) {
    this(
        maxBatchRecords,
        maxBatchBytes,
        lingerMillis,
        credits,
        watermarkIntervalMillis,
        maxWaitingBytes,
        DEFAULT_HOT_WINDOW_MILLIS,
        DEFAULT_HOT_KEYS);
  }

  /**
   * Settings with the default budget of waiting records, the default hot set and the default load
   * half-life.
   */
  public ChannelSettings(
      int maxBatchRecords,
      int maxBatchBytes,
      long lingerMillis,
      int credits,
      long watermarkIntervalMillis) {
    this(
        maxBatchRecords,
        maxBatchBytes,
        lingerMillis,
        credits,
        watermarkIntervalMillis,
        DEFAULT_MAX_WAITING_BYTES);
  }

  /**
   * Settings with watermarks every 200 ms, the default budget of waiting records, the default hot
   * set and the default load half-life.
   */
  public ChannelSettings(int maxBatchRecords, int maxBatchBytes, long lingerMillis, int credits) {
    this(maxBatchRecords, maxBatchBytes, lingerMillis, credits, 200);
  }
}
