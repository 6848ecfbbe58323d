package io.koala.checkpoint;

import io.koala.store.KeyLayout;
import io.koala.store.LmdbStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.StoreOptions;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Snapshot and restore of about 1 GB of state on {@link LmdbStateStore}: loads {@code keys} state
 * entries of {@code valueBytes} random bytes (default 4,194,304 × 256 B) in random key order,
 * writes the snapshot, verifies it, then restores it {@code rounds} times each way into fresh
 * stores, alternating which goes first: as {@link SnapshotFile#restore} does (verify pass, then
 * {@code append} in bounded transactions), and the same with plain {@code put}s, to compare. It
 * prints wall time and the restoring thread's CPU time (less sensitive to other load on the
 * machine). Not a test and not run by the build; run it by hand:
 *
 * <pre>{@code
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -pl koala-persistence
 * java -Xmx1g -cp koala-persistence/target/test-classes:koala-persistence/target/classes:$(cat koala-persistence/target/cp.txt) \
 *     io.koala.checkpoint.SnapshotBench [keys, default 4194304] [value bytes, default 256] [rounds, default 1] [data dir, default java.io.tmpdir]
 * }</pre>
 *
 * Everything it writes goes under one new directory, deleted at the end. The snapshot file is read
 * back from the page cache, as it usually is right after it was written or verified.
 */
public final class SnapshotBench {
  private static final int BUCKETS = 1024;
  private static final byte[] NO_NAMESPACE = new byte[0];
  private static final int LOAD_TXN_ENTRIES = 65_536;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private SnapshotBench() {}

