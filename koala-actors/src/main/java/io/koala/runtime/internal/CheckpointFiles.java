package io.koala.runtime.internal;

import io.koala.checkpoint.CheckpointException;
import io.koala.checkpoint.CheckpointStorage;
import io.koala.coordinator.Checkpoints;
import io.koala.coordinator.CoordinatorState;
import io.koala.coordinator.JobCore;
import io.koala.coordinator.JobSetup;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.TaskId;
import io.koala.runtime.ConfigurationException;
import io.koala.serialization.KryoSerde;
import io.koala.upgrade.PlanSignature;
import io.koala.upgrade.UpgradeCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  private final JobSetup job;
  private final PlanSignature signature;
  private final Logger log;

  CheckpointFiles(
      String jobId, CheckpointStorage storage, KryoSerde serde, JobSetup job, Logger log) {
    this.jobId = jobId;
    this.storage = storage;
    this.serde = serde;
    this.job = job;
    this.signature = PlanSignature.of(job.plan());
    this.log = log;
  }

  /** The metadata of a journaled checkpoint, decoded. */
  Checkpoints.Completed<Path, CoordinatorState> decode(byte[] metadata) {
    return CheckpointMetadata.decode(serde, metadata)
        .completed(job.plan(), job.reconfiguration().drain());
  }

  /** {@code c}'s metadata, encoded for the journal. */
  byte[] encode(Checkpoints.Completed<Path, CoordinatorState> c) {
    return CheckpointMetadata.of(c, signature).encode(serde);
  }

  /**
   * The checkpoint {@code dir} holds ({@link #METADATA_FILE}); a snapshot file the metadata names
   * that is not where it says is looked for in {@code dir}. A checkpoint of another dataflow (its
   * signature differs) is carried over into this one's first deployment ({@link
   * StateRedistribution}); the caller checked that it can be.
   */
  Checkpoints.Completed<Path, CoordinatorState> read(Path dir) {
    CheckpointMetadata m = readMetadata(dir, serde);
    Map<TaskId, Path> files = new LinkedHashMap<>();
    m.snapshots()
        .forEach(
            (t, name) -> {
              Path p = Path.of(name);
              files.put(t, Files.exists(p) ? p : dir.resolve(p.getFileName().toString()));
            });
    if (m.signature().equals(signature)) {
      return m.forJob(jobId).completed(job.plan(), job.reconfiguration().drain(), files);
    }
    log.warn(
        "job {}: checkpoint {} in {} is of another version of the dataflow: carrying its state"
            + " over into this one's tasks",
        jobId,
        m.id(),
        dir);
    return StateRedistribution.carryOver(
        m,
        files,
        job.plan(),
        JobCore.initialDeployment(job),
        job.reconfiguration().drain(),
        storage,
        jobId);
  }

  /** The metadata of the checkpoint in {@code dir}. */
  static CheckpointMetadata readMetadata(Path dir, KryoSerde serde) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(dir.resolve(METADATA_FILE));
    } catch (IOException e) {
      throw new CheckpointException("cannot read " + dir.resolve(METADATA_FILE) + ": " + e, e);
    }
    return CheckpointMetadata.decode(serde, bytes);
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

  /**
   * Checkpoint {@code id} is corrupt: moves {@code snapshots} that are in the job's own directory,
   * and its metadata, into its quarantine directory ({@link
   * CheckpointStorage#quarantineDirectory}), naming each in the log. Deletes nothing: a file that
   * cannot be moved stays where it is.
   */
  void quarantine(long id, List<Path> snapshots) {
    Path own = storage.jobDirectory(jobId).toAbsolutePath();
    Path to = storage.quarantineDirectory(jobId, id);
    List<Path> files = new ArrayList<>();
    for (Path file : snapshots) {
      if (file.toAbsolutePath().startsWith(own)) {
        files.add(file); // never the files of a checkpoint restored from elsewhere
      }
    }
    files.add(storage.checkpointDirectory(jobId, id).resolve(METADATA_FILE));
    for (Path file : files) {
      if (!Files.exists(file)) {
        continue;
      }
      Path target = to.resolve(file.getFileName().toString());
      try {
        Files.createDirectories(to);
        Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
        log.error("job {}: checkpoint {} is corrupt: {} moved to {}", jobId, id, file, target);
      } catch (IOException e) {
        log.error(
            "job {}: checkpoint {} is corrupt, and {} cannot be moved aside ({}): it stays",
            jobId,
            id,
            file,
            e.toString());
      }
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
   * Checks that job {@code jobId} of {@code plan} can be restored from the checkpoint in {@code
   * restoreFrom}: checkpoints are on, the checkpoint's metadata is readable, and, when it was taken
   * of another version of the dataflow, its state can be carried over ({@link UpgradeCheck}).
   *
   * @param droppable operators whose state may be left behind
   * @throws io.koala.runtime.ConfigurationException saying why not, listing every problem
   */
  static void checkRestore(
      String jobId,
      Path restoreFrom,
      boolean checkpointing,
      ExecutionPlan plan,
      Set<String> droppable,
      KryoSerde serde) {
    if (!checkpointing) {
      throw new ConfigurationException(
          "restoring job "
              + jobId
              + " from "
              + restoreFrom
              + " needs checkpoints: koala.checkpoint.interval is off");
    }
    CheckpointMetadata m;
    try {
      m = readMetadata(restoreFrom, serde);
    } catch (RuntimeException e) {
      throw new ConfigurationException(
          "cannot restore job " + jobId + " from " + restoreFrom + ": " + e.getMessage(), e);
    }
    PlanSignature now = PlanSignature.of(plan);
    if (m.signature().equals(now) && droppable.isEmpty()) {
      return;
    }
    List<String> problems = UpgradeCheck.problems(m.signature(), now, droppable);
    if (!problems.isEmpty()) {
      throw new ConfigurationException(
          "cannot restore job "
              + jobId
              + " (dataflow '"
              + now.dataflow()
              + "') from checkpoint "
              + m.id()
              + " in "
              + restoreFrom
              + " (dataflow '"
              + m.signature().dataflow()
              + "'):\n  - "
              + String.join("\n  - ", problems));
    }
  }
}
