package io.koala.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Objects;
import org.agrona.DirectBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.DirectBufferProxy;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.GetOp;
import org.lmdbjava.LmdbException;
import org.lmdbjava.PutFlags;
import org.lmdbjava.Stat;
import org.lmdbjava.Txn;

/**
 * A {@link StateStore} on an LMDB environment in one directory, one named database per {@link
 * Table}. Local state is recovered from checkpoints, never from this directory after a crash, so
 * the environment is opened without fsync ({@code MDB_NOSYNC}, {@code MDB_NOMETASYNC}); {@code
 * MDB_NOTLS} lets read transactions move between threads as actors do.
 *
 * <p><b>Writable map, allocated file.</b> Writes go straight into the map ({@code MDB_WRITEMAP}),
 * which halves the cost of a commit against LMDB writing each dirty page with {@code pwrite}. LMDB
 * sizes the file to the map and leaves it sparse, and a write through the map into a hole on a full
 * disk kills the JVM with {@code SIGBUS}; so the file's blocks are allocated ({@code
 * posix_fallocate}) up to the map size before the map is opened or grown, and a disk without room
 * for them fails that open or growth with a {@link StoreException}. The file takes the map's size
 * on disk, hence the small initial map. Where the file cannot be allocated (no {@code
 * posix_fallocate}), the map is read-only to the process and LMDB writes its pages at commit. The
 * map's size is {@code MapSize}'s concern.
 *
 * <p><b>Disk reserve.</b> A commit is refused with a {@link StoreException} naming the file system
 * and the space left while that file system has less usable space than {@link
 * StoreOptions#minFreeDiskBytes()} (looked up at most once a second while above it): a filling disk
 * fails the task, whose job rolls back and tries again, long before LMDB or the checkpoint files
 * meet the end of it ({@code DiskReserve}).
 *
 * <pre>{@code
 * try (LmdbStateStore store = LmdbStateStore.open(dir, StoreOptions.defaults())) {
 *   try (WriteTxn txn = store.beginWrite()) {
 *     txn.put(Table.STATE, KeyLayout.stateKey(bucket, key, stateId, namespace), value);
 *     txn.commit();
 *   }
 * }
 * }</pre>
 *
 * <p><b>Map growth.</b> When LMDB reports {@code MDB_MAP_FULL} during a write or a commit, the
 * write transaction aborts its LMDB transaction, the map grows by {@link
 * StoreOptions#growthFactor()} (up to {@link StoreOptions#maxMapSizeBytes()}), and the transaction
 * replays its redo log (every put, delete and prefix delete so far) in a new LMDB transaction; the
 * caller sees nothing but a slower call. LMDB can only resize while no transaction of the
 * environment is open in the process, so growth waits for the open read transactions to close, up
 * to {@link #GROWTH_WAIT_MILLIS}; after that it fails with a {@link StoreException}: the failing
 * operation has no effect, the transaction keeps its earlier writes, and the operation or {@link
 * WriteTxn#commit()} can be retried once the readers closed. A read that stays open long (a
 * snapshot's, {@link #beginLongRead()}) first grows the map when less than half of it is free, so
 * that writes seldom need to grow it meanwhile.
 *
 * <p><b>Threading.</b> Read transactions may be opened, used and closed on any thread (one thread
 * at a time per transaction). A write transaction must be used and finished on the thread that
 * began it, because LMDB's writer lock belongs to that thread; any other thread gets an {@link
 * IllegalStateException}. Keys and values go to LMDB through off-heap buffers owned by the writer
 * (one writer at a time) or by each read transaction; every array returned is a heap copy.
 */
public final class LmdbStateStore implements StateStore {
  /** Reader slots: with {@code MDB_NOTLS} every open read transaction holds one. */
  private static final int MAX_READERS = 256;

  /** How long a growth of the map waits for the open read transactions to close. */
  public static final long GROWTH_WAIT_MILLIS = 60_000;

  private static final int INITIAL_VALUE_SLOT_BYTES = 4096;

  private final Path directory;
  private final Env<DirectBuffer> env;
  private final EnumMap<Table, Dbi<DirectBuffer>> dbis;
  private final int maxKeySize;
  private final String where;

  /** Off-heap key and value buffers of the single writer; only its thread touches them. */
  private final DirectSlot writerKey;

  private final DirectSlot writerValue;

