package io.koala.checkpoint;

import java.nio.file.Path;

/**
 * A snapshot file is not what {@link SnapshotFile} wrote: wrong magic bytes, an unsupported format
 * version, a truncated file, bytes after the trailer, a length or count that does not add up, or a
 * CRC32C mismatch. The message names the file and what was wrong. DESIGN §8: the caller falls back
 * to the previous checkpoint.
 */
public class CorruptCheckpointException extends CheckpointException {
  private static final long serialVersionUID = 1L;

  /** The file found corrupt. Not serialized: {@link Path} is not serializable. */
  private final transient Path file;

  public CorruptCheckpointException(Path file, String problem) {
    super("corrupt checkpoint file " + file + ": " + problem);
    this.file = file;
  }

  /** The corrupt file; {@code null} after the exception was deserialized. */
  public Path file() {
    return file;
  }
}
