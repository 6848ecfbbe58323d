package io.koala.checkpoint;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.StoreStats;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.EnumMap;
import java.util.Objects;

/**
 * The snapshot of one task's store (DESIGN §8): every entry of every {@link Table}, read through
 * one {@link ReadTxn} the task opened at the barrier, plus an opaque blob of task metadata.
 *
 * <pre>{@code
 * // in the task's handler, at the barrier:
 * ReadTxn txn = store.beginRead();
 * // on a copier thread, while the task keeps processing; write closes the transaction:
 * SnapshotHandle handle =
 *     SnapshotFile.write(txn, "counts#3", 42L, metadata, storage.snapshotPath(job, 42L, "counts#3"));
 * // on rollback, into a fresh store:
 * SnapshotInfo info = SnapshotFile.restore(handle.path(), freshStore);
 * }</pre>
 *
 * <h2>File format, version 1</h2>
 *
 * All integers are big-endian; a string is an {@code int} byte length followed by that many bytes
 * of UTF-8.
 *
 * <pre>
 * magic         8 bytes  "KOALASNP"
 * version       int      1
 * task          string   the task name the writer was given (at most 65,535 bytes)
 * checkpointId  long
 * tableCount    int      number of table sections that follow
 * table section, tableCount times, in {@link Table} order:
 *   name        string   the {@link Table} constant's name
 *   entries     in increasing unsigned key order, each:
 *                 keyLength int (at least 1), key, valueLength int (at least 0), value
 *   end         int      0 (a key length no entry has)
 *   entryCount  long     number of entries of the section
 * metadataLength int, metadata   the caller's blob
 * trailer:
 *   length      long     length of the whole file, trailer included
 *   crc32c      int      CRC32C of every byte before this field (the length included)
 * </pre>
 *
 * A section's entry count follows its entries, rather than preceding them, so that the writer
 * streams the transaction in one pass without counting first (the {@link ReadTxn} SPI has no count
 * at the transaction's instant) and without seeking back into the checksummed stream; the reader
 * checks the count against the entries it read.
 *
 * <h2>Writing</h2>
 *
 * {@link #write} streams the transaction's entries through a 1 MiB buffer into {@code
 * <target>.tmp}, holding the first {@value #HOLD_BYTES} bytes in memory until the transaction is
 * closed (memory does not grow with the store beyond that), forces the file to disk, renames it
 * atomically to {@code target} and forces the directory, so a crash never leaves a partial file
 * under the final name. It may run on any thread ({@link ReadTxn} allows that). It reads the
 * entries with {@link ReadTxn#forEach}, straight from the store's memory into its buffer, and
 * closes the transaction as soon as it has read the last table, before it writes what it held and
 * forces the file: while an LMDB read transaction is open, the task's writers cannot reuse the
 * pages freed since it began (so they touch fresh ones) and the map cannot grow (DESIGN §4.4,
 * hazard C2), so it should be open no longer than the reads need.
 *
 * <h2>Restoring: verify, then load</h2>
 *
 * {@link #restore} reads the file twice: a first pass {@linkplain #verify verifies} it (structure,
 * lengths, counts, CRC32C) without copying entries out, and only a file that passed is loaded, in a
 * second pass that checks everything again. The first pass costs a sequential read of the file
 * (usually served from the page cache by the second), and it buys two things: a corrupt file is
 * rejected before a single write reaches the target store, so the store is touched only by a
 * snapshot worth restoring; and a corrupt length cannot make the loader allocate a huge array. If
 * the file changes between the passes, the second pass throws as well, and the target store then
 * holds a partial state that the caller discards (the target is a fresh store for that reason).
 *
 * <p>Entries are loaded in write transactions of at most {@value #RESTORE_TXN_ENTRIES} entries or
 * {@value #RESTORE_TXN_BYTES} bytes of keys and values, with {@link WriteTxn#append}: a section's
 * keys are sorted, so LMDB fills its pages in order instead of splitting them. The target store
 * must be empty, and no read transaction should be open on it, so that an LMDB map can grow.
 *
 * <p>Threading: every method may be called from any thread; calls are independent.
 */
public final class SnapshotFile {

  /** The first 8 bytes of every snapshot file. */
  static final byte[] MAGIC = "KOALASNP".getBytes(US_ASCII);

  /** The format this class writes and the only one it reads. */
  public static final int FORMAT_VERSION = 1;

  /** Longest task or table name, in UTF-8 bytes. */
  static final int MAX_NAME_BYTES = 65_535;

