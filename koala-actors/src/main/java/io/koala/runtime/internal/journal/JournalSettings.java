package io.koala.runtime.internal.journal;

import java.time.Duration;

/**
 * How a {@link JobJournal} persists (from {@code koala.journal}, see {@link JournalConfig}).
 *
 * @param journalPluginId the Pekko Persistence journal plugin (a config path)
 * @param snapshotPluginId the snapshot store plugin (a config path)
 * @param snapshotEvery a snapshot is taken after every this many events; older events and all but
 *     the {@code keepSnapshots} newest snapshots are then deleted, so replay stays short
 * @param keepSnapshots how many snapshots are kept
 * @param minBackoff first restart delay after a failed write
 * @param maxBackoff longest restart delay
 * @param maxRestarts restarts after failed writes before the journal stops for good (the count is
 *     reset after {@code maxBackoff} without failure)
 */
public record JournalSettings(
    String journalPluginId,
    String snapshotPluginId,
    int snapshotEvery,
    int keepSnapshots,
    Duration minBackoff,
    Duration maxBackoff,
    int maxRestarts) {
  public JournalSettings {
    if (journalPluginId == null || journalPluginId.isBlank()) {
      throw new IllegalArgumentException("journalPluginId must be set");
    }
    if (snapshotPluginId == null || snapshotPluginId.isBlank()) {
      throw new IllegalArgumentException("snapshotPluginId must be set");
    }
    if (snapshotEvery < 1 || keepSnapshots < 1 || maxRestarts < 0) {
      throw new IllegalArgumentException(
          "snapshotEvery, keepSnapshots must be >= 1 and maxRestarts >= 0: "
              + snapshotEvery
              + ", "
              + keepSnapshots
              + ", "
              + maxRestarts);
    }
    if (minBackoff.isNegative() || minBackoff.isZero() || maxBackoff.compareTo(minBackoff) < 0) {
      throw new IllegalArgumentException(
          "backoff must satisfy 0 < min <= max: " + minBackoff + ", " + maxBackoff);
    }
  }
}
