package io.koala.runtime.internal.journal;

import io.koala.store.StoreException;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The events of one persistence id in an append-only file: the storage format of {@link
 * FileJournal}, with no Pekko in it. Not thread-safe: its owner serializes calls.
 *
 * <p>Format: the magic number {@code "KJL1"} (4 bytes), then records, each
 *
 * <pre>
 *   int length | int CRC-32C of the body | body (length bytes)
 *   body = 1 (events)     | int count | count × (long sequence number | int size | size bytes)
 *        | 2 (deleted to) | long sequence number
 * </pre>
 *
 * (big-endian). One record holds one atomic write, so a write is replayed whole or not at all.
 * {@link #append} writes a batch of records and forces them to the disk before it returns; a crash
 * during it leaves a tail that {@link #open} recognises (a length past the end of the file, or a
 * checksum that fails), logs at WARN and truncates, so a torn record is never read. Since nothing
 * after an unforced write was acknowledged, truncating from the first bad record loses nothing a
 * caller was told is stored.
 *
 * <p>{@link #deleteTo} rewrites the file without the deleted events and with a "deleted to" record
 * (the highest sequence number must survive the deletion of every event), into a temporary file
 * that replaces the journal file by an atomic rename: a crash leaves the old file or the new one.
 * The file itself is created the same way, so it always starts with a whole magic number.
 */
final class JournalFile implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JournalFile.class);

  /** {@code "KJL1"}: a Koala journal log, format 1. */
  static final int MAGIC = 0x4B4A4C31;

  private static final int MAGIC_BYTES = 4;
  private static final int RECORD_HEADER = 8;
  private static final byte EVENTS = 1;
  private static final byte DELETED_TO = 2;
  private static final boolean WINDOWS = File.separatorChar == '\\';

  /** One stored event: its sequence number and its serialized form. */
  record Event(long sequenceNr, byte[] payload) {
    Event {
      if (sequenceNr < 1) {
        throw new IllegalArgumentException("sequenceNr must be positive: " + sequenceNr);
      }
      Objects.requireNonNull(payload, "payload");
    }
  }

  private final Path file;
  private FileChannel channel; // null until the first write creates the file
  private long end = MAGIC_BYTES; // where the next record goes
  private long highest;
  private long deletedTo;
  private long truncated;

  private JournalFile(Path file) {
    this.file = file;
  }

  /**
   * Opens the journal at {@code file} (absent: an empty journal, created by the first write),
   * truncating a torn tail.
   *
   * @throws StoreException when the file is not a journal file
   */
  static JournalFile open(Path file) throws IOException {
    // a rewrite a crash interrupted before its rename: the journal file itself is intact
    Files.deleteIfExists(rewriting(file));
    JournalFile journal = new JournalFile(file);
    if (Files.exists(file)) {
      journal.recover();
    }
    return journal;
  }

  /** The highest sequence number ever appended, deleted or not (0: none). */
  long highestSequenceNr() {
    return highest;
  }

  /** Events up to this sequence number are deleted (0: none). */
  long deletedTo() {
    return deletedTo;
  }

  /** How many bytes of a torn or corrupt tail {@link #open} truncated. */
  long truncatedBytes() {
    return truncated;
  }

  /**
   * Appends {@code atomicWrites}, one record each, and forces them to the disk: when this returns
   * they survive a crash of the process or of the machine.
   *
   * @throws IllegalArgumentException when a sequence number is not above the previous one
   */
  void append(List<List<Event>> atomicWrites) throws IOException {
    long last = highest;
    List<byte[]> bodies = new ArrayList<>(atomicWrites.size());
    long bytes = 0;
    for (List<Event> write : atomicWrites) {
      for (Event e : write) {
        if (e.sequenceNr() <= last) {
          throw new IllegalArgumentException(
              file + ": sequence number " + e.sequenceNr() + " is not above " + last);
        }
        last = e.sequenceNr();
      }
      byte[] body = eventsBody(write);
      bodies.add(body);
      bytes += RECORD_HEADER + body.length;
    }
    if (bodies.isEmpty()) {
      return;
    }
    if (channel == null) {
      rewrite(List.of(), 0);
    }
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(file + ": a write of " + bytes + " bytes is too large");
    }
    ByteBuffer out = ByteBuffer.allocate((int) bytes);
    for (byte[] body : bodies) {
      putRecord(out, body);
    }
    out.flip();
    try {
      writeFully(channel, end, out);
      channel.force(true);
    } catch (IOException e) {
      try {
        channel.truncate(end); // what the next open would cut anyway
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    end += bytes;
    highest = last;
  }

  /**
   * Calls {@code each} with the stored events numbered {@code from} to {@code to}, in order, at
   * most {@code max} of them.
   */
  void replay(long from, long to, long max, Consumer<Event> each) throws IOException {
    if (channel == null || max <= 0) {
      return;
    }
    long[] left = {max};
    scan(
        end,
        (type, body) -> {
          if (type != EVENTS) {
            return left[0] > 0;
          }
          int count = body.getInt();
          for (int i = 0; i < count && left[0] > 0; i++) {
            long seq = body.getLong();
            byte[] payload = new byte[body.getInt()];
            body.get(payload);
            if (seq > deletedTo && seq >= from && seq <= to) {
              each.accept(new Event(seq, payload));
              left[0]--;
            }
          }
          return left[0] > 0;
        });
  }

  /**
   * Deletes the events numbered up to {@code toSequenceNr} (at most up to the highest), durably:
   * the file is rewritten without them.
   */
  void deleteTo(long toSequenceNr) throws IOException {
    long upTo = Math.min(toSequenceNr, highest);
    if (upTo <= deletedTo) {
      return;
    }
    List<Event> kept = new ArrayList<>();
    replay(upTo + 1, Long.MAX_VALUE, Long.MAX_VALUE, kept::add);
    rewrite(kept, upTo);
  }

  @Override
  public void close() throws IOException {
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }

  // ------------------------------------------------------------------ recovery

  private void recover() throws IOException {
    channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    ByteBuffer magic = ByteBuffer.allocate(MAGIC_BYTES);
    if (channel.size() < MAGIC_BYTES || !readFully(0, magic) || magic.getInt(0) != MAGIC) {
      channel.close();
      channel = null;
      throw new StoreException(file + " is not a Koala journal file (no \"KJL1\" magic number)");
    }
    long size = channel.size();
    end =
        scan(
            size,
            (type, body) -> {
              if (type == EVENTS) {
                int count = body.getInt();
                for (int i = 0; i < count; i++) {
                  highest = Math.max(highest, body.getLong());
                  int payload = body.getInt();
                  body.position(body.position() + payload);
                }
              } else {
                deletedTo = body.getLong();
                highest = Math.max(highest, deletedTo);
              }
              return true;
            });
    if (end < size) {
      truncated = size - end;
      LOG.warn(
          "journal file {}: {} bytes after offset {} are a torn or corrupt record (a write a crash"
              + " interrupted before it was acknowledged); truncated",
          file,
          truncated,
          end);
      channel.truncate(end);
      channel.force(true);
    }
  }

  /** Reads each record's type and body (positioned after the type) until it returns false. */
  private interface RecordVisitor {
    boolean visit(byte type, ByteBuffer body);
  }

  /**
   * Visits the valid records before {@code limit}; returns the end of the last one visited, which
   * is where the first invalid record (a length past {@code limit}, a failed checksum, an unknown
   * type) starts, or {@code limit}.
   */
  private long scan(long limit, RecordVisitor visitor) throws IOException {
    long pos = MAGIC_BYTES;
    ByteBuffer header = ByteBuffer.allocate(RECORD_HEADER);
    CRC32C crc = new CRC32C();
    while (pos + RECORD_HEADER <= limit) {
      header.clear();
      if (!readFully(pos, header)) {
        return pos;
      }
      int length = header.getInt(0);
      if (length < 1 || length > limit - pos - RECORD_HEADER) {
        return pos;
      }
      ByteBuffer body = ByteBuffer.allocate(length);
      if (!readFully(pos + RECORD_HEADER, body)) {
        return pos;
      }
      crc.reset();
      crc.update(body.array(), 0, length);
      byte type = body.get(0);
      if ((int) crc.getValue() != header.getInt(4) || (type != EVENTS && type != DELETED_TO)) {
        return pos;
      }
      body.position(1);
      boolean more;
      try {
        more = visitor.visit(type, body);
      } catch (RuntimeException e) {
        // a body whose checksum holds but whose content does not parse was written wrong
        throw new StoreException(file + ": unreadable record at offset " + pos, e);
      }
      pos += RECORD_HEADER + length;
      if (!more) {
        return pos;
      }
    }
    return pos;
  }

  // ------------------------------------------------------------------ writing

  /** Replaces the file by one holding {@code events} after a "deleted to" record. */
  private void rewrite(List<Event> events, long newDeletedTo) throws IOException {
    Path tmp = rewriting(file);
    ByteBuffer out;
    byte[] eventsBody = events.isEmpty() ? null : eventsBody(events);
    byte[] deletedBody = null;
    if (newDeletedTo > 0) {
      deletedBody = ByteBuffer.allocate(9).put(DELETED_TO).putLong(newDeletedTo).array();
    }
    long size =
        MAGIC_BYTES
            + (deletedBody == null ? 0 : RECORD_HEADER + deletedBody.length)
            + (eventsBody == null ? 0 : RECORD_HEADER + (long) eventsBody.length);
    out = ByteBuffer.allocate(Math.toIntExact(size)).putInt(MAGIC);
    if (deletedBody != null) {
      putRecord(out, deletedBody);
    }
    if (eventsBody != null) {
      putRecord(out, eventsBody);
    }
    out.flip();
    Files.createDirectories(file.getParent());
    try (FileChannel w =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      writeFully(w, 0, out);
      w.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(file.getParent());
    close();
    channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    end = size;
    deletedTo = newDeletedTo;
  }

  private static byte[] eventsBody(List<Event> events) {
    long size = 1 + 4;
    for (Event e : events) {
      size += 8 + 4 + e.payload().length;
    }
    if (size > Integer.MAX_VALUE - RECORD_HEADER) {
      throw new IllegalArgumentException("an atomic write of " + size + " bytes is too large");
    }
    ByteBuffer body = ByteBuffer.allocate((int) size).put(EVENTS).putInt(events.size());
    for (Event e : events) {
      body.putLong(e.sequenceNr()).putInt(e.payload().length).put(e.payload());
    }
    return body.array();
  }

  private static void putRecord(ByteBuffer out, byte[] body) {
    CRC32C crc = new CRC32C();
    crc.update(body);
    out.putInt(body.length).putInt((int) crc.getValue()).put(body);
  }

  private static void writeFully(FileChannel to, long position, ByteBuffer from)
      throws IOException {
    long at = position;
    while (from.hasRemaining()) {
      at += to.write(from, at);
    }
  }

  /** Fills {@code into} from {@code position}; false if the file ends first. */
  private boolean readFully(long position, ByteBuffer into) throws IOException {
    long at = position;
    while (into.hasRemaining()) {
      int n = channel.read(into, at);
      if (n < 0) {
        return false;
      }
      at += n;
    }
    return true;
  }

  /**
   * Makes a rename in {@code dir} durable. Windows cannot open a directory as a channel; there NTFS
   * journals the rename itself.
   */
  private static void syncDirectory(Path dir) throws IOException {
    if (WINDOWS) {
      return;
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  private static Path rewriting(Path file) {
    return file.resolveSibling(file.getFileName() + ".rewrite");
  }
}
