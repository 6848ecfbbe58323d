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
  void growthWaitsForOpenReadTransactions() {
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
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
            assertThat(e).hasMessageContaining("map full while 1 read transactions are open");
            failedAt = i;
            break;
          }
        }
        assertThat(failedAt).as("the map filled up").isPositive();
        // the commit cannot grow the map either while the snapshot is open
        assertThatThrownBy(txn::commit)
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("read transactions are open");
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
  void aCommitRetriedAfterTheReadersClosedKeepsEveryWrite() {
    try (LmdbStateStore tiny = LmdbStateStore.open(dir.resolve("tiny"), TINY)) {
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
        assertThat(e).hasMessageContaining("read transactions are open");
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
