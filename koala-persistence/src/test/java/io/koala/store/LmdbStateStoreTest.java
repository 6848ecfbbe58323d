package io.koala.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LmdbStateStoreTest extends StateStoreContractTest {

  /** The smallest map {@link StoreOptions} accepts: 16 pages. */
  private static final StoreOptions TINY =
      StoreOptions.defaults().withInitialMapSizeBytes(64 << 10);

  @Override
  StateStore open(Path dir) {
    return LmdbStateStore.open(dir, StoreOptions.defaults());
  }

  @Test
  void appendsAreReplayedWhenTheMapGrows() {
    int entries = 20_000;
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      try (WriteTxn txn = tiny.beginWrite()) {
        for (int i = 0; i < entries; i++) {
          txn.append(Table.STATE, intKey(i), valueOf(i, 100));
        }
        txn.commit();
      }
      assertThat(tiny.mapSizeBytes()).isGreaterThan(TINY.initialMapSizeBytes());
      assertThat(tiny.stats().entries(Table.STATE)).isEqualTo(entries);
      try (ReadTxn txn = tiny.beginRead()) {
        for (int i = 0; i < entries; i++) {
          if (!Arrays.equals(txn.get(Table.STATE, intKey(i)), valueOf(i, 100))) {
            throw new AssertionError("appended entry " + i + " lost or wrong");
          }
        }
      }
    }
  }

  @Test
  void growsTheMapInsideOneTransactionWithoutLosingAWrite() {
    int entries = 20_000;
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      try (WriteTxn txn = tiny.beginWrite()) {
        for (int bucket = 0; bucket < 3; bucket++) {
          for (int i = 0; i < 100; i++) {
            txn.put(
                Table.TIMERS, KeyLayout.stateKey(bucket, intKey(i), 0, new byte[0]), value("t"));
          }
        }
        txn.commit();
      }
      try (WriteTxn txn = tiny.beginWrite()) {
        // deletes made before the map fills are replayed with everything else
        assertThat(txn.deletePrefix(Table.TIMERS, KeyLayout.bucketPrefix(1))).isEqualTo(100);
        assertThat(txn.delete(Table.TIMERS, KeyLayout.stateKey(2, intKey(0), 0, new byte[0])))
            .isTrue();
        for (int i = 0; i < entries; i++) {
          txn.put(Table.STATE, stateKey(i), valueOf(i, 100));
        }
        // the transaction was replayed into a bigger map several times and is still whole
        for (int i = 0; i < entries; i++) {
          assertThat(txn.get(Table.STATE, stateKey(i))).isEqualTo(valueOf(i, 100));
        }
        txn.commit();
      }
      assertThat(tiny.mapSizeBytes()).isGreaterThan(TINY.initialMapSizeBytes());
      assertAllPresent(tiny, entries, 100);
      assertThat(tiny.stats().entries(Table.STATE)).isEqualTo(entries);
      try (ReadTxn txn = tiny.beginRead()) {
        assertThat(txn.scan(Table.TIMERS, KeyLayout.bucketPrefix(0), (k, v) -> true))
            .isEqualTo(100);
        assertThat(txn.scan(Table.TIMERS, KeyLayout.bucketPrefix(1), (k, v) -> true)).isZero();
        assertThat(txn.scan(Table.TIMERS, KeyLayout.bucketPrefix(2), (k, v) -> true)).isEqualTo(99);
      }
    }
  }

  @Test
  void growsTheMapAcrossTransactions() {
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      for (int t = 0; t < 200; t++) {
        try (WriteTxn txn = tiny.beginWrite()) {
          for (int i = t * 50; i < (t + 1) * 50; i++) {
            txn.put(Table.STATE, stateKey(i), valueOf(i, 300));
          }
          // deletes and prefix deletes are replayed too
          txn.put(Table.TIMERS, KeyLayout.bucketPrefix(t), valueOf(t, 10));
          txn.delete(Table.TIMERS, KeyLayout.bucketPrefix(t));
          txn.commit();
        }
      }
      assertThat(tiny.mapSizeBytes()).isGreaterThan(TINY.initialMapSizeBytes());
      assertAllPresent(tiny, 200 * 50, 300);
      assertThat(tiny.stats().entries(Table.TIMERS)).isZero();
    }
  }

  @Test
  void growsTheMapForAValueLargerThanTheMap() {
    byte[] big = new byte[3 << 20];
    new Random(7).nextBytes(big);
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      try (WriteTxn txn = tiny.beginWrite()) {
        txn.put(Table.METADATA, new byte[] {1}, big);
        txn.commit();
      }
      try (ReadTxn txn = tiny.beginRead()) {
        assertThat(txn.get(Table.METADATA, new byte[] {1})).isEqualTo(big);
      }
      assertThat(tiny.mapSizeBytes()).isGreaterThan(big.length);
    }
  }

  @Test
  void refusesToGrowBeyondTheMaximum() {
    StoreOptions capped = TINY.withMaxMapSizeBytes(256 << 10);
    try (LmdbStateStore store = LmdbStateStore.open(dir.resolve("capped"), capped)) {
      try (WriteTxn txn = store.beginWrite()) {
        txn.put(Table.STATE, stateKey(-1), valueOf(-1, 10));
        txn.commit();
      }
      try (WriteTxn txn = store.beginWrite()) {
        assertThatThrownBy(
                () -> {
                  for (int i = 0; i < 10_000; i++) {
                    txn.put(Table.STATE, stateKey(i), valueOf(i, 200));
                  }
                })
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("maximum size of 262144 bytes")
            .hasMessageContaining(store.directory().toString());
        assertThatThrownBy(txn::commit).isInstanceOf(StoreException.class);
      }
      assertThat(store.mapSizeBytes()).isEqualTo(256 << 10);
      // the failed transaction left nothing behind, and the store still works
      try (WriteTxn txn = store.beginWrite()) {
        assertThat(txn.get(Table.STATE, stateKey(0))).isNull();
        assertThat(txn.get(Table.STATE, stateKey(-1))).isEqualTo(valueOf(-1, 10));
        txn.put(Table.STATE, stateKey(1), valueOf(1, 10));
        txn.commit();
      }
      assertThat(store.stats().entries(Table.STATE)).isEqualTo(2);
    }
  }

  @Test
  void growthWaitsForTheOpenReadTransactionsToClose() throws Exception {
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      try (WriteTxn txn = tiny.beginWrite()) {
        txn.put(Table.STATE, stateKey(-1), valueOf(-1, 10));
        txn.commit();
      }
      ReadTxn snapshot = tiny.beginRead();
      java.util.concurrent.atomic.AtomicReference<byte[]> seen =
          new java.util.concurrent.atomic.AtomicReference<>();
      Thread copier = // as a snapshot's copier does, it reads on and closes its transaction
          new Thread(
              () -> {
                while (!tiny.growthWaiting()) {
                  java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                }
                seen.set(snapshot.get(Table.STATE, stateKey(0)));
                snapshot.close();
              });
      copier.start();
      int entries = 2_000;
      try (WriteTxn txn = tiny.beginWrite()) {
        for (int i = 0; i < entries; i++) {
          txn.put(Table.STATE, stateKey(i), valueOf(i, 100)); // one waits for the copier
        }
        txn.commit();
      }
      copier.join();
      assertThat(seen.get()).as("the snapshot saw none of the waiting writes").isNull();
      assertThat(tiny.mapSizeBytes()).isGreaterThan(TINY.initialMapSizeBytes());
      assertAllPresent(tiny, entries, 100);
      assertThat(tiny.stats().entries(Table.STATE)).isEqualTo(entries + 1);
    }
  }

  @Test
  void aGrowthThatWaitedLongEnoughFailsAndTheWritesCanBeRetried() {
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      tiny.growthWaitMillis(20);
      try (WriteTxn txn = tiny.beginWrite()) {
        txn.put(Table.STATE, stateKey(-1), valueOf(-1, 10));
        txn.commit();
      }
      ReadTxn snapshot = tiny.beginRead();
      int entries = 2_000;
      try (WriteTxn txn = tiny.beginWrite()) {
        int failedAt = -1;
        for (int i = 0; i < entries; i++) {
          try {
            txn.put(Table.STATE, stateKey(i), valueOf(i, 100));
          } catch (StoreException e) {
            assertThat(e).hasMessageContaining("map full while 1 read transactions stayed open");
            failedAt = i;
            break;
          }
        }
        assertThat(failedAt).as("the map filled up").isPositive();
        // the commit cannot grow the map either while the snapshot is open
        assertThatThrownBy(txn::commit)
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("read transactions stayed open for 20 ms");
        assertThat(snapshot.get(Table.STATE, stateKey(0))).isNull();
        assertThat(snapshot.get(Table.STATE, stateKey(-1))).isEqualTo(valueOf(-1, 10));
        snapshot.close();
        // the failed put had no effect: retry it, then the rest; the earlier writes were kept
        for (int i = failedAt; i < entries; i++) {
          txn.put(Table.STATE, stateKey(i), valueOf(i, 100));
        }
        txn.commit();
      }
      assertAllPresent(tiny, entries, 100);
      assertThat(tiny.stats().entries(Table.STATE)).isEqualTo(entries + 1);
    }
  }

  @Test
  void aLongReadGrowsTheMapFirstWhenLessThanHalfIsFree() {
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      tiny.growthWaitMillis(0); // a growth needed while the long read is open would fail
      int filled = 0;
      long size = tiny.mapSizeBytes();
      while (tiny.mapSizeBytes() == size) { // fill until the map doubled: it held `filled` entries
        put(tiny, filled++);
      }
      int entries = filled + filled / 2; // about three quarters of the doubled map
      for (int i = filled; i < entries; i++) {
        put(tiny, i);
      }
      long grown = tiny.mapSizeBytes();
      assertThat(grown).as("no growth since").isEqualTo(2 * size);
      try (ReadTxn snapshot = tiny.beginLongRead()) {
        assertThat(tiny.mapSizeBytes()).as("grown before the read began").isGreaterThan(grown);
        try (WriteTxn txn = tiny.beginWrite()) { // fits without a growth, which could not wait
          for (int i = entries; i < entries + filled / 2; i++) {
            txn.put(Table.STATE, stateKey(i), valueOf(i, 100));
          }
          txn.commit();
        }
        assertThat(snapshot.get(Table.STATE, stateKey(entries))).isNull();
      }
      assertAllPresent(tiny, entries + filled / 2, 100);
    }
  }

  @Test
  void aCommitIsRefusedWhileTheDiskHasLessUsableSpaceThanTheReserve() throws Exception {
    Path path = dir.resolve("reserve");
    java.nio.file.Files.createDirectories(path);
    long usable = java.nio.file.Files.getFileStore(path).getUsableSpace();
    StoreOptions reserved = StoreOptions.defaults().withMinFreeDiskBytes(usable + (1L << 40));
    try (LmdbStateStore store = LmdbStateStore.open(path, reserved)) {
      try (WriteTxn txn = store.beginWrite()) {
        txn.put(Table.STATE, stateKey(1), valueOf(1, 10));
        assertThatThrownBy(txn::commit)
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("disk nearly full")
            .hasMessageContaining("below the reserve of")
            .hasMessageContaining("koala.store.min-free-disk")
            .hasMessageContaining(path.toString());
      }
    }
    // space returned (here: no reserve): the same write commits
    try (LmdbStateStore store = LmdbStateStore.open(path, reserved.withMinFreeDiskBytes(0))) {
      try (WriteTxn txn = store.beginWrite()) {
        assertThat(txn.get(Table.STATE, stateKey(1)))
            .as("the refused commit wrote nothing")
            .isNull();
        txn.put(Table.STATE, stateKey(1), valueOf(1, 10));
        txn.commit();
      }
      try (ReadTxn txn = store.beginRead()) {
        assertThat(txn.get(Table.STATE, stateKey(1))).isEqualTo(valueOf(1, 10));
      }
    }
  }

  /**
   * A disk that fills up fails the write whose growth of the map finds no room, with an error, and
   * the JVM lives: with LMDB writing through its map into a sparse file it died of SIGBUS. Once
   * space returns, the same store grows and commits again. Runs where the test may mount a small
   * tmpfs (as root).
   */
  @Test
  void aFullDiskFailsTheWriteThatMeetsItsEndAndTheStoreGoesOnOnceSpaceReturns() throws Exception {
    Path mount = dir.resolve("small-disk");
    java.nio.file.Files.createDirectories(mount);
    org.junit.jupiter.api.Assumptions.assumeTrue(
        run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mount.toString()),
        "mounting a 4 MiB tmpfs needs root");
    try {
      Path ballast = mount.resolve("ballast");
      java.nio.file.Files.write(ballast, new byte[3 << 20]);
      assertThat(FileSpace.available()).as("a writable map, its file allocated ahead").isTrue();
      StoreOptions noReserve = TINY.withMinFreeDiskBytes(0);
      try (LmdbStateStore store = LmdbStateStore.open(mount.resolve("store"), noReserve)) {
        StoreException full = null;
        int committed = 0;
        while (full == null && committed < 10_000) {
          try (WriteTxn txn = store.beginWrite()) {
            txn.put(Table.STATE, stateKey(committed), valueOf(committed, 1_000));
            txn.commit();
            committed++;
          } catch (StoreException e) {
            full = e;
          }
        }
        assertThat(full).as("the disk filled up after %d commits", committed).isNotNull();
        assertThat(full.getMessage().toLowerCase(java.util.Locale.ROOT))
            .contains("no space left")
            .contains(mount.toString());
        assertAllPresent(store, committed, 1_000);
        java.nio.file.Files.delete(ballast); // space returns
        try (WriteTxn txn = store.beginWrite()) {
          txn.put(Table.STATE, stateKey(committed), valueOf(committed, 1_000));
          txn.commit();
        }
        assertAllPresent(store, committed + 1, 1_000);
      }
    } finally {
      assertThat(run("umount", "-l", mount.toString())).as("unmounted").isTrue();
    }
  }

  private static void put(StateStore store, int i) {
    try (WriteTxn txn = store.beginWrite()) {
      txn.put(Table.STATE, stateKey(i), valueOf(i, 100));
      txn.commit();
    }
  }

  private static boolean run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    boolean ok = p.waitFor() == 0;
    if (!ok) {
      System.out.println(String.join(" ", command) + ": " + out.strip());
    }
    return ok;
  }

  @Test
  void aCommitRetriedAfterTheReadersClosedKeepsEveryWrite() {
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      tiny.growthWaitMillis(20);
      WriteTxn txn = tiny.beginWrite();
      // fill part of the map without a reader, then open one and let the commit need growth
      int written = 0;
      ReadTxn snapshot = null;
      try {
        for (; written < 100_000; written++) {
          if (written == 300) {
            snapshot = tiny.beginRead();
          }
          txn.put(Table.STATE, stateKey(written), valueOf(written, 50));
        }
      } catch (StoreException e) {
        assertThat(e).hasMessageContaining("read transactions stayed open");
      }
      assertThat(snapshot).isNotNull();
      snapshot.close();
      txn.commit();
      txn.close();
      assertAllPresent(tiny, written, 50);
      assertThat(tiny.stats().entries(Table.STATE)).isEqualTo(written);
    }
  }

  @Test
  void reopeningTheDirectorySeesCommittedData() {
    Path path = dir.resolve("reopen");
    try (LmdbStateStore first = LmdbStateStore.open(path, TINY)) {
      try (WriteTxn txn = first.beginWrite()) {
        for (int i = 0; i < 5_000; i++) {
          txn.put(Table.STATE, stateKey(i), valueOf(i, 100));
        }
        txn.commit();
      }
      try (WriteTxn txn = first.beginWrite()) {
        txn.put(Table.STATE, stateKey(-5), valueOf(-5, 10)); // aborted
      }
    }
    try (LmdbStateStore second = LmdbStateStore.open(path, TINY)) {
      // LMDB opens the map at least as large as the data, whatever the configured size
      assertThat(second.mapSizeBytes()).isGreaterThan(TINY.initialMapSizeBytes());
      assertAllPresent(second, 5_000, 100);
      try (ReadTxn txn = second.beginRead()) {
        assertThat(txn.get(Table.STATE, stateKey(-5))).isNull();
      }
      try (WriteTxn txn = second.beginWrite()) {
        for (int i = 5_000; i < 10_000; i++) {
          txn.put(Table.STATE, stateKey(i), valueOf(i, 100));
        }
        txn.commit();
      }
      assertAllPresent(second, 10_000, 100);
    }
  }

  @Test
  void statsCountPagesInUse() {
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
      long empty = tiny.stats().bytes();
      try (WriteTxn txn = tiny.beginWrite()) {
        for (int i = 0; i < 1_000; i++) {
          txn.put(Table.STATE, stateKey(i), valueOf(i, 100));
        }
        txn.commit();
      }
      long used = tiny.stats().bytes();
      assertThat(used)
          .isGreaterThan(empty)
          .isGreaterThanOrEqualTo(1_000L * 100)
          .isEqualTo(used / 4096 * 4096);
    }
  }

  private static byte[] stateKey(int i) {
    byte[] key = {0, 0, 0, 0, (byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i};
    return KeyLayout.stateKey(Math.floorMod(i, 64), key, 1, new byte[0]);
  }

  /** A value of {@code length} bytes that differs for every {@code i}. */
  private static byte[] valueOf(int i, int length) {
    byte[] value = new byte[length];
    Arrays.fill(value, (byte) i);
    value[0] = (byte) (i >>> 24);
    value[1] = (byte) (i >>> 16);
    value[2] = (byte) (i >>> 8);
    return value;
  }

  private static void assertAllPresent(StateStore store, int entries, int length) {
    try (ReadTxn txn = store.beginRead()) {
      for (int i = 0; i < entries; i++) {
        byte[] actual = txn.get(Table.STATE, stateKey(i));
        if (!Arrays.equals(actual, valueOf(i, length))) {
          throw new AssertionError("entry " + i + " lost or wrong: " + Arrays.toString(actual));
        }
      }
    }
  }
}
