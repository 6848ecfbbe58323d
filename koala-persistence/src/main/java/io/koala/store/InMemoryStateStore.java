package io.koala.store;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A {@link StateStore} on heap maps, for tests and for tasks that need no durable local state. It
 * behaves as {@link LmdbStateStore} does: unsigned key order, the same maximum key size ({@value
 * #MAX_KEY_SIZE} bytes, LMDB's default), one writer at a time on one thread, snapshot reads.
 *
 * <p>Committed state is a set of sorted maps that are never modified once published. A write
 * transaction copies a table on its first write to it and publishes its copies on commit, so an
 * aborted transaction leaves no trace and a read transaction is a reference to the maps committed
 * when it began. A commit therefore costs time proportional to the size of the tables it wrote to:
 * fine for tests, not for large state.
 *
 * <p>The store keeps the arrays passed to {@link WriteTxn#put} (the caller gave up ownership) and
 * returns copies from reads.
 */
public final class InMemoryStateStore implements StateStore {

  /** Largest key accepted, LMDB's default maximum key size. */
  public static final int MAX_KEY_SIZE = 511;

  private static final String WHERE = "in-memory store";

  private final Object lock = new Object();
  private EnumMap<Table, NavigableMap<byte[], byte[]>> committed; // guarded by lock
  private int openReads; // guarded by lock
  private MemoryWriteTxn writer; // guarded by lock
  private boolean closed; // guarded by lock

  /** An empty store. */
  public InMemoryStateStore() {
    committed = new EnumMap<>(Table.class);
    for (Table table : Table.values()) {
      committed.put(table, new TreeMap<>(StoreChecks.UNSIGNED));
    }
  }

  @Override
  public WriteTxn beginWrite() {
    synchronized (lock) {
      checkOpen();
      if (writer != null) {
        throw new IllegalStateException(
            "a write transaction is already open on the "
                + WHERE
                + " (begun on thread "
                + writer.owner.getName()
                + "): one writer at a time");
      }
      writer = new MemoryWriteTxn(new EnumMap<>(committed));
      return writer;
    }
  }

  @Override
  public ReadTxn beginRead() {
    synchronized (lock) {
      checkOpen();
      openReads++;
      return new MemoryReadTxn(committed);
    }
  }

  @Override
  public StoreStats stats() {
    EnumMap<Table, NavigableMap<byte[], byte[]>> snapshot;
    synchronized (lock) {
      checkOpen();
      snapshot = committed;
    }
    EnumMap<Table, Long> entries = new EnumMap<>(Table.class);
    long bytes = 0;
    for (Map.Entry<Table, NavigableMap<byte[], byte[]>> table : snapshot.entrySet()) {
      entries.put(table.getKey(), (long) table.getValue().size());
      for (Map.Entry<byte[], byte[]> e : table.getValue().entrySet()) {
        bytes += e.getKey().length + e.getValue().length;
      }
    }
    return new StoreStats(entries, bytes);
  }

  @Override
  public int maxKeySize() {
    return MAX_KEY_SIZE;
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (writer != null || openReads > 0) {
        throw new IllegalStateException(
            "cannot close the "
                + WHERE
                + ": "
                + openReads
                + " read and "
                + (writer == null ? 0 : 1)
                + " write transactions are open");
      }
      closed = true;
    }
  }

  @Override
  public String toString() {
    return "InMemoryStateStore";
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the " + WHERE + " is closed");
    }
  }

  /** Reads over a set of tables, shared by read and write transactions. */
  private abstract static class MemoryView implements ReadTxn {

    /** The tables to read, after checking this transaction may be used. */
    abstract Map<Table, NavigableMap<byte[], byte[]>> readableTables();

    void scanStarted() {}

    void scanEnded() {}

    @Override
    public byte[] get(Table table, byte[] key) {
      Map<Table, NavigableMap<byte[], byte[]>> tables = readableTables();
      StoreChecks.checkKey(table, key, MAX_KEY_SIZE, WHERE);
      byte[] value = tables.get(table).get(key);
      return value == null ? null : value.clone();
    }

    @Override
    public int scan(Table table, byte[] prefix, byte[] after, int limit, EntryVisitor visitor) {
      Map<Table, NavigableMap<byte[], byte[]>> tables = readableTables();
      StoreChecks.checkScan(table, prefix, limit, visitor);
      if (limit == 0) {
        return 0;
      }
      byte[] start = StoreChecks.scanStart(prefix, after);
      int visited = 0;
      scanStarted();
      try {
        for (Map.Entry<byte[], byte[]> e : tables.get(table).tailMap(start, true).entrySet()) {
          byte[] key = e.getKey();
          if (!StoreChecks.startsWith(key, prefix)) {
            break;
          }
          if (StoreChecks.isAfter(key, after)) {
            visited++;
            if (!visitor.visit(key.clone(), e.getValue().clone()) || visited >= limit) {
              break;
            }
          }
        }
      } finally {
        scanEnded();
      }
      return visited;
    }
  }

  private final class MemoryReadTxn extends MemoryView {
    private final Map<Table, NavigableMap<byte[], byte[]>> tables;
    private boolean done;

    MemoryReadTxn(Map<Table, NavigableMap<byte[], byte[]>> tables) {
      this.tables = tables;
    }

    @Override
    Map<Table, NavigableMap<byte[], byte[]>> readableTables() {
      if (done) {
        throw new IllegalStateException("read transaction on the " + WHERE + " is closed");
      }
      return tables;
    }

    @Override
    public void close() {
      if (!done) {
        done = true;
        synchronized (lock) {
          openReads--;
        }
      }
    }
  }

  private enum WriteState {
    OPEN,
    COMMITTED,
    CLOSED
  }

  /**
   * The writer: {@code tables} starts as the committed maps; a table is copied into a private map
   * ({@code copied}) before its first write.
   */
  private final class MemoryWriteTxn extends MemoryView implements WriteTxn {
    final Thread owner = Thread.currentThread();
    private final EnumMap<Table, NavigableMap<byte[], byte[]>> tables;
    private final EnumSet<Table> copied = EnumSet.noneOf(Table.class);
    private WriteState state = WriteState.OPEN;
    private int scanDepth;

    MemoryWriteTxn(EnumMap<Table, NavigableMap<byte[], byte[]>> tables) {
      this.tables = tables;
    }

    @Override
    Map<Table, NavigableMap<byte[], byte[]>> readableTables() {
      checkUsable();
      return tables;
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
    public void put(Table table, byte[] key, byte[] value) {
      checkWritable();
      StoreChecks.checkKey(table, key, MAX_KEY_SIZE, WHERE);
      Objects.requireNonNull(value, "value");
      writable(table).put(key, value);
    }

    @Override
    public void append(Table table, byte[] key, byte[] value) {
      checkWritable();
      StoreChecks.checkKey(table, key, MAX_KEY_SIZE, WHERE);
      Objects.requireNonNull(value, "value");
      NavigableMap<byte[], byte[]> current = tables.get(table);
      if (!current.isEmpty() && StoreChecks.UNSIGNED.compare(key, current.lastKey()) <= 0) {
        throw StoreChecks.notAfterLastKey(table, key, WHERE);
      }
      writable(table).put(key, value);
    }

    @Override
    public boolean delete(Table table, byte[] key) {
      checkWritable();
      StoreChecks.checkKey(table, key, MAX_KEY_SIZE, WHERE);
      if (!tables.get(table).containsKey(key)) {
        return false;
      }
      writable(table).remove(key);
      return true;
    }

    @Override
    public long deletePrefix(Table table, byte[] prefix) {
      checkWritable();
      StoreChecks.checkPrefix(table, prefix);
      long deleted = 0;
      var range = tables.get(table).tailMap(prefix, true).keySet().iterator();
      while (range.hasNext() && StoreChecks.startsWith(range.next(), prefix)) {
        deleted++;
      }
      if (deleted > 0) {
        var keys = writable(table).tailMap(prefix, true).keySet().iterator();
        for (long i = 0; i < deleted; i++) {
          keys.next();
          keys.remove();
        }
      }
      return deleted;
    }

    @Override
    public void commit() {
      checkWritable();
      state = WriteState.COMMITTED;
      synchronized (lock) {
        committed = tables;
        writer = null;
      }
    }

    @Override
    public void close() {
      if (state != WriteState.OPEN) {
        return;
      }
      StoreChecks.checkOwner(owner, "write transaction on the " + WHERE);
      if (scanDepth > 0) {
        throw new IllegalStateException("cannot close a write transaction during its own scan");
      }
      state = WriteState.CLOSED;
      synchronized (lock) {
        writer = null;
      }
    }

    private NavigableMap<byte[], byte[]> writable(Table table) {
      if (copied.add(table)) {
        tables.put(table, new TreeMap<>(tables.get(table)));
      }
      return tables.get(table);
    }

    private void checkUsable() {
      if (state != WriteState.OPEN) {
        throw new IllegalStateException(
            "write transaction on the "
                + WHERE
                + " is "
                + (state == WriteState.COMMITTED ? "already committed" : "closed"));
      }
      StoreChecks.checkOwner(owner, "write transaction on the " + WHERE);
    }

    private void checkWritable() {
      checkUsable();
      if (scanDepth > 0) {
        throw new IllegalStateException(
            "cannot write through a transaction while it is scanning (" + WHERE + ")");
      }
    }
  }
}
