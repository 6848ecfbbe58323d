package io.koala.runtime.internal;

import io.koala.coordinator.Checkpoints;
import io.koala.coordinator.CoordinatorState;
import io.koala.plan.TaskId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A job's savepoints: a committed checkpoint placed in a directory of its own — its {@value
 * CheckpointFiles#METADATA_FILE} and every snapshot file it names, holders' included (they may live
 * in older checkpoints' directories) — so that the directory alone restores the job, wherever it is
 * copied or moved. Snapshot files are hard-linked when the directory is on their file store, else
 * copied; everything goes into a temporary sibling directory first, renamed at the end, so a
 * half-written savepoint never has the directory's name. The job never deletes a savepoint: its own
 * deletions touch only its checkpoint directory, which is why no savepoint may be inside it.
 */
final class SavepointFiles {
  private final CheckpointFiles files;
  private final Path jobDirectory; // the job's own checkpoint directory, whose files it deletes

  SavepointFiles(CheckpointFiles files, Path jobDirectory) {
    this.files = files;
    this.jobDirectory = jobDirectory.toAbsolutePath().normalize();
  }

  /** Why no savepoint can be written to {@code dir}, or null. */
  String problem(Path dir) {
    Path target = dir.toAbsolutePath().normalize();
    if (target.startsWith(jobDirectory)) {
      return "savepoint directory "
          + target
          + " is inside the job's checkpoint directory "
          + jobDirectory
          + " (koala.checkpoint.directory), whose files the job deletes: choose one outside it";
    }
    if (Files.exists(target)) {
      if (!Files.isDirectory(target)) {
        return "savepoint directory " + target + " exists and is not a directory";
      }
      try (Stream<Path> entries = Files.list(target)) {
        if (entries.findAny().isPresent()) {
          return "savepoint directory " + target + " exists and is not empty";
        }
      } catch (IOException e) {
        return "cannot read savepoint directory " + target + ": " + e;
      }
    }
    return null;
  }

  /**
   * What {@link #write} needs, taken on the coordinator's thread: the files to place, and the
   * metadata naming them in the savepoint's directory (a copy elsewhere finds them by name).
   */
  record Plan(Path target, Map<Path, String> snapshots, byte[] metadata) {}

  /** Plans the savepoint of {@code c} in {@code dir}. */
  Plan plan(Checkpoints.Completed<Path, CoordinatorState> c, Path dir) {
    Path target = dir.toAbsolutePath().normalize();
    Map<Path, String> snapshots = new LinkedHashMap<>();
    Map<TaskId, Path> placed = new LinkedHashMap<>();
    c.snapshots()
        .forEach(
            (task, file) -> {
              String name = file.getFileName().toString();
              if (snapshots.containsValue(name) && !snapshots.containsKey(file)) {
                throw new IllegalStateException(
                    "checkpoint " + c.id() + " names two snapshot files " + name);
              }
              snapshots.put(file, name);
              placed.put(task, target.resolve(name));
            });
    byte[] metadata =
        files.encode(
            new Checkpoints.Completed<>(
                c.id(), c.triggeredMillis(), placed, c.holders(), c.state()));
    return new Plan(target, snapshots, metadata);
  }

  /**
   * Writes {@code plan}'s savepoint; blocking (file copies may take long), run off the coordinator.
   *
   * @throws UncheckedIOException or {@link IllegalStateException} saying why not; nothing is left
   *     at the savepoint's directory then
   */
  void write(Plan plan) {
    Path target = plan.target();
    String problem = problem(target);
    if (problem != null) {
      throw new IllegalStateException(problem);
    }
    Path tmp;
    try {
      Files.createDirectories(target.getParent());
      tmp = Files.createTempDirectory(target.getParent(), target.getFileName() + ".tmp-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory next to " + target + ": " + e, e);
    }
    try {
      for (Map.Entry<Path, String> s : plan.snapshots().entrySet()) {
        linkOrCopy(s.getKey(), tmp.resolve(s.getValue()));
      }
      Files.write(tmp.resolve(CheckpointFiles.METADATA_FILE), plan.metadata());
      if (Files.isDirectory(target)) {
        Files.delete(target); // empty (checked): the rename takes its place
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      deleteQuietly(tmp);
      throw new UncheckedIOException("cannot write savepoint " + target + ": " + e, e);
    } catch (RuntimeException e) {
      deleteQuietly(tmp);
      throw e;
    }
  }

  /** A hard link to {@code file} at {@code to}; a copy when that is not possible. */
  private static void linkOrCopy(Path file, Path to) throws IOException {
    try {
      Files.createLink(to, file);
    } catch (IOException | UnsupportedOperationException e) {
      Files.copy(file, to); // another file store, or no links there
    }
  }

  private static void deleteQuietly(Path dir) {
    try {
      Worker.deleteRecursively(dir);
    } catch (RuntimeException e) {
      // a leftover temporary directory, named as such
    }
  }
}
