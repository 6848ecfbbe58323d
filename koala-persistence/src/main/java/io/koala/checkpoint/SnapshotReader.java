package io.koala.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.koala.store.Table;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * One streaming pass over a snapshot file (format in {@link SnapshotFile}): parses it, checks every
 * length, count and the CRC32C, and hands each entry to a sink, or, when there is no sink, skips
 * the entries without copying them. Any inconsistency is a {@link CorruptCheckpointException}
 * naming the file and the byte where it was found.
 */
final class SnapshotReader {

  /** Receives the entries of a file in file order; it owns the arrays. */
  interface EntrySink {
    void entry(Table table, byte[] key, byte[] value);
  }

  private static final HexFormat HEX = HexFormat.of();

  private final Path file;
  private final ChecksummedInput in;
  private final EntrySink sink;

  /** What is being read, for the message of a truncated file; constant strings only. */
  private String reading = "the magic bytes";

  private Table table;
  private long entry;

  private SnapshotReader(Path file, ChecksummedInput in, EntrySink sink) {
    this.file = file;
    this.in = in;
    this.sink = sink;
  }

  /**
   * Reads and checks {@code file}, passing its entries to {@code sink} when it is not {@code null}.
   *
   * @throws CorruptCheckpointException when the file is not a valid snapshot
   * @throws CheckpointException when the file cannot be read
   */
  static SnapshotInfo read(Path file, EntrySink sink) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return new SnapshotReader(
              file, new ChecksummedInput(channel, SnapshotFile.BUFFER_BYTES), sink)
          .parse();
    } catch (NoSuchFileException e) {
      throw new CheckpointException("snapshot file " + file + " does not exist", e);
    } catch (IOException e) {
      throw new CheckpointException("cannot read snapshot file " + file + ": " + e, e);
    }
  }

  private SnapshotInfo parse() throws IOException {
    try {
      return parseContent();
    } catch (EOFException e) {
      throw corrupt(
          "truncated: the file ends at byte "
              + in.size()
              + " while reading "
              + reading
              + (table == null ? "" : " (table " + table + ", entry " + entry + ")"));
    }
  }

  private SnapshotInfo parseContent() throws IOException {
    byte[] magic = new byte[SnapshotFile.MAGIC.length];
    if (in.size() < magic.length) {
      throw corrupt(
          "truncated or not a snapshot: the file has "
              + in.size()
              + " bytes, fewer than the "
              + magic.length
              + " magic bytes");
    }
    in.readFully(magic);
    if (!Arrays.equals(magic, SnapshotFile.MAGIC)) {
      throw corrupt(
          "wrong magic bytes "
              + HEX.formatHex(magic)
              + ", expected "
              + HEX.formatHex(SnapshotFile.MAGIC)
              + " (\"KOALASNP\"): not a Koala snapshot file");
    }
    reading = "the format version";
    int version = in.readInt();
    if (version != SnapshotFile.FORMAT_VERSION) {
      throw corrupt(
          "unsupported format version "
              + version
              + ": this reader reads version "
              + SnapshotFile.FORMAT_VERSION);
    }
    reading = "the task name";
    String task = readString(SnapshotFile.MAX_NAME_BYTES, "task name");
    reading = "the checkpoint id";
    long checkpointId = in.readLong();
    reading = "the table count";
    int tables = in.readInt();
    if (tables < 0 || tables > Table.values().length) {
      throw corrupt(
          "table count "
              + tables
              + " at byte "
              + (in.position() - Integer.BYTES)
              + " is not between 0 and "
              + Table.values().length);
    }
    EnumMap<Table, Long> counts = new EnumMap<>(Table.class);
    for (int i = 0; i < tables; i++) {
      reading = "a table name";
      long at = in.position();
      String name = readString(SnapshotFile.MAX_NAME_BYTES, "table name");
      Table next = tableNamed(name, at);
      if (counts.containsKey(next)) {
        throw corrupt("table " + next + " appears twice (again at byte " + at + ")");
      }
      counts.put(next, readEntries(next));
    }
    table = null;
    reading = "the metadata length";
    int metadataLength = readLength("metadata length");
    byte[] metadata = new byte[metadataLength];
    reading = "the metadata";
    in.readFully(metadata);
    return checkTrailer(new SnapshotInfo(handle(0, counts), task, checkpointId, metadata));
  }

  /** Reads one table's entries up to its end marker and its count; returns the count. */
  private long readEntries(Table next) throws IOException {
    table = next;
    entry = 0;
    byte[] previous = null;
    while (true) {
      reading = "a key length";
      int keyLength = in.readInt();
      if (keyLength == SnapshotFile.END_OF_TABLE) {
        break;
      }
      checkLength(keyLength, "key length");
      if (sink == null) {
        reading = "a key";
        in.skip(keyLength);
        reading = "a value length";
        int valueLength = readLength("value length");
        reading = "a value";
        in.skip(valueLength);
      } else {
        byte[] key = new byte[keyLength];
        reading = "a key";
        in.readFully(key);
        if (previous != null && Arrays.compareUnsigned(previous, key) >= 0) {
          throw corrupt(
              "the keys of table "
                  + table
                  + " are not in increasing order at entry "
                  + entry
                  + " (byte "
                  + (in.position() - keyLength)
                  + ")");
        }
        reading = "a value length";
        byte[] value = new byte[readLength("value length")];
        reading = "a value";
        in.readFully(value);
        sink.entry(table, key, value);
        previous = key;
      }
      entry++;
    }
    reading = "the entry count";
    long count = in.readLong();
    if (count != entry) {
      throw corrupt(
          "table "
              + table
              + " ends with an entry count of "
              + count
              + " at byte "
              + (in.position() - Long.BYTES)
              + " but holds "
              + entry
              + " entries");
    }
    return count;
  }

  /**
   * Reads the trailer where the content ended and checks, in this order, the CRC32C, that nothing
   * follows the trailer, and the length the trailer records.
   */
  private SnapshotInfo checkTrailer(SnapshotInfo parsed) throws IOException {
    long trailerAt = in.position();
    reading = "the trailer";
    long recordedLength = in.readLong();
    int computed = in.crc();
    int recordedCrc = in.readUncheckedInt();
    if (computed != recordedCrc) {
      throw corrupt(
          String.format(
              "CRC32C mismatch: the trailer at byte %d records %08x, the %d bytes before it hash"
                  + " to %08x (bytes were changed or the file is cut short)",
              trailerAt, recordedCrc, trailerAt + Long.BYTES, computed));
    }
    long end = in.position();
    if (in.size() > end) {
      throw corrupt(
          (in.size() - end)
              + " bytes of trailing garbage after the trailer, which ends at byte "
              + end
              + " of "
              + in.size());
    }
    if (recordedLength != in.size()) {
      throw corrupt(
          "the trailer records a length of "
              + recordedLength
              + " bytes, the file has "
              + in.size());
    }
    return new SnapshotInfo(
        handle(computed, parsed.handle().entries()),
        parsed.task(),
        parsed.checkpointId(),
        parsed.metadata());
  }

  private SnapshotHandle handle(int crc, Map<Table, Long> counts) {
    return new SnapshotHandle(file, in.size(), crc, counts);
  }

  private Table tableNamed(String name, long at) {
    for (Table t : Table.values()) {
      if (t.name().equals(name)) {
        return t;
      }
    }
    throw corrupt(
        "unknown table \""
            + name
            + "\" at byte "
            + at
            + ", expected one of "
            + Arrays.toString(Table.values()));
  }

  private String readString(int maxBytes, String what) throws IOException {
    long at = in.position();
    int length = in.readInt();
    if (length < 0 || length > maxBytes) {
      throw corrupt(what + " length " + length + " at byte " + at + " is not in 0.." + maxBytes);
    }
    checkLength(length, what + " length");
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return new String(bytes, UTF_8);
  }

  private int readLength(String what) throws IOException {
    int length = in.readInt();
    checkLength(length, what);
    return length;
  }

  /** Rejects a length just read that is negative or longer than the rest of the file. */
  private void checkLength(int length, String what) {
    long at = in.position() - Integer.BYTES;
    if (length < 0) {
      throw corrupt(what + " " + length + " at byte " + at + " is negative" + where());
    }
    if (length > in.remaining()) {
      throw corrupt(
          "truncated or a corrupt length: the "
              + what
              + " "
              + length
              + " at byte "
              + at
              + " runs past the end of the file at byte "
              + in.size()
              + where());
    }
  }

  private String where() {
    return table == null ? "" : " (table " + table + ", entry " + entry + ")";
  }

  private CorruptCheckpointException corrupt(String problem) {
    return new CorruptCheckpointException(file, problem);
  }
}