  /** The key length that ends a table section. */
  static final int END_OF_TABLE = 0;

  /** Length of the trailer: the file length and the CRC32C. */
  static final int TRAILER_BYTES = Long.BYTES + Integer.BYTES;

  /**
   * What a writer keeps in memory while the transaction is open, so that it closes the transaction
   * before it writes the file: a snapshot of up to this size holds the transaction only as long as
   * reading it takes; a larger one writes the rest to the file as it reads.
   */
  static final long HOLD_BYTES = 64L << 20;

  /** I/O buffer of a writer or reader. */
  static final int BUFFER_BYTES = 1 << 20;

  /** Suffix of the file a snapshot is written to before it is renamed to its final name. */
  public static final String TMP_SUFFIX = ".tmp";

  /** A restore commits after this many entries... */
  static final int RESTORE_TXN_ENTRIES = 100_000;

  /** ...or this many bytes of keys and values, whichever comes first. */
  static final long RESTORE_TXN_BYTES = 32L << 20;

  private SnapshotFile() {}

  /**
   * Writes every entry of every table visible to {@code txn}, and {@code metadata}, to {@code
   * target}: first to {@code target + ".tmp"}, which is forced to disk and atomically renamed.
   * Creates the target's parent directories. On failure the temporary file is deleted and nothing
   * appears under {@code target}.
   *
   * @param txn the task's read transaction, opened at the barrier; used from the calling thread and
   *     closed by this method, as soon as every entry has been read and in every case before it
   *     returns or throws
   * @param task the task name recorded in the header (non-null, at most 65,535 UTF-8 bytes)
   * @param checkpointId recorded in the header
   * @param metadata the task's opaque metadata, recorded as is (non-null, may be empty)
   * @param target the final file name; it must not exist yet (a snapshot file is written once)
   * @return the written file's handle
   * @throws CheckpointException when the target exists or the file cannot be written
   */
  public static SnapshotHandle write(
      ReadTxn txn, String task, long checkpointId, byte[] metadata, Path target) {
    Objects.requireNonNull(txn, "txn");
    try (txn) {
      return writeAndRename(txn, task, checkpointId, metadata, target);
    }
  }

  private static SnapshotHandle writeAndRename(
      ReadTxn txn, String task, long checkpointId, byte[] metadata, Path target) {
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(target, "target");
    byte[] taskBytes = task.getBytes(UTF_8);
    if (taskBytes.length > MAX_NAME_BYTES) {
      throw new IllegalArgumentException(
          "task name of " + taskBytes.length + " UTF-8 bytes exceeds " + MAX_NAME_BYTES);
    }
    if (Files.exists(target)) {
      throw new CheckpointException(
          "snapshot file " + target + " already exists: a snapshot file is written once");
    }
    Path tmp = tmpPath(target);
    SnapshotHandle handle;
    try {
      Path parent = target.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      handle = writeTmp(txn, taskBytes, checkpointId, metadata, tmp, target);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      forceDirectory(parent);
    } catch (FileAlreadyExistsException e) {
      deleteQuietly(tmp, e);
      throw new CheckpointException(
          "snapshot file " + target + " already exists: a snapshot file is written once", e);
    } catch (IOException e) {
      deleteQuietly(tmp, e);
      throw new CheckpointException("cannot write snapshot file " + target + ": " + e, e);
    } catch (UncheckedIOException e) {
      deleteQuietly(tmp, e);
      throw new CheckpointException(
          "cannot write snapshot file " + target + ": " + e.getCause(), e.getCause());
    } catch (RuntimeException | Error e) {
      deleteQuietly(tmp, e);
      throw e;
    }
    return handle;
  }

  /**
   * Checks {@code file} without loading it: magic, version, every length and count, the CRC32C, and
   * that nothing follows the trailer.
   *
   * @return the file's header, metadata and handle (its path is {@code file})
   * @throws CorruptCheckpointException when the file is not a valid snapshot
   * @throws CheckpointException when the file cannot be read
   */
  public static SnapshotInfo verify(Path file) {
    Objects.requireNonNull(file, "file");
    return SnapshotReader.read(file, null);
  }

