package io.koala.core;

/**
 * Batching and flow-control settings of a task's channels.
 *
 * @param maxBatchRecords records per batch at most
 * @param maxBatchBytes estimated bytes per batch at most
 * @param lingerMillis how long a partial batch may wait before it is sent
 * @param credits credit window of every channel, in items
 */
public record ChannelSettings(
    int maxBatchRecords, int maxBatchBytes, long lingerMillis, int credits)
    implements KoalaMessage {
  public ChannelSettings {
    if (maxBatchRecords < 1 || maxBatchBytes < 1 || lingerMillis < 0 || credits < 1) {
      throw new IllegalArgumentException(
          "invalid channel settings "
              + maxBatchRecords
              + "/"
              + maxBatchBytes
              + "/"
              + lingerMillis
              + "/"
              + credits);
    }
  }
}