  private final Object lock = new Object();
  private final MapSize mapSize; // guarded by lock
  private final DiskReserve disk; // the writer's thread only
  private int openReads; // guarded by lock
  private LmdbWriteTxn writer; // guarded by lock
  private boolean closed; // guarded by lock
  private boolean growthWaiting; // guarded by lock: a growth waits for the readers
  private long growthWaitMillis = GROWTH_WAIT_MILLIS; // guarded by lock

  private LmdbStateStore(
      Path directory,
      Env<DirectBuffer> env,
      EnumMap<Table, Dbi<DirectBuffer>> dbis,
      MapSize mapSize,
      DiskReserve disk) {
    this.directory = directory;
    this.env = env;
    this.dbis = dbis;
    this.maxKeySize = env.getMaxKeySize();
    this.where = "store " + directory;
    this.writerKey = DirectSlot.fixed(maxKeySize);
    this.writerValue = DirectSlot.growable(INITIAL_VALUE_SLOT_BYTES);
    this.mapSize = mapSize;
    this.disk = disk;
  }

  /**
   * Opens the store in {@code directory}, creating the directory and the environment when missing;
   * an existing environment is opened with its data.
   *
   * @throws StoreException when the directory or the environment cannot be opened
   */
  public static LmdbStateStore open(Path directory, StoreOptions options) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(options, "options");
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new StoreException("cannot create the directory of store " + directory, e);
    }
    boolean writeMap = FileSpace.available();
    List<EnvFlags> flags =
        new ArrayList<>(
            List.of(
                EnvFlags.MDB_NOTLS,
                EnvFlags.MDB_NOSYNC,
                EnvFlags.MDB_NOMETASYNC,
                EnvFlags.MDB_NORDAHEAD));
    if (writeMap) {
      flags.add(EnvFlags.MDB_WRITEMAP);
    }
    Env<DirectBuffer> env;
    try {
      env =
          Env.create(DirectBufferProxy.PROXY_DB)
              .setMapSize(options.initialMapSizeBytes())
              .setMaxDbs(Table.values().length)
              .setMaxReaders(MAX_READERS)
              .open(directory.toFile(), flags.toArray(new EnvFlags[0]));
    } catch (LmdbException e) {
      throw new StoreException("cannot open LMDB store " + directory + ": " + e.getMessage(), e);
    }
    String where = "store " + directory;
    try {
      MapSize mapSize = new MapSize(env, options, directory, writeMap, where);
      DiskReserve disk = DiskReserve.of(directory, options.minFreeDiskBytes(), where);
      EnumMap<Table, Dbi<DirectBuffer>> dbis = new EnumMap<>(Table.class);
      for (Table table : Table.values()) {
        dbis.put(table, env.openDbi(table.name(), DbiFlags.MDB_CREATE));
      }
      return new LmdbStateStore(directory, env, dbis, mapSize, disk);
    } catch (LmdbException e) {
      env.close();
      throw new StoreException(
          "cannot open the tables of LMDB store " + directory + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      env.close();
      throw e;
    }
  }

  /** The directory holding the environment. */
  public Path directory() {
    return directory;
  }

  /** Current size of the memory map in bytes; grows on demand, see the class comment. */
  public long mapSizeBytes() {
    synchronized (lock) {
      return mapSize.bytes();
    }
  }

  @Override
  public WriteTxn beginWrite() {
    synchronized (lock) {
      checkOpen();
      if (writer != null) {
        throw new IllegalStateException(
            "a write transaction is already open on "
                + where
                + " (begun on thread "
                + writer.owner.getName()
                + "): one writer at a time");
      }
      writer = new LmdbWriteTxn(beginLmdbWrite());
      return writer;
    }
  }

  @Override
  public ReadTxn beginRead() {
    return new LmdbReadTxn(beginTrackedRead());
  }

  /**
   * A read for a snapshot: when less than half of the map is free and no transaction is open, the
   * map grows first (see the class comment).
   */
  @Override
  public ReadTxn beginLongRead() {
    synchronized (lock) {
      checkOpen();
      if (writer == null && openReads == 0 && mapSize.moreThanHalfUsedAndGrowable()) {
        growMap();
      }
    }
    return beginRead();
  }

  @Override
  public StoreStats stats() {
    Txn<DirectBuffer> txn = beginTrackedRead();
    try {
      EnumMap<Table, Long> entries = new EnumMap<>(Table.class);
      long bytes = 0;
      for (Table table : Table.values()) {
        Stat stat = dbis.get(table).stat(txn);
        entries.put(table, stat.entries);
        bytes += (stat.branchPages + stat.leafPages + stat.overflowPages) * stat.pageSize;
      }
      return new StoreStats(entries, bytes);
    } catch (LmdbException e) {
      throw failure("stats", e);
    } finally {
      endTrackedRead(txn);
    }
  }

  @Override
  public int maxKeySize() {
    return maxKeySize;
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (writer != null || openReads > 0) {
        throw new IllegalStateException(
            "cannot close "
                + where
                + ": "
                + openReads
                + " read and "
                + (writer == null ? 0 : 1)
                + " write transactions are open");
      }
      closed = true;
      env.close();
    }
  }

  @Override
  public String toString() {
    return "LmdbStateStore[" + directory + "]";
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(where + " is closed");
    }
  }

  private Txn<DirectBuffer> beginTrackedRead() {
    synchronized (lock) {
      checkOpen();
      Txn<DirectBuffer> txn;
      try {
        txn = env.txnRead();
      } catch (LmdbException e) {
        throw failure("begin a read transaction", e);
      }
      openReads++;
      return txn;
    }
  }

  private void endTrackedRead(Txn<DirectBuffer> txn) {
    synchronized (lock) {
      try {
        txn.close();
      } finally {
        openReads--;
        if (openReads == 0) {
          lock.notifyAll(); // a growth of the map may wait for this
        }
      }
    }
  }

  private Txn<DirectBuffer> beginLmdbWrite() {
    try {
      return env.txnWrite();
    } catch (LmdbException e) {
      throw failure("begin a write transaction", e);
    }
  }

  private void writerFinished(LmdbWriteTxn txn) {
    synchronized (lock) {
      if (writer == txn) {
        writer = null;
      }
    }
  }

  /**
   * Grows the map by the growth factor. The caller (the writer) has aborted its LMDB transaction,
   * and holding the lock keeps read transactions from beginning meanwhile, so no transaction of
   * this environment is open while LMDB remaps.
   */
  private void growMap() {
    synchronized (lock) {
      awaitNoReaders();
      if (openReads > 0) {
        throw new StoreException(
            "map full while "
                + openReads
                + " read transactions stayed open for "
                + growthWaitMillis
                + " ms (map size "
                + mapSize.bytes()
                + " bytes, "
                + where
                + "): LMDB cannot grow its map while a transaction is open; the write transaction"
                + " keeps its earlier writes, retry the operation or the commit once the readers"
                + " are closed");
      }
      mapSize.grow();
    }
  }

  /** Waits, holding the lock between checks, until no read is open or the wait is over. */
  private void awaitNoReaders() {
    long deadline = System.nanoTime() + growthWaitMillis * 1_000_000;
    boolean interrupted = false;
    growthWaiting = true;
    try {
      while (openReads > 0) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          break;
        }
        try {
          lock.wait(left);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      growthWaiting = false;
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** For tests: whether a growth of the map waits for the readers now. */
  boolean growthWaiting() {
    synchronized (lock) {
      return growthWaiting;
    }
  }

  /** For tests: how long a growth waits for the readers ({@link #GROWTH_WAIT_MILLIS}). */
  void growthWaitMillis(long millis) {
    synchronized (lock) {
      growthWaitMillis = millis;
    }
  }

  private StoreException failure(String operation, LmdbException e) {
    return new StoreException(
        "LMDB failed to " + operation + " (" + where + "): " + e.getMessage(), e);
  }

  private static boolean startsWith(DirectBuffer key, byte[] prefix) {
    if (key.capacity() < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (key.getByte(i) != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /** Reads shared by read and write transactions. */
  private abstract class LmdbView implements ReadTxn {

    /** The live LMDB transaction, after checking this transaction may be used. */
    abstract Txn<DirectBuffer> readableTxn();

    /** Off-heap buffer for keys passed to LMDB by this transaction. */
    abstract DirectSlot keySlot();

    void scanStarted() {}

    void scanEnded() {}

    @Override
    public byte[] get(Table table, byte[] key) {
      Txn<DirectBuffer> txn = readableTxn();
      StoreChecks.checkKey(table, key, maxKeySize, where);
      try {
        DirectBuffer value = dbis.get(table).get(txn, keySlot().set(key));
        return value == null ? null : DirectSlot.copy(value);
      } catch (LmdbException e) {
        throw failure("get from table " + table, e);
      }
    }

    @Override
    public int scan(Table table, byte[] prefix, byte[] after, int limit, EntryVisitor visitor) {
      Txn<DirectBuffer> txn = readableTxn();
      StoreChecks.checkScan(table, prefix, limit, visitor);
      if (limit == 0 || prefix.length > maxKeySize) {
        return 0;
      }
      // A start key longer than any key is truncated: the keys between the truncated and the full
      // start are prefixes of it, hence not after it, and isAfter skips them.
      byte[] start = StoreChecks.scanStart(prefix, after);
      int visited = 0;
      scanStarted();
      try (Cursor<DirectBuffer> cursor = dbis.get(table).openCursor(txn)) {
        boolean found =
            start.length == 0
                ? cursor.first()
                : cursor.get(keySlot().setTruncated(start, maxKeySize), GetOp.MDB_SET_RANGE);
        while (found) {
          byte[] key = DirectSlot.copy(cursor.key());
          if (!StoreChecks.startsWith(key, prefix)) {
            break;
          }
          if (StoreChecks.isAfter(key, after)) {
            visited++;
            if (!visitor.visit(key, DirectSlot.copy(cursor.val())) || visited >= limit) {
              break;
            }
          }
          found = cursor.next();
        }
      } catch (LmdbException e) {
        throw failure("scan table " + table, e);
      } finally {
        scanEnded();
      }
      return visited;
    }

    /**
     * One cursor for every prefix: each is a seek ({@code MDB_SET_RANGE}, which LMDB answers from
     * the current leaf page when the prefix falls on it, so prefixes in key order walk forward),
     * then the entries under it; only those are copied.
     */
    @Override
    public long scanPrefixes(Table table, List<byte[]> prefixes, PrefixEntryVisitor visitor) {
      Txn<DirectBuffer> txn = readableTxn();
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(visitor, "visitor");
      for (byte[] prefix : prefixes) {
        StoreChecks.checkPrefix(table, prefix);
      }
      long visited = 0;
      scanStarted();
      try (Cursor<DirectBuffer> cursor = dbis.get(table).openCursor(txn)) {
        for (int i = 0; i < prefixes.size(); i++) {
          byte[] prefix = prefixes.get(i);
          if (prefix.length > maxKeySize) {
            continue; // longer than any key: matches nothing
          }
          boolean found =
              prefix.length == 0
                  ? cursor.first()
                  : cursor.get(keySlot().set(prefix), GetOp.MDB_SET_RANGE);
          while (found && startsWith(cursor.key(), prefix)) {
            visited++;
            if (!visitor.visit(i, DirectSlot.copy(cursor.key()), DirectSlot.copy(cursor.val()))) {
              return visited;
            }
            found = cursor.next();
          }
        }
      } catch (LmdbException e) {
        throw failure("scan table " + table, e);
      } finally {
        scanEnded();
      }
      return visited;
    }

    /** One cursor walk over the table, handing out LMDB's own buffers: nothing is copied. */
    @Override
    public long forEach(Table table, EntryViewVisitor visitor) {
      Txn<DirectBuffer> txn = readableTxn();
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(visitor, "visitor");
      long visited = 0;
      scanStarted();
      try (Cursor<DirectBuffer> cursor = dbis.get(table).openCursor(txn)) {
        for (boolean found = cursor.first(); found; found = cursor.next()) {
          visitor.visit(cursor.key(), cursor.val());
          visited++;
        }
      } catch (LmdbException e) {
        throw failure("read table " + table, e);
      } finally {
        scanEnded();
      }
      return visited;
    }
  }

  private final class LmdbReadTxn extends LmdbView {
    private final Txn<DirectBuffer> txn;
    private DirectSlot key;
    private boolean done;

    LmdbReadTxn(Txn<DirectBuffer> txn) {
      this.txn = txn;
    }

    @Override
    Txn<DirectBuffer> readableTxn() {
      if (done) {
        throw new IllegalStateException("read transaction on " + where + " is closed");
      }
      return txn;
    }

    @Override
    DirectSlot keySlot() {
      if (key == null) {
        key = DirectSlot.fixed(maxKeySize);
      }
      return key;
    }

    @Override
    public void close() {
      if (!done) {
        done = true;
        endTrackedRead(txn);
      }
    }
  }

  /** One buffered write of a transaction, kept so it can be replayed after the map grew. */
  private sealed interface Write permits Put, Append, Delete, DeletePrefix {
    Table table();
  }

  private record Put(Table table, byte[] key, byte[] value) implements Write {}

  /**
   * A put with {@code MDB_APPEND}; replays as it first ran, since the writes before it replay too.
   */
  private record Append(Table table, byte[] key, byte[] value) implements Write {}

  private record Delete(Table table, byte[] key) implements Write {}

  private record DeletePrefix(Table table, byte[] prefix) implements Write {}

  private enum WriteState {
    OPEN,
    /** LMDB failed for another reason than a full map; only {@link #close()} remains. */
    FAILED,
    COMMITTED,
    CLOSED
  }

  /**
   * The writer. {@code txn} is {@code null} after a full map could not grow yet: the next operation
   * grows the map and replays {@code redo} before doing its own work.
   */
  private final class LmdbWriteTxn extends LmdbView implements WriteTxn {
    final Thread owner = Thread.currentThread();
    private final List<Write> redo = new ArrayList<>();
    private final EnumMap<Table, Cursor<DirectBuffer>> cursors = new EnumMap<>(Table.class);
    private Txn<DirectBuffer> txn;
    private WriteState state = WriteState.OPEN;
    private int scanDepth;

    /**
     * The key a table's cursor was left on by the last {@link #get}, so that a read-modify-write of
     * that key overwrites it in place ({@code MDB_CURRENT}) instead of searching the tree again.
     */
    private Table positionedTable;

    private byte[] positionedKey;

    LmdbWriteTxn(Txn<DirectBuffer> txn) {
      this.txn = txn;
    }

    @Override
    Txn<DirectBuffer> readableTxn() {
      checkUsable();
      ensureLive();
      return txn;
    }

    @Override
    DirectSlot keySlot() {
      return writerKey;
    }

    @Override
    void scanStarted() {
      scanDepth++;
    }

    @Override
    void scanEnded() {
      scanDepth--;
    }

    @Override
    public byte[] get(Table table, byte[] key) {
      Txn<DirectBuffer> live = readableTxn();
      StoreChecks.checkKey(table, key, maxKeySize, where);
      positionedKey = null;
      try {
        Cursor<DirectBuffer> cursor = cursor(table, live);
        if (!cursor.get(writerKey.set(key), GetOp.MDB_SET_KEY)) {
          return null;
        }
        positionedTable = table;
        positionedKey = key;
        return DirectSlot.copy(cursor.val());
      } catch (LmdbException e) {
        throw failure("get from table " + table, e);
      }
    }

    private Cursor<DirectBuffer> cursor(Table table, Txn<DirectBuffer> live) {
      Cursor<DirectBuffer> cursor = cursors.get(table);
      if (cursor == null) {
        cursor = dbis.get(table).openCursor(live);
        cursors.put(table, cursor);
      }
      return cursor;
    }

    @Override
    public void put(Table table, byte[] key, byte[] value) {
      checkWritable();
      StoreChecks.checkKey(table, key, maxKeySize, where);
      Objects.requireNonNull(value, "value");
      write(new Put(table, key, value));
    }

    @Override
    public void append(Table table, byte[] key, byte[] value) {
      checkWritable();
      StoreChecks.checkKey(table, key, maxKeySize, where);
      Objects.requireNonNull(value, "value");
      write(new Append(table, key, value));
    }

    @Override
    public boolean delete(Table table, byte[] key) {
      checkWritable();
      StoreChecks.checkKey(table, key, maxKeySize, where);
      return write(new Delete(table, key.clone())) > 0;
    }

    @Override
    public long deletePrefix(Table table, byte[] prefix) {
      checkWritable();
      StoreChecks.checkPrefix(table, prefix);
      return write(new DeletePrefix(table, prefix.clone()));
    }

    @Override
    public void commit() {
      checkWritable();
      disk.check();
      while (true) {
        ensureLive();
        try {
          closeCursors();
          txn.commit();
          break;
        } catch (Env.MapFullException e) {
          // mdb_txn_commit has already freed the LMDB transaction; closing the handle is a no-op.
          abandonLmdbTxn();
        } catch (LmdbException e) {
          throw fail("commit", e);
        }
      }
      state = WriteState.COMMITTED;
      abandonLmdbTxn();
      writerFinished(this);
    }

    @Override
    public void close() {
      if (state == WriteState.COMMITTED || state == WriteState.CLOSED) {
        return;
      }
      StoreChecks.checkOwner(owner, "write transaction on " + where);
      if (scanDepth > 0) {
        throw new IllegalStateException("cannot close a write transaction during its own scan");
      }
      state = WriteState.CLOSED;
      abandonLmdbTxn();
      writerFinished(this);
    }

    private void checkUsable() {
      switch (state) {
        case OPEN:
          break;
        case FAILED:
          throw new IllegalStateException(
              "write transaction on " + where + " failed earlier and can only be closed");
        case COMMITTED:
          throw new IllegalStateException(
              "write transaction on " + where + " is already committed");
        case CLOSED:
          throw new IllegalStateException("write transaction on " + where + " is closed");
        default:
          throw new IllegalStateException("unhandled " + state);
      }
      StoreChecks.checkOwner(owner, "write transaction on " + where);
    }

    private void checkWritable() {
      checkUsable();
      if (scanDepth > 0) {
        throw new IllegalStateException(
            "cannot write through a transaction while it is scanning (" + where + ")");
      }
    }

    /** Applies {@code write}, growing the map and replaying the redo log as often as needed. */
    private long write(Write write) {
      while (true) {
        ensureLive();
        try {
          long result = apply(write);
          redo.add(write);
          return result;
        } catch (Env.MapFullException e) {
          abandonLmdbTxn();
        } catch (Dbi.KeyExistsException e) {
          if (write instanceof Append append) {
            // a key out of order: LMDB refused it and left the transaction usable
            throw StoreChecks.notAfterLastKey(append.table(), append.key(), where);
          }
          throw fail("write to table " + write.table(), e);
        } catch (LmdbException e) {
          throw fail("write to table " + write.table(), e);
        }
      }
    }

    /**
     * Makes sure an LMDB transaction holding every logged write is open: after a full map, grows
     * the map, begins a new transaction and replays the log, until the log fits.
     *
     * @throws StoreException when the map cannot grow now (read transactions open) or any more
     *     (maximum reached); the log is kept for a retry
     */
    private void ensureLive() {
      while (txn == null) {
        growMap();
        txn = beginLmdbWrite();
        try {
          for (Write write : redo) {
            apply(write);
          }
        } catch (Env.MapFullException e) {
          abandonLmdbTxn();
        } catch (LmdbException e) {
          throw fail("replay " + redo.size() + " writes after growing the map", e);
        }
      }
    }

    private long apply(Write write) {
      Dbi<DirectBuffer> dbi = dbis.get(write.table());
      if (write instanceof Put put) {
        if (put.table() == positionedTable && Arrays.equals(put.key(), positionedKey)) {
          cursors
              .get(put.table())
              .put(writerKey.set(put.key()), writerValue.set(put.value()), PutFlags.MDB_CURRENT);
        } else {
          positionedKey = null;
          dbi.put(txn, writerKey.set(put.key()), writerValue.set(put.value()));
        }
        return 1;
      }
      positionedKey = null;
      if (write instanceof Append append) {
        dbi.put(
            txn, writerKey.set(append.key()), writerValue.set(append.value()), PutFlags.MDB_APPEND);
        return 1;
      }
      if (write instanceof Delete delete) {
        return dbi.delete(txn, writerKey.set(delete.key())) ? 1 : 0;
      }
      if (write instanceof DeletePrefix deletePrefix) {
        return deleteRange(dbi, deletePrefix.prefix());
      }
      throw new IllegalStateException("unhandled " + write);
    }

    private long deleteRange(Dbi<DirectBuffer> dbi, byte[] prefix) {
      if (prefix.length > maxKeySize) {
        return 0;
      }
      long deleted = 0;
      try (Cursor<DirectBuffer> cursor = dbi.openCursor(txn)) {
        boolean found =
            prefix.length == 0
                ? cursor.first()
                : cursor.get(writerKey.set(prefix), GetOp.MDB_SET_RANGE);
        while (found && startsWith(cursor.key(), prefix)) {
          cursor.delete();
          deleted++;
          // After a delete the cursor already refers to the next entry, and MDB_NEXT returns it.
          found = cursor.next();
        }
      }
      return deleted;
    }

    private StoreException fail(String operation, LmdbException e) {
      state = WriteState.FAILED;
      abandonLmdbTxn();
      return failure(operation, e);
    }

    private void abandonLmdbTxn() {
      Txn<DirectBuffer> current = txn;
      txn = null;
      if (current != null) {
        closeCursors();
        current.close();
      }
    }

    private void closeCursors() {
      positionedKey = null;
      for (Cursor<DirectBuffer> c : cursors.values()) {
        c.close();
      }
      cursors.clear();
    }
  }
}