  public static void main(String[] args) throws IOException {
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 4 << 20;
    int valueBytes = args.length > 1 ? Integer.parseInt(args[1]) : 256;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    Path parent =
        args.length > 3 ? Path.of(args[3]) : Path.of(System.getProperty("java.io.tmpdir"));
    Files.createDirectories(parent);
    Path dir = Files.createTempDirectory(parent, "koala-snapbench");
    StoreOptions options = StoreOptions.defaults().withInitialMapSizeBytes(4L << 30);
    System.out.printf(
        "%,d keys x %,d B values, %d cores, data under %s%n",
        keys, valueBytes, Runtime.getRuntime().availableProcessors(), dir);
    try {
      Path file = dir.resolve("chk-1").resolve("task.snap");
      try (LmdbStateStore source = LmdbStateStore.open(dir.resolve("source"), options)) {
        long start = System.nanoTime();
        load(source, keys, valueBytes);
        System.out.printf(
            "load:      %6.1f s into LMDB (random key order), %,d bytes of pages%n",
            seconds(start), source.stats().bytes());
        start = System.nanoTime();
        SnapshotHandle handle;
        try (ReadTxn txn = source.beginRead()) {
          handle = SnapshotFile.write(txn, "bench#0", 1, new byte[] {1, 2, 3}, file);
        }
        double write = seconds(start);
        System.out.printf(
            "write:     %6.1f s, %,d bytes, %,.0f MB/s (%,d entries; fsync included)%n",
            write, handle.bytes(), handle.bytes() / 1e6 / write, handle.totalEntries());
      }
      long start = System.nanoTime();
      SnapshotFile.verify(file);
      double verify = seconds(start);
      System.out.printf(
          "verify:    %6.1f s, %,.0f MB/s%n", verify, Files.size(file) / 1e6 / verify);

      double[] best = {Double.MAX_VALUE, Double.MAX_VALUE};
      for (int round = 0; round < rounds; round++) {
        // alternate which goes first, so neither always meets the other's writeback
        for (int i = 0; i < 2; i++) {
          boolean append = (round + i) % 2 == 0;
          double restore = restore(dir.resolve("restored"), file, options, append);
          best[append ? 0 : 1] = Math.min(best[append ? 0 : 1], restore);
          check(dir.resolve("restored"), options, keys, valueBytes);
          deleteRecursively(dir.resolve("restored"));
        }
      }
      System.out.printf(
          "best of %d: restore %.1f s with append, %.1f s with put%n", rounds, best[0], best[1]);
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void load(StateStore store, int keys, int valueBytes) {
    SplittableRandom random = new SplittableRandom(1);
    for (int first = 0; first < keys; first += LOAD_TXN_ENTRIES) {
      try (WriteTxn txn = store.beginWrite()) {
        for (int k = first; k < Math.min(keys, first + LOAD_TXN_ENTRIES); k++) {
          byte[] value = new byte[valueBytes];
          random.nextBytes(value);
          txn.put(Table.STATE, stateKey(k), value);
        }
        txn.commit();
      }
    }
  }

  /**
   * Restores {@code file} into a fresh store in {@code dir}, as {@link SnapshotFile#restore} does
   * (verify, then load) but with a choice of {@code append} or {@code put}.
   *
   * @return seconds taken
   */
  private static double restore(Path dir, Path file, StoreOptions options, boolean append)
      throws IOException {
    try (LmdbStateStore into = LmdbStateStore.open(dir, options)) {
      long start = System.nanoTime();
      long cpuStart = THREADS.getCurrentThreadCpuTime();
      SnapshotFile.verify(file);
      try (Loader loader = new Loader(into, append)) {
        SnapshotReader.read(file, loader);
        loader.commit();
      }
      double restore = seconds(start);
      double cpu = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
      System.out.printf(
          "restore:   %6.1f s with %-6s (verify pass included; %.1f s of its thread's CPU),"
              + " %,.0f MB/s of file; %,d bytes of pages%n",
          restore,
          append ? "append" : "put",
          cpu,
          Files.size(file) / 1e6 / restore,
          into.stats().bytes());
      return restore;
    }
  }

  private static void check(Path dir, StoreOptions options, int keys, int valueBytes) {
    try (LmdbStateStore store = LmdbStateStore.open(dir, options)) {
      check(store, keys, valueBytes);
    }
  }

  /** Counts the entries and reads a sample of keys back. */
  private static void check(StateStore store, int keys, int valueBytes) {
    if (store.stats().entries(Table.STATE) != keys) {
      throw new AssertionError(
          "restored " + store.stats().entries(Table.STATE) + " entries, expected " + keys);
    }
    try (ReadTxn txn = store.beginRead()) {
      for (int k = 0; k < keys; k += 9973) {
        byte[] value = txn.get(Table.STATE, stateKey(k));
        if (value == null || value.length != valueBytes) {
          throw new AssertionError("key " + k + " was not restored");
        }
      }
    }
  }

  private static byte[] stateKey(int k) {
    byte[] key = ByteBuffer.allocate(8).putLong(k).array();
    return KeyLayout.stateKey((int) Math.floorMod(mix(k), (long) BUCKETS), key, 1, NO_NAMESPACE);
  }

  private static long mix(long x) {
    x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
    x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
    return x ^ (x >>> 31);
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  /** {@link SnapshotFile}'s loader, with a choice of {@code put} or {@code append}. */
  private static final class Loader implements SnapshotReader.EntrySink, AutoCloseable {
    private final StateStore store;
    private final boolean append;
    private WriteTxn txn;
    private int entries;
    private long bytes;

    Loader(StateStore store, boolean append) {
      this.store = store;
      this.append = append;
    }

    @Override
    public void entry(Table table, byte[] key, byte[] value) {
      if (txn == null) {
        txn = store.beginWrite();
      }
      if (append) {
        txn.append(table, key, value);
      } else {
        txn.put(table, key, value);
      }
      entries++;
      bytes += key.length + value.length;
      if (entries >= SnapshotFile.RESTORE_TXN_ENTRIES || bytes >= SnapshotFile.RESTORE_TXN_BYTES) {
        commit();
      }
    }

    void commit() {
      if (txn != null) {
        txn.commit();
        txn.close();
        txn = null;
        entries = 0;
        bytes = 0;
      }
    }

    @Override
    public void close() {
      if (txn != null) {
        txn.close();
      }
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
