package io.koala.runtime.internal;

import io.koala.checkpoint.CheckpointException;
import io.koala.checkpoint.CheckpointStorage;
import io.koala.coordinator.Checkpoints;
import io.koala.coordinator.CoordinatorState;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.TaskId;
import io.koala.protocol.DrainSettings;
import io.koala.serialization.KryoSerde;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The coordinator's checkpoint files (DESIGN §8): a completed checkpoint's metadata written next to
 * its snapshot files (so that its directory alone restores the job), read back from a directory,
 * and the files of checkpoints no longer retained deleted — only those in the job's own directory,
 * never those of a checkpoint restored from elsewhere.
 */
final class CheckpointFiles {
  static final String METADATA_FILE = "_metadata";

  private final String jobId;
  private final CheckpointStorage storage;
  private final KryoSerde serde;
  private final ExecutionPlan plan;
  private final DrainSettings drain;
  private final Logger log;

  CheckpointFiles(
      String jobId,
      CheckpointStorage storage,
      KryoSerde serde,
      ExecutionPlan plan,
      DrainSettings drain,
      Logger log) {
    this.jobId = jobId;
    this.storage = storage;
    this.serde = serde;
    this.plan = plan;
    this.drain = drain;
    this.log = log;
  }

  /** The metadata of a journaled checkpoint, decoded. */
  Checkpoints.Completed<Path, CoordinatorState> decode(byte[] metadata) {
    return CheckpointMetadata.decode(serde, metadata).completed(plan, drain);
  }

  /** {@code c}'s metadata, encoded for the journal. */
  byte[] encode(Checkpoints.Completed<Path, CoordinatorState> c) {
    return CheckpointMetadata.of(c).encode(serde);
  }

  /**
   * The checkpoint {@code dir} holds ({@link #METADATA_FILE}); a snapshot file the metadata names
   * that is not where it says is looked for in {@code dir}.
   */
  Checkpoints.Completed<Path, CoordinatorState> read(Path dir) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(dir.resolve(METADATA_FILE));
    } catch (IOException e) {
      throw new CheckpointException("cannot read " + dir.resolve(METADATA_FILE) + ": " + e, e);
    }
    Checkpoints.Completed<Path, CoordinatorState> c = decode(bytes);
    Map<TaskId, Path> files = new LinkedHashMap<>();
    c.snapshots()
        .forEach(
            (t, p) -> files.put(t, Files.exists(p) ? p : dir.resolve(p.getFileName().toString())));
    return new Checkpoints.Completed<>(c.id(), c.triggeredMillis(), files, c.holders(), c.state());
  }

  /** Writes {@code c}'s metadata next to its snapshot files, atomically. */
  void writeMetadata(Checkpoints.Completed<Path, CoordinatorState> c) {
    Path dir = storage.checkpointDirectory(jobId, c.id());
    Path tmp = dir.resolve(METADATA_FILE + ".tmp");
    try {
      Files.createDirectories(dir);
      Files.write(tmp, encode(c));
      Files.move(
          tmp,
          dir.resolve(METADATA_FILE),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      log.warn(
          "job {}: cannot write the metadata of checkpoint {}: {}", jobId, c.id(), e.toString());
    }
  }

  /**
   * Checkpoint {@code id} is no longer retained: deletes {@code snapshots} that are in the job's
   * own directory, its metadata, and its directory once empty.
   */
  void discard(long id, List<Path> snapshots) {
    Path own = storage.jobDirectory(jobId).toAbsolutePath();
    for (Path file : snapshots) {
      if (file.toAbsolutePath().startsWith(own)) {
        delete(file); // never the files of a checkpoint restored from elsewhere
      }
    }
    delete(storage.checkpointDirectory(jobId, id).resolve(METADATA_FILE));
    Path dir = storage.checkpointDirectory(jobId, id);
    try (var entries = Files.list(dir)) {
      if (entries.findAny().isEmpty()) {
        Files.deleteIfExists(dir);
      }
    } catch (IOException e) {
      // absent already, or not empty: a snapshot a newer checkpoint shares stays
    }
  }

  /** Deletes one snapshot file. */
  void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      log.warn("job {}: cannot delete snapshot {}: {}", jobId, file, e.toString());
    }
  }

  /** The job finished: deletes every checkpoint file of the job. */
  void deleteJob() {
    try {
      Worker.deleteRecursively(storage.jobDirectory(jobId));
    } catch (RuntimeException e) {
      log.warn("job {}: cannot delete its checkpoints: {}", jobId, e.toString());
    }
  }

  /**
   * Checks that job {@code jobId} can be restored from {@code restoreFrom}: checkpoints are on, and
   * the checkpoint is one of that job's ({@code <job>/chk-<id>}).
   *
   * @throws io.koala.runtime.ConfigurationException saying why not
   */
  static void checkRestore(String jobId, Path restoreFrom, boolean checkpointing) {
    if (!checkpointing) {
      throw new io.koala.runtime.ConfigurationException(
          "restoring job "
              + jobId
              + " from "
              + restoreFrom
              + " needs checkpoints: koala.checkpoint.interval is off");
    }
    Path job = restoreFrom.getParent();
    if (job == null || !job.getFileName().toString().equals(jobId)) {
      throw new io.koala.runtime.ConfigurationException(
          "cannot restore job "
              + jobId
              + " from "
              + restoreFrom
              + ": a checkpoint restores only the job it was taken of (<job>/chk-<id>,"
              + " here "
              + (job == null ? "none" : job.getFileName())
              + ")");
    }
  }
}
