package io.koala.bench;

import io.koala.checkpoint.SnapshotFile;
import io.koala.checkpoint.SnapshotHandle;
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
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The snapshot file of one task's LMDB store, without the runtime around it: loads {@code keys}
 * state entries of {@code stateBytes} random bytes in random key order, then writes the store's
 * snapshot with {@link SnapshotFile#write} again and again (a fresh file each time, fsync included,
 * deleted after) for the warm-up and the measured seconds, and reports the measured writes: wall
 * and writing-thread CPU time per snapshot (median and best), the bytes the writing thread
 * allocated per snapshot (garbage that collections, which stop the task threads too, pay for),
 * entries and MB per second. Then it verifies the file and restores it once with {@link
 * SnapshotFile#restore} into a fresh store. Everything goes under one temporary directory, deleted
 * at the end.
 */
public final class SnapshotBench {
  private static final int BUCKETS = 1024;
  private static final byte[] NO_NAMESPACE = new byte[0];
  private static final int LOAD_TXN_ENTRIES = 65_536;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private SnapshotBench() {}

  /** Runs the bench with {@code s.keys()} entries of {@code s.stateBytes()}. */
  public static BenchResult run(BenchSettings s) throws IOException {
    if (s.keys() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("at most " + Integer.MAX_VALUE + " keys, got " + s.keys());
    }
    int keys = (int) s.keys();
    Path dir = Files.createTempDirectory("koala-snapshot-bench");
    StoreOptions options = StoreOptions.defaults().withInitialMapSizeBytes(8L << 30);
    try (LmdbStateStore source = LmdbStateStore.open(dir.resolve("source"), options)) {
      long start = System.nanoTime();
      load(source, keys, s.stateBytes(), s.seed());
      System.err.printf(
          "snapshot bench: loaded %,d entries in %.1f s, %,d bytes of pages%n",
          keys, seconds(start), source.stats().bytes());
      write(source, dir, s.warmupSeconds(), 0);
      double[] wall = new double[1 << 16];
      double[] cpu = new double[wall.length];
      double[] allocated = new double[wall.length];
      int n = write(source, dir, s.seconds(), Math.max(1, s.seconds()), wall, cpu, allocated);
      Path file = dir.resolve("last.snap");
      SnapshotHandle handle = snapshot(source, file);
      start = System.nanoTime();
      SnapshotFile.verify(file);
      double verify = seconds(start);
      double restore;
      try (LmdbStateStore into = LmdbStateStore.open(dir.resolve("restored"), options)) {
        start = System.nanoTime();
        SnapshotFile.restore(file, into);
        restore = seconds(start);
        check(into, keys, s.stateBytes(), s.seed());
      }
      double medianWall = median(wall, n);
      return new BenchResult()
          .put("workload", "snapshot")
          .put("entries", handle.totalEntries())
          .put("fileBytes", handle.bytes())
          .put("snapshots", n)
          .put("writeMsMedian", round(medianWall * 1e3))
          .put("writeMsBest", round(min(wall, n) * 1e3))
          .put("writeCpuMsMedian", round(median(cpu, n) * 1e3))
          .put("writeAllocatedMbMedian", round(median(allocated, n) / 1e6))
          .put("entriesPerSecond", (long) (handle.totalEntries() / medianWall))
          .put("megabytesPerSecond", round(handle.bytes() / 1e6 / medianWall))
          .put("verifyMs", round(verify * 1e3))
          .put("restoreMs", round(restore * 1e3))
          .put("cores", Runtime.getRuntime().availableProcessors());
    } finally {
      Directories.delete(dir);
    }
  }

  /** Writes snapshots for {@code seconds} (at least {@code min} of them), discarding the times. */
  private static void write(StateStore store, Path dir, int seconds, int min) {
    write(store, dir, seconds, min, new double[1], new double[1], new double[1]);
  }

  /**
   * Writes snapshots for {@code seconds} (at least {@code min}, at most {@code wall.length}),
   * recording each one's wall and CPU seconds and allocated bytes; returns how many it wrote.
   */
  private static int write(
      StateStore store,
      Path dir,
      int seconds,
      int min,
      double[] wall,
      double[] cpu,
      double[] allocated) {
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    int n = 0;
    while ((n < min || System.nanoTime() < end) && n < wall.length) {
      Path file = dir.resolve("snap-" + n);
      long allocatedStart = THREADS.getCurrentThreadAllocatedBytes();
      long cpuStart = THREADS.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      snapshot(store, file);
      wall[n] = seconds(start);
      cpu[n] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
      allocated[n] = THREADS.getCurrentThreadAllocatedBytes() - allocatedStart;
      n++;
      try {
        Files.delete(file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return n;
  }

  private static SnapshotHandle snapshot(StateStore store, Path file) {
    try (ReadTxn txn = store.beginRead()) {
      return SnapshotFile.write(txn, "bench#0", 1, new byte[] {1, 2, 3}, file);
    }
  }

  private static void load(StateStore store, int keys, int valueBytes, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int[] order = new int[keys];
    Arrays.setAll(order, k -> k);
    for (int i = keys - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int first = 0; first < keys; first += LOAD_TXN_ENTRIES) {
      try (WriteTxn txn = store.beginWrite()) {
        for (int i = first; i < Math.min(keys, first + LOAD_TXN_ENTRIES); i++) {
          txn.put(Table.STATE, stateKey(order[i]), value(order[i], valueBytes, seed));
        }
        txn.commit();
      }
    }
  }

  /** Counts the restored entries and reads a sample of them back. */
  private static void check(StateStore store, int keys, int valueBytes, long seed) {
    if (store.stats().entries(Table.STATE) != keys) {
      throw new IllegalStateException(
          "restored " + store.stats().entries(Table.STATE) + " entries, expected " + keys);
    }
    try (ReadTxn txn = store.beginRead()) {
      for (int k = 0; k < keys; k += 9973) {
        if (!Arrays.equals(txn.get(Table.STATE, stateKey(k)), value(k, valueBytes, seed))) {
          throw new IllegalStateException("key " + k + " was not restored");
        }
      }
    }
  }

  private static byte[] stateKey(int k) {
    byte[] key = ByteBuffer.allocate(Long.BYTES).putLong(k).array();
    return KeyLayout.stateKey(Math.floorMod(Long.hashCode(mix(k)), BUCKETS), key, 1, NO_NAMESPACE);
  }

  private static byte[] value(int k, int valueBytes, long seed) {
    byte[] value = new byte[valueBytes];
    new SplittableRandom(mix(k) ^ seed).nextBytes(value);
    return value;
  }

  private static long mix(long x) {
    x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
    x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
    return x ^ (x >>> 31);
  }

  private static double median(double[] values, int n) {
    double[] sorted = Arrays.copyOf(values, n);
    Arrays.sort(sorted);
    return sorted[n / 2];
  }

  private static double min(double[] values, int n) {
    return Arrays.stream(values, 0, n).min().orElseThrow();
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
