package io.koala.checkpoint;

import java.util.Arrays;
import java.util.Objects;

/**
 * What a valid snapshot file holds besides its entries: returned by {@link SnapshotFile#restore}
 * and {@link SnapshotFile#verify}.
 *
 * @param handle the file, its length, CRC and per-table entry counts
 * @param task the task name the writer was given
 * @param checkpointId the checkpoint id the writer was given
 * @param metadata the task's opaque metadata blob; the record keeps and returns copies
 */
public record SnapshotInfo(SnapshotHandle handle, String task, long checkpointId, byte[] metadata) {
  public SnapshotInfo {
    Objects.requireNonNull(handle, "handle");
    Objects.requireNonNull(task, "task");
    metadata = Objects.requireNonNull(metadata, "metadata").clone();
  }

  /** A copy of the task's metadata blob. */
  @Override
  public byte[] metadata() {
    return metadata.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SnapshotInfo other
        && handle.equals(other.handle)
        && task.equals(other.task)
        && checkpointId == other.checkpointId
        && Arrays.equals(metadata, other.metadata);
  }

  @Override
  public int hashCode() {
    return Objects.hash(handle, task, checkpointId, Arrays.hashCode(metadata));
  }

  @Override
  public String toString() {
    return "SnapshotInfo["
        + handle
        + ", task "
        + task
        + ", checkpoint "
        + checkpointId
        + ", "
        + metadata.length
        + " bytes of metadata]";
  }
}
