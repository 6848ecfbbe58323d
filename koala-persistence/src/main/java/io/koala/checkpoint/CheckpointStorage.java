package io.koala.checkpoint;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where checkpoint files live: {@code <root>/<jobId>/chk-<checkpointId>/<task>.snap}. In a
 * multi-node deployment the root must be shared and durable storage, not a node's own disk (DESIGN
 * §8, hazard C3). This class only names, lists and deletes files; {@link SnapshotFile} writes and
 * reads them, and what a checkpoint contains and when it may be deleted is the coordinator's
 * journal's business.
 *
 * <p>Job ids and task names become path segments, so they are checked, not escaped: 1 to {@value
 * #MAX_NAME_LENGTH} characters out of letters, digits and {@code . _ - # @ + =}, starting with a
 * letter or digit ({@code "."}, {@code ".."} and hidden names are impossible) and without {@code
 * ".."}. Task names such as {@code "counts#3"} pass as they are.
 *
 * <pre>{@code
 * CheckpointStorage storage = new CheckpointStorage(Path.of("/shared/checkpoints"));
 * Path target = storage.snapshotPath("wordcount", 42, "counts#3");
 * SnapshotFile.write(txn, "counts#3", 42, metadata, target);
 * List<Long> onDisk = storage.checkpointIds("wordcount"); // [..., 42]
 * }</pre>
 *
 * <p>Threading: immutable; methods may be called from any thread, and each is as atomic as the file
 * system's operation it performs ({@link #deleteCheckpoint} is not atomic).
 */
public final class CheckpointStorage {

  /** Longest job id or task name, in characters. */
  public static final int MAX_NAME_LENGTH = 128;

  /** Suffix of a complete snapshot file. */
  public static final String SNAPSHOT_SUFFIX = ".snap";

  private static final String CHECKPOINT_PREFIX = "chk-";
  private static final String QUARANTINE = "_quarantine";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._\\-#@+=]*");
  private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._\\-#@+=]");
  private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(0|[1-9][0-9]{0,18})");

  private final Path root;

  /**
   * @param root the storage's root directory; created when the first snapshot is written
   */
  public CheckpointStorage(Path root) {
    this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
  }

  /** The root directory. */
  public Path root() {
    return root;
  }

  /** {@code <root>/<jobId>}. */
  public Path jobDirectory(String jobId) {
    return root.resolve(checkName("job id", jobId));
  }

  /**
   * {@code <root>/_quarantine/<jobId>/chk-<checkpointId>}: where the files of a checkpoint found
   * corrupt are moved, out of the job's directory (a job id cannot start with {@code _}), so that
   * nothing that deletes a job's checkpoints deletes them.
   */
  public Path quarantineDirectory(String jobId, long checkpointId) {
    return root.resolve(QUARANTINE)
        .resolve(checkName("job id", jobId))
        .resolve(CHECKPOINT_PREFIX + checkId(checkpointId));
  }

  /** {@code <root>/<jobId>/chk-<checkpointId>}. */
  public Path checkpointDirectory(String jobId, long checkpointId) {
    return jobDirectory(jobId).resolve(CHECKPOINT_PREFIX + checkId(checkpointId));
  }

  /** {@code <root>/<jobId>/chk-<checkpointId>/<task>.snap}, the target of a task's snapshot. */
  public Path snapshotPath(String jobId, long checkpointId, String task) {
    return checkpointDirectory(jobId, checkpointId)
        .resolve(checkName("task name", task) + SNAPSHOT_SUFFIX);
  }

  /**
   * The ids of the checkpoint directories of {@code jobId}, ascending; empty when the job has none.
   * Directories that are not named {@code chk-<id>} are ignored. A directory says nothing about
   * whether its checkpoint completed: the journal does.
   */
  public List<Long> checkpointIds(String jobId) {
    Path dir = jobDirectory(jobId);
    List<Long> ids = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        Matcher m = CHECKPOINT_DIR.matcher(entry.getFileName().toString());
        if (m.matches() && Files.isDirectory(entry)) {
          try {
            ids.add(Long.parseLong(m.group(1)));
          } catch (NumberFormatException e) {
            // 19 digits beyond Long.MAX_VALUE: not a directory this class made
          }
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new CheckpointException("cannot list the checkpoints in " + dir + ": " + e, e);
    }
    ids.sort(Comparator.naturalOrder());
    return List.copyOf(ids);
  }

  /**
   * The tasks with a complete snapshot file in a checkpoint directory, sorted; a snapshot still
   * being written ({@code .snap.tmp}) is not one of them.
   */
  public List<String> tasks(String jobId, long checkpointId) {
    Path dir = checkpointDirectory(jobId, checkpointId);
    List<String> tasks = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*" + SNAPSHOT_SUFFIX)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        tasks.add(name.substring(0, name.length() - SNAPSHOT_SUFFIX.length()));
      }
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new CheckpointException("cannot list the snapshots in " + dir + ": " + e, e);
    }
    tasks.sort(Comparator.naturalOrder());
    return List.copyOf(tasks);
  }

  /**
   * Deletes a task's snapshot file and any temporary file of an unfinished write of it.
   *
   * @return whether the snapshot file existed
   */
  public boolean deleteSnapshot(String jobId, long checkpointId, String task) {
    Path file = snapshotPath(jobId, checkpointId, task);
    try {
      Files.deleteIfExists(SnapshotFile.tmpPath(file));
      return Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new CheckpointException("cannot delete snapshot file " + file + ": " + e, e);
    }
  }

  /**
   * Deletes a checkpoint directory and everything in it. Not atomic: after a failure part of the
   * files may be gone, so remove the checkpoint from the journal first.
   *
   * @return whether the directory existed
   */
  public boolean deleteCheckpoint(String jobId, long checkpointId) {
    Path dir = checkpointDirectory(jobId, checkpointId);
    if (!Files.exists(dir)) {
      return false;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
      return true;
    } catch (IOException e) {
      throw new CheckpointException("cannot delete checkpoint directory " + dir + ": " + e, e);
    }
  }

  /**
   * Returns {@code name} when it is a legal job id or task name (see the class comment).
   *
   * @param kind what the name is, for the message ({@code "job id"}, {@code "task name"})
   * @throws IllegalArgumentException naming the name and what is wrong with it
   */
  public static String checkName(String kind, String name) {
    Objects.requireNonNull(name, kind);
    String problem = null;
    if (name.isEmpty()) {
      problem = "it is empty";
    } else if (name.length() > MAX_NAME_LENGTH) {
      problem = "it has " + name.length() + " characters, more than " + MAX_NAME_LENGTH;
    } else if (name.contains("..")) {
      problem = "it contains \"..\"";
    } else if (!NAME.matcher(name).matches()) {
      int bad = firstDisallowed(name);
      problem =
          bad >= 0
              ? "it contains '" + printable(name.charAt(bad)) + "' at index " + bad
              : "it starts with '" + name.charAt(0) + "'";
    }
    if (problem != null) {
      throw new IllegalArgumentException(
          "invalid "
              + kind
              + " \""
              + name
              + "\": "
              + problem
              + "; it becomes a path segment, so it must have 1 to "
              + MAX_NAME_LENGTH
              + " characters out of letters, digits and . _ - # @ + =, start with a letter or digit,"
              + " and not contain \"..\"");
    }
    return name;
  }

  private static int firstDisallowed(String name) {
    for (int i = 0; i < name.length(); i++) {
      if (!ALLOWED.matcher(String.valueOf(name.charAt(i))).matches()) {
        return i;
      }
    }
    return -1;
  }

  private static String printable(char c) {
    return Character.isISOControl(c) || Character.isWhitespace(c)
        ? String.format("\\u%04x", (int) c)
        : String.valueOf(c);
  }

  private static long checkId(long checkpointId) {
    if (checkpointId < 0) {
      throw new IllegalArgumentException("checkpoint id must not be negative, got " + checkpointId);
    }
    return checkpointId;
  }
}
