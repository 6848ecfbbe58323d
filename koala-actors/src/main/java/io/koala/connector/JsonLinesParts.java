package io.koala.connector;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.TreeSet;

/**
 * The exactly-once writer of {@link SinkSpec#jsonLines} in a job that takes checkpoints: a
 * two-phase commit through file names, in one directory, per sink task.
 *
 * <pre>
 *   write ...  --> &lt;name&gt;-&lt;task&gt;.jsonl.inprogress
 *   prepareCommit(c): fsync, close, rename --> &lt;name&gt;-&lt;task&gt;-&lt;c&gt;.jsonl.pending
 *   commit(c): rename every pending part c' &lt;= c --> &lt;name&gt;-&lt;task&gt;-&lt;c'&gt;.jsonl (visible)
 *   finish: prepareCommit + commit of a last part, numbered after the last checkpoint
 * </pre>
 *
 * <p>Renames are atomic and the directory is synced after them, so a part is visible whole or not
 * at all. At open the writer reconciles the directory with the checkpoint it resumes from ({@code
 * r}, 0 when none): the in-progress file and pending parts after {@code r} are deleted (their
 * records will be written again), pending parts up to {@code r} are committed (the checkpoint is
 * durable; the crash came before the task heard), and visible parts after {@code r} are deleted:
 * only {@link #finish} publishes without a checkpoint, so such a part comes from a task that
 * finished after {@code r} and is replayed now.
 *
 * <p>An empty part is never created. Not thread-safe: one task thread drives it.
 */
final class JsonLinesParts<T> implements SinkWriter<T> {
  static final String VISIBLE = ".jsonl";
  static final String PENDING = ".jsonl.pending";
  static final String IN_PROGRESS = ".jsonl.inprogress";

  private final Path directory;
  private final String prefix; // <name>-<task>-
  private final Path inProgress;
  private final TreeSet<Long> pending = new TreeSet<>();
  private final String name;
  private final JsonEncoder<? super T> encoder;
  private FileChannel channel;
  private BufferedWriter out;
  private long lastCheckpoint; // the newest checkpoint prepared or restored

  private JsonLinesParts(Path directory, String name, int task, JsonEncoder<? super T> encoder) {
    this.directory = directory;
    this.name = name;
    this.encoder = encoder;
    this.prefix = name + "-" + task + "-";
    this.inProgress = directory.resolve(name + "-" + task + IN_PROGRESS);
  }

  /**
   * Opens the writer of sink {@code name}'s task {@code task} in {@code directory}, resuming from
   * checkpoint {@code restoredCheckpoint} (0: none), writing each record as {@code encoder} encodes
   * it.
   */
  static <T> JsonLinesParts<T> open(
      Path directory,
      String name,
      int task,
      long restoredCheckpoint,
      JsonEncoder<? super T> encoder)
      throws IOException {
    Files.createDirectories(directory);
    JsonLinesParts<T> w = new JsonLinesParts<>(directory, name, task, encoder);
    w.restore(restoredCheckpoint);
    return w;
  }

  /** The visible name of the part of checkpoint {@code checkpointId}. */
  Path visible(long checkpointId) {
    return directory.resolve(prefix + checkpointId + VISIBLE);
  }

  /** The pending name of the part of checkpoint {@code checkpointId}. */
  Path pending(long checkpointId) {
    return directory.resolve(prefix + checkpointId + PENDING);
  }

  private void restore(long restored) throws IOException {
    Files.deleteIfExists(inProgress);
    boolean changed = false;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
      for (Path f : files) {
        String n = f.getFileName().toString();
        long id;
        if ((id = checkpointOf(n, PENDING)) >= 0) {
          if (id <= restored) {
            pending.add(id);
          } else {
            Files.delete(f);
            changed = true;
          }
        } else if ((id = checkpointOf(n, VISIBLE)) > restored) {
          Files.delete(f);
          changed = true;
        }
      }
    }
    lastCheckpoint = restored;
    if (changed) {
      syncDirectory();
    }
    commit(restored);
  }

  /** The checkpoint in file name {@code n} of this task's parts with {@code suffix}, or -1. */
  private long checkpointOf(String n, String suffix) {
    if (!n.startsWith(prefix) || !n.endsWith(suffix)) {
      return -1;
    }
    String digits = n.substring(prefix.length(), n.length() - suffix.length());
    if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(Character::isDigit)) {
      return -1; // another sink's file whose name starts alike
    }
    return Long.parseLong(digits);
  }

  @Override
  public void write(T value, long timestamp) throws Exception {
    String line = Sinks.jsonLine(name, encoder, value); // before the file: a bad record opens none
    if (out == null) {
      channel =
          FileChannel.open(
              inProgress,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE);
      out = new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8));
    }
    out.append(line).append('\n');
  }

  @Override
  public void flush() throws IOException {
    if (out != null) {
      out.flush();
    }
  }

  @Override
  public void prepareCommit(long checkpointId) throws IOException {
    if (checkpointId <= lastCheckpoint) {
      return; // a repeat
    }
    lastCheckpoint = checkpointId;
    if (out == null) {
      return; // nothing written since the last part
    }
    out.flush();
    channel.force(true);
    out.close();
    out = null;
    channel = null;
    Files.move(inProgress, pending(checkpointId), StandardCopyOption.ATOMIC_MOVE);
    syncDirectory();
    pending.add(checkpointId);
  }

  @Override
  public void commit(long checkpointId) throws IOException {
    Iterator<Long> due = pending.headSet(checkpointId, true).iterator();
    if (!due.hasNext()) {
      return;
    }
    while (due.hasNext()) {
      long id = due.next();
      Path from = pending(id);
      if (Files.exists(from)) { // else published already
        Files.move(from, visible(id), StandardCopyOption.ATOMIC_MOVE);
      }
      due.remove();
    }
    syncDirectory();
  }

  @Override
  public void finish() throws IOException {
    long last = lastCheckpoint + 1;
    prepareCommit(last);
    commit(last);
  }

  @Override
  public void close() throws IOException {
    if (out != null) {
      out.close(); // the in-progress file stays; a restored writer deletes it
      out = null;
      channel = null;
    }
  }

  /** Makes the renames in the directory durable. */
  private void syncDirectory() {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException("syncing directory " + directory, e);
    }
  }
}
