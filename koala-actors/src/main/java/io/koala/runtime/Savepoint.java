package io.koala.runtime;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * A savepoint written by {@link JobHandle#savepoint} or {@link JobHandle#stopWithSavepoint}: a
 * directory holding one committed checkpoint of the job — its metadata and every snapshot file it
 * needs — that restores the job on its own ({@link SubmitOptions#restoreFrom}), also after being
 * copied or moved elsewhere. The job never deletes it.
 *
 * @param directory the savepoint's directory (absolute)
 * @param checkpointId the id of the checkpoint it holds
 * @param time when that checkpoint was triggered: the savepoint holds the job's state as of its
 *     barrier, which the sources emitted at about that time
 */
public record Savepoint(Path directory, long checkpointId, Instant time) {
  /** Checks that nothing is missing. */
  public Savepoint {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(time, "time");
  }
}