  /**
   * Verifies {@code file}, then loads its entries into {@code into}, which must be empty (see the
   * class comment for the two passes and the transaction sizes). Must be called on one thread, the
   * one the store's write transactions belong to; no write transaction may be open on the store.
   *
   * @return the file's header and metadata
   * @throws CorruptCheckpointException when the file is not a valid snapshot; when this is thrown
   *     by the second pass (the file changed after it was verified) the store holds part of the
   *     snapshot and must be discarded
   * @throws CheckpointException when the file cannot be read
   * @throws IllegalArgumentException when {@code into} is not empty
   * @throws io.koala.store.StoreException when the store refuses an entry (for instance a key
   *     longer than its maximum key size)
   */
  public static SnapshotInfo restore(Path file, StateStore into) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(into, "into");
    StoreStats stats = into.stats();
    for (Table table : Table.values()) {
      if (stats.entries(table) > 0) {
        throw new IllegalArgumentException(
            "cannot restore "
                + file
                + " into "
                + into
                + ": the store is not empty (table "
                + table
                + " has "
                + stats.entries(table)
                + " entries); restore into a fresh store");
      }
    }
    SnapshotInfo verified = verify(file);
    try (Loader loader = new Loader(into)) {
      SnapshotInfo loaded = SnapshotReader.read(file, loader);
      loader.commit();
      if (!loaded.equals(verified)) {
        throw new CorruptCheckpointException(
            file, "the file changed while it was restored: " + verified + " became " + loaded);
      }
      return loaded;
    }
  }

  /** The temporary name {@link #write} uses for {@code target}. */
  public static Path tmpPath(Path target) {
    return target.resolveSibling(target.getFileName() + TMP_SUFFIX);
  }

  private static SnapshotHandle writeTmp(
      ReadTxn txn, byte[] task, long checkpointId, byte[] metadata, Path tmp, Path target)
      throws IOException {
    EnumMap<Table, Long> counts = new EnumMap<>(Table.class);
    try (FileChannel channel =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ChecksummedOutput out = new ChecksummedOutput(channel, BUFFER_BYTES, HOLD_BYTES);
      out.writeBytes(MAGIC);
      out.writeInt(FORMAT_VERSION);
      out.writeInt(task.length);
      out.writeBytes(task);
      out.writeLong(checkpointId);
      out.writeInt(Table.values().length);
      for (Table table : Table.values()) {
        byte[] name = table.name().getBytes(UTF_8);
        out.writeInt(name.length);
        out.writeBytes(name);
        long entries = writeEntries(txn, table, out);
        out.writeInt(END_OF_TABLE);
        out.writeLong(entries);
        counts.put(table, entries);
      }
      txn.close();
      out.flush();
      out.endHold();
      out.writeInt(metadata.length);
      out.writeBytes(metadata);
      long length = out.position() + TRAILER_BYTES;
      out.writeLong(length);
      int crc = out.crc();
      out.writeUncheckedIntAndFlush(crc);
      channel.force(true);
      return new SnapshotHandle(target, length, crc, counts);
    }
  }

  /** Streams one table straight from the transaction's buffers; returns its number of entries. */
  private static long writeEntries(ReadTxn txn, Table table, ChecksummedOutput out) {
    return txn.forEach(
        table,
        (key, value) -> {
          try {
            out.writeSizedBytes(key);
            out.writeSizedBytes(value);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /**
   * Forces a directory, so that a rename in it survives a crash. Not every platform can open a
   * directory (Windows cannot); there the rename's durability is the file system's.
   */
  private static void forceDirectory(Path dir) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(dir, StandardOpenOption.READ);
    } catch (IOException | UnsupportedOperationException e) {
      return;
    }
    try (channel) {
      channel.force(true);
    }
  }

  private static void deleteQuietly(Path tmp, Throwable failure) {
    try {
      Files.deleteIfExists(tmp);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Appends a file's entries to a store in bounded write transactions. Closing it aborts the
   * transaction not yet committed.
   */
  private static final class Loader implements SnapshotReader.EntrySink, AutoCloseable {
    private final StateStore store;
    private WriteTxn txn;
    private int txnEntries;
    private long txnBytes;

    Loader(StateStore store) {
      this.store = store;
    }

    @Override
    public void entry(Table table, byte[] key, byte[] value) {
      if (txn == null) {
        txn = store.beginWrite();
      }
      txn.append(table, key, value);
      txnEntries++;
      txnBytes += key.length + value.length;
      if (txnEntries >= RESTORE_TXN_ENTRIES || txnBytes >= RESTORE_TXN_BYTES) {
        commit();
      }
    }

    /** Commits the open transaction, if any. */
    void commit() {
      if (txn != null) {
        txn.commit();
        txn.close();
        txn = null;
        txnEntries = 0;
        txnBytes = 0;
      }
    }

    @Override
    public void close() {
      if (txn != null) {
        txn.close();
        txn = null;
      }
    }
  }
}
