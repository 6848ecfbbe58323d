package io.koala.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The behaviour every {@link StateStore} backend must share. Each backend runs this suite through a
 * subclass that says how to open it; tests specific to one backend live in that subclass.
 */
abstract class StateStoreContractTest {
  private static final HexFormat HEX = HexFormat.of();

  /** The model's key order, written out here rather than taken from the code under test. */
  private static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;

  /** Seeds the random test always runs; one more, printed, rotates per run. */
  private static final long[] FIXED_SEEDS = {1L, 42L, 20240917L};

  @TempDir Path dir;

  StateStore store;

  /** Opens a store of the backend under test, keeping its files (if any) under {@code dir}. */
  abstract StateStore open(Path dir);

  @BeforeEach
  void openStore() {
    store = open(dir.resolve("store"));
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void putGetDelete() {
    try (WriteTxn txn = store.beginWrite()) {
      txn.put(Table.STATE, key("a"), value("1"));
      assertThat(txn.get(Table.STATE, key("a"))).isEqualTo(value("1"));
      assertThat(txn.get(Table.STATE, key("b"))).isNull();
      txn.commit();
    }
    try (WriteTxn txn = store.beginWrite()) {
      assertThat(txn.delete(Table.STATE, key("a"))).isTrue();
      assertThat(txn.delete(Table.STATE, key("a"))).isFalse();
      assertThat(txn.delete(Table.STATE, key("never"))).isFalse();
      assertThat(txn.get(Table.STATE, key("a"))).isNull();
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(txn.get(Table.STATE, key("a"))).isNull();
    }
  }

  @Test
  void emptyValuesAreValues() {
    write(txn -> txn.put(Table.STATE, key("a"), new byte[0]));
    try (ReadTxn txn = store.beginRead()) {
      assertThat(txn.get(Table.STATE, key("a"))).isEmpty();
    }
  }

  @Test
  void getReturnsACopyTheCallerOwns() {
    write(txn -> txn.put(Table.STATE, key("a"), value("1")));
    try (ReadTxn txn = store.beginRead()) {
      byte[] first = txn.get(Table.STATE, key("a"));
      first[0] = 'X';
      assertThat(txn.get(Table.STATE, key("a"))).isEqualTo(value("1"));
    }
  }

  @Test
  void overwriteReplacesTheValue() {
    write(txn -> txn.put(Table.STATE, key("a"), value("short")));
    try (WriteTxn txn = store.beginWrite()) {
      assertThat(txn.get(Table.STATE, key("a"))).isEqualTo(value("short"));
      txn.put(Table.STATE, key("a"), value("a much longer value than before"));
      assertThat(txn.get(Table.STATE, key("a")))
          .isEqualTo(value("a much longer value than before"));
      txn.put(Table.STATE, key("a"), value("x"));
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(txn.get(Table.STATE, key("a"))).isEqualTo(value("x"));
      assertThat(scanAll(txn, Table.STATE, new byte[0]))
          .containsExactly(entry(key("a"), value("x")));
    }
  }

  @Test
  void writeTransactionReadsItsOwnWrites() {
    write(
        txn -> {
          txn.put(Table.STATE, key("a1"), value("old"));
          txn.put(Table.STATE, key("a2"), value("2"));
        });
    try (WriteTxn txn = store.beginWrite()) {
      txn.put(Table.STATE, key("a1"), value("new"));
      txn.put(Table.STATE, key("a3"), value("3"));
      txn.delete(Table.STATE, key("a2"));
      assertThat(txn.get(Table.STATE, key("a1"))).isEqualTo(value("new"));
      assertThat(txn.get(Table.STATE, key("a2"))).isNull();
      assertThat(scanAll(txn, Table.STATE, key("a")))
          .containsExactly(entry(key("a1"), value("new")), entry(key("a3"), value("3")));
      assertThat(txn.deletePrefix(Table.STATE, key("a"))).isEqualTo(2);
      assertThat(scanAll(txn, Table.STATE, key("a"))).isEmpty();
      txn.commit();
    }
  }

  @Test
  void appendTakesKeysInIncreasingOrderOnly() {
    write(
        txn -> {
          txn.append(Table.STATE, key("b"), value("1"));
          txn.append(Table.STATE, key("c"), value("2"));
          txn.append(Table.TIMERS, key("a"), value("t")); // each table has its own order
        });
    try (WriteTxn txn = store.beginWrite()) {
      txn.append(Table.STATE, key("d"), value("3")); // after the committed keys
      txn.delete(Table.STATE, key("b"));
      for (String notAfter : new String[] {"d", "a", "c"}) {
        assertThatThrownBy(() -> txn.append(Table.STATE, key(notAfter), value("x")))
            .as(notAfter)
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("table STATE")
            .hasMessageContaining("does not sort after the table's last key");
      }
      // a refused append has no effect and the transaction goes on with its earlier writes
      txn.put(Table.STATE, key("a"), value("0"));
      txn.append(Table.STATE, key("e"), value("4"));
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(scanAll(txn, Table.STATE, new byte[0]))
          .containsExactly(
              entry(key("a"), value("0")),
              entry(key("c"), value("2")),
              entry(key("d"), value("3")),
              entry(key("e"), value("4")));
      assertThat(scanAll(txn, Table.TIMERS, new byte[0]))
          .containsExactly(entry(key("a"), value("t")));
    }
  }

  @Test
  void appendChecksKeysAsPutDoes() {
    try (WriteTxn txn = store.beginWrite()) {
      assertThatThrownBy(() -> txn.append(Table.STATE, new byte[0], value("v")))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("empty");
      byte[] tooLong = new byte[store.maxKeySize() + 1];
      Arrays.fill(tooLong, (byte) 0xFF);
      assertThatThrownBy(() -> txn.append(Table.STATE, tooLong, value("v")))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("exceeds");
    }
  }

  @Test
  void abortedTransactionLeavesNoTrace() {
    write(
        txn -> {
          txn.put(Table.STATE, key("keep1"), value("1"));
          txn.put(Table.STATE, key("keep2"), value("2"));
          txn.put(Table.TIMERS, key("t"), value("t"));
        });
    List<String> before = everything();
    try (WriteTxn txn = store.beginWrite()) {
      txn.put(Table.STATE, key("new"), value("n"));
      txn.put(Table.STATE, key("keep1"), value("changed"));
      txn.delete(Table.STATE, key("keep2"));
      txn.deletePrefix(Table.TIMERS, new byte[0]);
      // closed without commit
    }
    assertThat(everything()).isEqualTo(before);
    try (WriteTxn txn = store.beginWrite()) {
      assertThat(txn.get(Table.STATE, key("new"))).isNull();
      assertThat(txn.get(Table.STATE, key("keep1"))).isEqualTo(value("1"));
    }
  }

  @Test
  void committedDataIsVisibleToLaterTransactions() {
    write(txn -> txn.put(Table.STATE, key("a"), value("1")));
    try (ReadTxn txn = store.beginRead()) {
      assertThat(txn.get(Table.STATE, key("a"))).isEqualTo(value("1"));
    }
    try (WriteTxn txn = store.beginWrite()) {
      assertThat(txn.get(Table.STATE, key("a"))).isEqualTo(value("1"));
      txn.put(Table.STATE, key("b"), value("2"));
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(scanAll(txn, Table.STATE, new byte[0]))
          .containsExactly(entry(key("a"), value("1")), entry(key("b"), value("2")));
    }
  }

  @Test
  void scanVisitsAPrefixInUnsignedOrder() {
    byte[][] inPrefix = {
      bytes(0x10), bytes(0x10, 0x00), bytes(0x10, 0x01), bytes(0x10, 0x7F),
      bytes(0x10, 0x80), bytes(0x10, 0x80, 0x00), bytes(0x10, 0xFF), bytes(0x10, 0xFF, 0xFF)
    };
    byte[][] outside = {bytes(0x0F, 0xFF), bytes(0x11), bytes(0x90, 0x10), bytes(0x00)};
    write(
        txn -> {
          // inserted in reverse so insertion order cannot pass for key order
          for (int i = inPrefix.length - 1; i >= 0; i--) {
            txn.put(Table.STATE, inPrefix[i], value("v" + i));
          }
          for (byte[] k : outside) {
            txn.put(Table.STATE, k, value("out"));
          }
        });
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < inPrefix.length; i++) {
      expected.add(entry(inPrefix[i], value("v" + i)));
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(scanAll(txn, Table.STATE, bytes(0x10))).containsExactlyElementsOf(expected);
      assertThat(scanAll(txn, Table.STATE, bytes(0x10, 0x80)))
          .containsExactly(
              entry(bytes(0x10, 0x80), value("v4")), entry(bytes(0x10, 0x80, 0x00), value("v5")));
      List<String> all = scanAll(txn, Table.STATE, new byte[0]);
      assertThat(all).hasSize(inPrefix.length + outside.length);
      assertThat(all.get(0)).startsWith("00=");
      assertThat(all.get(all.size() - 1)).startsWith("9010=");
      assertThat(scanAll(txn, Table.STATE, bytes(0x12))).isEmpty();
    }
  }

  @Test
  void scanWithAfterAndLimitPagesThroughABucket() {
    int bucket = 0x0180; // a low byte >= 0x80: signed order would put its keys first
    NavigableMap<byte[], byte[]> model = new TreeMap<>(UNSIGNED);
    for (int i = 0; i < 23; i++) {
      model.put(KeyLayout.stateKey(bucket, bytes(i * 11), 1, new byte[0]), value("v" + i));
    }
    List<String> expected = entries(model);
    write(
        txn -> {
          model.forEach((k, v) -> txn.put(Table.STATE, k, v));
          txn.put(
              Table.STATE, KeyLayout.stateKey(bucket - 1, bytes(0xFF), 1, new byte[0]), value("x"));
          txn.put(
              Table.STATE, KeyLayout.stateKey(bucket + 1, bytes(0x00), 1, new byte[0]), value("x"));
        });
    byte[] prefix = KeyLayout.bucketPrefix(bucket);
    try (ReadTxn txn = store.beginRead()) {
      List<String> paged = new ArrayList<>();
      byte[] after = null;
      int pages = 0;
      while (true) {
        List<byte[]> keys = new ArrayList<>();
        int n =
            txn.scan(
                Table.STATE,
                prefix,
                after,
                5,
                (k, v) -> {
                  keys.add(k);
                  paged.add(entry(k, v));
                  return true;
                });
        assertThat(n).isEqualTo(keys.size()).isLessThanOrEqualTo(5);
        if (n == 0) {
          break;
        }
        pages++;
        after = keys.get(keys.size() - 1);
      }
      assertThat(pages).isEqualTo(5);
      assertThat(paged).containsExactlyElementsOf(expected);
      assertThat(scanAll(txn, Table.STATE, prefix)).containsExactlyElementsOf(expected);

      // an `after` below the prefix starts at the prefix; one above every key visits nothing
      assertThat(txn.scan(Table.STATE, prefix, bytes(0x00), 100, (k, v) -> true)).isEqualTo(23);
      assertThat(txn.scan(Table.STATE, prefix, bytes(0x01, 0x81), 100, (k, v) -> true)).isZero();
      // an `after` that is not a stored key, and a limit of zero
      byte[] between = KeyLayout.stateKey(bucket, bytes(5), 1, new byte[0]);
      assertThat(txn.scan(Table.STATE, prefix, between, 100, (k, v) -> true)).isEqualTo(22);
      assertThat(txn.scan(Table.STATE, prefix, null, 0, (k, v) -> true)).isZero();
      // an `after` longer than any key can be
      byte[] huge = new byte[store.maxKeySize() + 50];
      System.arraycopy(prefix, 0, huge, 0, prefix.length);
      assertThat(txn.scan(Table.STATE, prefix, huge, 100, (k, v) -> true)).isEqualTo(23);
      assertThatThrownBy(() -> txn.scan(Table.STATE, prefix, null, -1, (k, v) -> true))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void scanPrefixesVisitsEachPrefixInTurnInWhateverOrder() {
    write(
        txn -> {
          for (int i = 0; i < 4; i++) {
            txn.put(Table.STATE, bytes(0x01, i), value("a" + i));
            txn.put(Table.STATE, bytes(0x03, 0x80 + i), value("c" + i));
          }
          txn.put(Table.STATE, bytes(0x02), value("b"));
          txn.put(Table.STATE, bytes(0x04, 0x00), value("d"));
        });
    byte[] huge = new byte[store.maxKeySize() + 1];
    // ascending, one prefix without entries, one longer than any key; then out of order, twice
    List<byte[]> sorted = List.of(bytes(0x01), bytes(0x01, 0x02, 0x00), bytes(0x03), huge);
    List<byte[]> shuffled = List.of(bytes(0x03, 0x81), bytes(0x01, 0x01), bytes(0x03, 0x81));
    try (ReadTxn txn = store.beginRead()) {
      List<String> seen = new ArrayList<>();
      long n = txn.scanPrefixes(Table.STATE, sorted, (i, k, v) -> seen.add(i + ":" + entry(k, v)));
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        expected.add("0:" + entry(bytes(0x01, i), value("a" + i)));
      }
      for (int i = 0; i < 4; i++) {
        expected.add("2:" + entry(bytes(0x03, 0x80 + i), value("c" + i)));
      }
      assertThat(seen).containsExactlyElementsOf(expected);
      assertThat(n).isEqualTo(8);

      seen.clear();
      txn.scanPrefixes(Table.STATE, shuffled, (i, k, v) -> seen.add(i + ":" + entry(k, v)));
      assertThat(seen)
          .containsExactly(
              "0:" + entry(bytes(0x03, 0x81), value("c1")),
              "1:" + entry(bytes(0x01, 0x01), value("a1")),
              "2:" + entry(bytes(0x03, 0x81), value("c1")));

      seen.clear();
      n =
          txn.scanPrefixes(
              Table.STATE,
              sorted,
              (i, k, v) -> {
                seen.add(i + ":" + entry(k, v));
                return seen.size() < 6;
              });
      assertThat(n).isEqualTo(6);
      assertThat(seen).containsExactlyElementsOf(expected.subList(0, 6));
    }
  }

  @Test
  void scanStopsWhenTheVisitorSaysSo() {
    write(
        txn -> {
          for (int i = 0; i < 10; i++) {
            txn.put(Table.STATE, bytes(0x01, i), value("v" + i));
          }
        });
    try (ReadTxn txn = store.beginRead()) {
      List<String> seen = new ArrayList<>();
      int n =
          txn.scan(
              Table.STATE,
              bytes(0x01),
              (k, v) -> {
                seen.add(entry(k, v));
                return seen.size() < 3;
              });
      assertThat(n).isEqualTo(3);
      assertThat(seen)
          .containsExactly(
              entry(bytes(0x01, 0), value("v0")),
              entry(bytes(0x01, 1), value("v1")),
              entry(bytes(0x01, 2), value("v2")));
    }
  }

  @Test
  void deletePrefixRemovesExactlyOneBucket() {
    // buckets 0x0001, 0x0100 and 0x01FF around 0x0101 differ from it in one byte each
    int[] buckets = {0x0001, 0x0100, 0x0101, 0x01FF, 0x0201};
    write(
        txn -> {
          for (int b : buckets) {
            for (int i = 0; i < 2000; i++) {
              txn.put(
                  Table.STATE, KeyLayout.stateKey(b, intKey(i), 1, new byte[0]), value("v" + i));
            }
          }
        });
    List<String> untouchedBefore = new ArrayList<>();
    try (ReadTxn txn = store.beginRead()) {
      for (int b : buckets) {
        if (b != 0x0101) {
          untouchedBefore.addAll(scanAll(txn, Table.STATE, KeyLayout.bucketPrefix(b)));
        }
      }
    }
    try (WriteTxn txn = store.beginWrite()) {
      assertThat(txn.deletePrefix(Table.STATE, KeyLayout.bucketPrefix(0x0101))).isEqualTo(2000);
      assertThat(txn.deletePrefix(Table.STATE, KeyLayout.bucketPrefix(0x0101))).isZero();
      assertThat(txn.deletePrefix(Table.STATE, KeyLayout.bucketPrefix(0x0777))).isZero();
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(scanAll(txn, Table.STATE, KeyLayout.bucketPrefix(0x0101))).isEmpty();
      assertThat(scanAll(txn, Table.STATE, new byte[0])).containsExactlyElementsOf(untouchedBefore);
    }
    assertThat(store.stats().entries(Table.STATE)).isEqualTo(8000);
    try (WriteTxn txn = store.beginWrite()) {
      assertThat(txn.deletePrefix(Table.STATE, new byte[0])).isEqualTo(8000);
      txn.commit();
    }
    assertThat(store.stats().entries(Table.STATE)).isZero();
  }

  @Test
  void keyPrefixCoversAKeysWholeStateAndNothingElse() {
    int bucket = 7;
    byte[] ab = key("ab");
    byte[][] namespaces = {new byte[0], key("w1"), bytes(0xFF, 0xFF)};
    NavigableMap<byte[], byte[]> state = new TreeMap<>(UNSIGNED);
    NavigableMap<byte[], byte[]> stateId2 = new TreeMap<>(UNSIGNED);
    for (int stateId : new int[] {1, 2, -1}) {
      for (byte[] ns : namespaces) {
        byte[] k = KeyLayout.stateKey(bucket, ab, stateId, ns);
        state.put(k, value(stateId + "/" + HEX.formatHex(ns)));
        if (stateId == 2) {
          stateId2.put(k, state.get(k));
        }
      }
    }
    write(
        txn -> {
          state.forEach((k, v) -> txn.put(Table.STATE, k, v));
          // keys whose user-key bytes start with "ab", or are a prefix of it, in the same bucket
          txn.put(
              Table.STATE, KeyLayout.stateKey(bucket, key("abc"), 1, new byte[0]), value("abc"));
          txn.put(Table.STATE, KeyLayout.stateKey(bucket, key("a"), 1, new byte[0]), value("a"));
          // a user key made of "ab" followed by the bytes a state id and namespace length would
          // have
          byte[] lookalike = {'a', 'b', 0, 0, 0, 1, 0, 0};
          txn.put(Table.STATE, KeyLayout.stateKey(bucket, lookalike, 1, new byte[0]), value("l"));
          // the same key in the neighbouring buckets
          txn.put(Table.STATE, KeyLayout.stateKey(bucket - 1, ab, 1, new byte[0]), value("b-1"));
          txn.put(Table.STATE, KeyLayout.stateKey(bucket + 1, ab, 1, new byte[0]), value("b+1"));
        });
    // the length field makes key prefixes prefix-free: no other key's state starts with "ab"'s
    assertThat(
            startsWith(
                KeyLayout.stateKey(bucket, key("abc"), 1, new byte[0]),
                KeyLayout.keyPrefix(bucket, ab)))
        .isFalse();
    try (ReadTxn txn = store.beginRead()) {
      assertThat(scanAll(txn, Table.STATE, KeyLayout.keyPrefix(bucket, ab)))
          .containsExactlyElementsOf(entries(state));
      assertThat(scanAll(txn, Table.STATE, KeyLayout.statePrefix(bucket, ab, 2)))
          .containsExactlyElementsOf(entries(stateId2));
      assertThat(scanAll(txn, Table.STATE, KeyLayout.bucketPrefix(bucket))).hasSize(12);
    }
    try (WriteTxn txn = store.beginWrite()) {
      assertThat(txn.deletePrefix(Table.STATE, KeyLayout.keyPrefix(bucket, ab))).isEqualTo(9);
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(scanAll(txn, Table.STATE, KeyLayout.bucketPrefix(bucket))).hasSize(3);
      assertThat(txn.get(Table.STATE, KeyLayout.stateKey(bucket, key("abc"), 1, new byte[0])))
          .isEqualTo(value("abc"));
      assertThat(txn.get(Table.STATE, KeyLayout.stateKey(bucket - 1, ab, 1, new byte[0])))
          .isEqualTo(value("b-1"));
      assertThat(txn.get(Table.STATE, KeyLayout.stateKey(bucket + 1, ab, 1, new byte[0])))
          .isEqualTo(value("b+1"));
    }
  }

  @Test
  void tablesAreIndependent() {
    write(
        txn -> {
          for (Table t : Table.values()) {
            txn.put(t, key("same"), value(t.name()));
          }
        });
    try (WriteTxn txn = store.beginWrite()) {
      assertThat(txn.deletePrefix(Table.TIMERS, new byte[0])).isEqualTo(1);
      assertThat(txn.delete(Table.LOCATIONS, key("same"))).isTrue();
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(txn.get(Table.STATE, key("same"))).isEqualTo(value("STATE"));
      assertThat(txn.get(Table.METADATA, key("same"))).isEqualTo(value("METADATA"));
      assertThat(txn.get(Table.TIMERS, key("same"))).isNull();
      assertThat(txn.get(Table.LOCATIONS, key("same"))).isNull();
      assertThat(scanAll(txn, Table.STATE, new byte[0])).hasSize(1);
    }
    StoreStats stats = store.stats();
    assertThat(stats.entries(Table.STATE)).isEqualTo(1);
    assertThat(stats.entries(Table.TIMERS)).isZero();
  }

  @Test
  void keysLongerThanTheMaximumOrEmptyAreRejected() {
    int max = store.maxKeySize();
    assertThat(max).isEqualTo(511);
    try (WriteTxn txn = store.beginWrite()) {
      txn.put(Table.STATE, new byte[max], value("fits"));
      assertThatThrownBy(() -> txn.put(Table.STATE, new byte[max + 89], value("x")))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("600 bytes")
          .hasMessageContaining("511 bytes")
          .hasMessageContaining("STATE");
      assertThatThrownBy(() -> txn.put(Table.METADATA, new byte[0], value("x")))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("0 bytes")
          .hasMessageContaining("511");
      assertThatThrownBy(() -> txn.get(Table.STATE, new byte[max + 1]))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("512 bytes");
      assertThatThrownBy(() -> txn.delete(Table.STATE, new byte[max + 1]))
          .isInstanceOf(StoreException.class);
      // the transaction is still usable after a rejected key
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(txn.get(Table.STATE, new byte[max])).isEqualTo(value("fits"));
      assertThat(txn.scan(Table.STATE, new byte[max + 1], (k, v) -> true)).isZero();
    }
  }

  @Test
  void statsCountEntriesPerTable() {
    assertThat(store.stats().entries(Table.STATE)).isZero();
    write(
        txn -> {
          for (int i = 0; i < 100; i++) {
            txn.put(Table.STATE, intKey(i), new byte[50]);
          }
          for (int i = 0; i < 7; i++) {
            txn.put(Table.TIMERS, intKey(i), new byte[8]);
          }
        });
    StoreStats stats = store.stats();
    assertThat(stats.entries(Table.STATE)).isEqualTo(100);
    assertThat(stats.entries(Table.TIMERS)).isEqualTo(7);
    assertThat(stats.entries(Table.LOCATIONS)).isZero();
    assertThat(stats.entries(Table.METADATA)).isZero();
    assertThat(stats.bytes()).isGreaterThanOrEqualTo(100L * (4 + 50) + 7L * (4 + 8));
    write(txn -> txn.deletePrefix(Table.STATE, new byte[0]));
    assertThat(store.stats().entries(Table.STATE)).isZero();
    assertThat(store.stats().bytes()).isLessThan(stats.bytes());
  }

  @Test
  void aSecondWriteTransactionIsRejected() {
    try (WriteTxn first = store.beginWrite()) {
      first.put(Table.STATE, key("a"), value("1"));
      assertThatThrownBy(() -> store.beginWrite())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("already open");
      first.commit();
    }
    try (WriteTxn second = store.beginWrite()) {
      assertThat(second.get(Table.STATE, key("a"))).isEqualTo(value("1"));
    }
  }

  @Test
  void aReadTransactionSeesTheStateWhenItBegan() {
    write(txn -> txn.put(Table.STATE, key("a"), value("1")));
    try (ReadTxn before = store.beginRead()) {
      try (WriteTxn txn = store.beginWrite()) {
        txn.put(Table.STATE, key("a"), value("2"));
        txn.put(Table.STATE, key("b"), value("2"));
        try (ReadTxn during = store.beginRead()) {
          assertThat(during.get(Table.STATE, key("a"))).isEqualTo(value("1"));
          assertThat(during.get(Table.STATE, key("b"))).isNull();
        }
        txn.commit();
      }
      assertThat(before.get(Table.STATE, key("a"))).isEqualTo(value("1"));
      assertThat(before.get(Table.STATE, key("b"))).isNull();
      assertThat(scanAll(before, Table.STATE, new byte[0]))
          .containsExactly(entry(key("a"), value("1")));
      List<String> viewed = new ArrayList<>();
      before.forEach(Table.STATE, (k, v) -> viewed.add(entry(heap(k), heap(v))));
      assertThat(viewed).containsExactly(entry(key("a"), value("1")));
    }
    try (ReadTxn after = store.beginRead()) {
      assertThat(after.get(Table.STATE, key("a"))).isEqualTo(value("2"));
      assertThat(after.get(Table.STATE, key("b"))).isEqualTo(value("2"));
    }
  }

  @Test
  void forEachVisitsATablesEntriesInOrderAsViews() {
    byte[] large = new byte[100_000];
    new Random(3).nextBytes(large);
    write(
        txn -> {
          txn.put(Table.STATE, bytes(0x80), value("high"));
          txn.put(Table.STATE, bytes(0x01, 0x02), new byte[0]);
          txn.put(Table.STATE, bytes(0x01), large);
          txn.put(Table.TIMERS, bytes(0x05), value("other table"));
        });
    try (ReadTxn txn = store.beginRead()) {
      List<String> seen = new ArrayList<>();
      long n = txn.forEach(Table.STATE, (k, v) -> seen.add(entry(heap(k), heap(v))));
      assertThat(seen)
          .containsExactly(
              entry(bytes(0x01), large),
              entry(bytes(0x01, 0x02), new byte[0]),
              entry(bytes(0x80), value("high")));
      assertThat(n).isEqualTo(3);
      assertThat(txn.forEach(Table.LOCATIONS, (k, v) -> seen.add("none expected"))).isZero();
      assertThat(seen).hasSize(3);
    }
  }

  @Test
  void forEachVisitsMoreEntriesThanOneScanPage() {
    int entries = StoreChecks.FOR_EACH_PAGE + 1_000;
    write(
        txn -> {
          for (int i = 0; i < entries; i++) {
            txn.put(Table.STATE, bytes(i >>> 16, i >>> 8, i), bytes(i));
          }
        });
    try (ReadTxn txn = store.beginRead()) {
      int[] next = {0};
      long n =
          txn.forEach(
              Table.STATE,
              (k, v) -> {
                int i = next[0]++;
                assertThat(heap(k)).isEqualTo(bytes(i >>> 16, i >>> 8, i));
                assertThat(heap(v)).isEqualTo(bytes(i));
              });
      assertThat(n).isEqualTo(entries);
      assertThat(next[0]).isEqualTo(entries);
    }
  }

  @Test
  void aWriteTransactionCannotWriteDuringItsOwnForEach() {
    write(txn -> txn.put(Table.STATE, key("a"), value("1")));
    try (WriteTxn txn = store.beginWrite()) {
      assertThatThrownBy(
              () -> txn.forEach(Table.STATE, (k, v) -> txn.put(Table.STATE, key("b"), value("2"))))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("scanning");
      txn.put(Table.STATE, key("b"), value("2"));
      txn.commit();
    }
  }

  @Test
  void aFinishedTransactionCannotBeUsed() {
    WriteTxn committed = store.beginWrite();
    committed.put(Table.STATE, key("a"), value("1"));
    committed.commit();
    committed.close();
    assertThatThrownBy(() -> committed.get(Table.STATE, key("a")))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> committed.put(Table.STATE, key("a"), value("2")))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(committed::commit).isInstanceOf(IllegalStateException.class);

    WriteTxn aborted = store.beginWrite();
    aborted.close();
    aborted.close();
    assertThatThrownBy(() -> aborted.delete(Table.STATE, key("a")))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(aborted::commit).isInstanceOf(IllegalStateException.class);

    ReadTxn read = store.beginRead();
    read.close();
    read.close();
    assertThatThrownBy(() -> read.get(Table.STATE, key("a")))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> read.scan(Table.STATE, new byte[0], (k, v) -> true))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theStoreDoesNotCloseUnderOpenTransactions() {
    ReadTxn read = store.beginRead();
    assertThatThrownBy(store::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1 read");
    read.close();
    WriteTxn txn = store.beginWrite();
    assertThatThrownBy(store::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1 write");
    txn.close();
    store.close();
    assertThatThrownBy(store::beginRead).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(store::beginWrite).isInstanceOf(IllegalStateException.class);
    store.close();
    store = open(dir.resolve("store"));
  }

  @Test
  void aWriteTransactionStaysOnTheThreadThatBeganIt() {
    try (WriteTxn txn = store.beginWrite()) {
      txn.put(Table.STATE, key("a"), value("1"));
      CompletableFuture<Throwable> elsewhere =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  txn.put(Table.STATE, key("b"), value("2"));
                  return null;
                } catch (RuntimeException e) {
                  return e;
                }
              });
      assertThat(elsewhere.join())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("thread");
      txn.commit();
    }
    try (ReadTxn txn = store.beginRead()) {
      assertThat(scanAll(txn, Table.STATE, new byte[0]))
          .containsExactly(entry(key("a"), value("1")));
    }
  }

  @Test
  void aReadTransactionMayMoveBetweenThreads() {
    write(txn -> txn.put(Table.STATE, key("a"), value("1")));
    ReadTxn txn = CompletableFuture.supplyAsync(store::beginRead).join();
    assertThat(txn.get(Table.STATE, key("a"))).isEqualTo(value("1"));
    CompletableFuture.runAsync(txn::close).join();
  }

  @Test
  void aTransactionCannotWriteWhileItScans() {
    write(txn -> txn.put(Table.STATE, key("a"), value("1")));
    try (WriteTxn txn = store.beginWrite()) {
      assertThatThrownBy(
              () ->
                  txn.scan(
                      Table.STATE,
                      new byte[0],
                      (k, v) -> {
                        txn.put(Table.STATE, key("b"), value("2"));
                        return true;
                      }))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("scanning");
      // reads during a scan are fine, and writes are allowed again afterwards
      txn.scan(Table.STATE, new byte[0], (k, v) -> txn.get(Table.STATE, k) != null);
      txn.put(Table.STATE, key("b"), value("2"));
      txn.commit();
    }
  }

  @Test
  void randomOperationsMatchASortedMapModel() {
    long rotating = System.nanoTime();
    String replay = System.getProperty("koala.store.seed");
    long[] seeds =
        replay != null
            ? new long[] {Long.parseLong(replay)}
            : new long[] {FIXED_SEEDS[0], FIXED_SEEDS[1], FIXED_SEEDS[2], rotating};
    System.out.println(
        getClass().getSimpleName()
            + ": random operations with seeds "
            + Arrays.toString(seeds)
            + " (replay one with -Dkoala.store.seed=N)");
    for (long seed : seeds) {
      try (StateStore fresh = open(dir.resolve("random-" + seed))) {
        new RandomRun(fresh, seed).run(600);
      }
    }
  }

  /**
   * Random puts, deletes, prefix deletes, commits, aborts and snapshot reads against a store and
   * against {@link TreeMap}s, comparing every read.
   */
  private static final class RandomRun {
    private static final Table[] TABLES = {Table.STATE, Table.TIMERS};
    private static final byte[] ALPHABET = bytes(0x00, 0x01, 0x7F, 0x80, 0xFF);

    private final StateStore store;
    private final long seed;
    private final Random random;
    private Map<Table, NavigableMap<byte[], byte[]>> committed = emptyModel();
    private Map<Table, NavigableMap<byte[], byte[]>> pending;
    private WriteTxn writer;
    private ReadTxn reader;
    private Map<Table, NavigableMap<byte[], byte[]>> readerModel;
    private int step;

    RandomRun(StateStore store, long seed) {
      this.store = store;
      this.seed = seed;
      this.random = new Random(seed);
    }

    void run(int steps) {
      try {
        for (step = 0; step < steps; step++) {
          if (writer == null) {
            writer = store.beginWrite();
            pending = copy(committed);
          }
          int dice = random.nextInt(100);
          Table table = TABLES[random.nextInt(TABLES.length)];
          if (dice < 40) {
            byte[] k = randomKey();
            byte[] v = randomValue();
            writer.put(table, k, v);
            pending.get(table).put(k, v);
          } else if (dice < 50) {
            byte[] k = randomKey();
            boolean expected = pending.get(table).remove(k) != null;
            assertThat(writer.delete(table, k)).as(at()).isEqualTo(expected);
          } else if (dice < 53) {
            byte[] prefix = randomPrefix();
            long expected = 0;
            var it = pending.get(table).tailMap(prefix, true).keySet().iterator();
            while (it.hasNext() && startsWith(it.next(), prefix)) {
              it.remove();
              expected++;
            }
            assertThat(writer.deletePrefix(table, prefix)).as(at()).isEqualTo(expected);
          } else if (dice < 63) {
            byte[] k = randomKey();
            assertThat(writer.get(table, k)).as(at()).isEqualTo(pending.get(table).get(k));
          } else if (dice < 73) {
            checkScan(writer, pending, table);
          } else if (dice < 80) {
            writer.commit();
            writer.close();
            writer = null;
            committed = pending;
          } else if (dice < 83) {
            writer.close();
            writer = null;
          } else if (dice < 88) {
            if (reader == null) {
              reader = store.beginRead();
              readerModel = committed;
            } else {
              reader.close();
              reader = null;
            }
          } else if (reader != null) {
            if (dice < 94) {
              byte[] k = randomKey();
              assertThat(reader.get(table, k)).as(at()).isEqualTo(readerModel.get(table).get(k));
            } else {
              checkScan(reader, readerModel, table);
            }
          }
        }
        if (writer != null) {
          writer.commit();
          writer.close();
          committed = pending;
        }
        if (reader != null) {
          reader.close();
        }
        try (ReadTxn txn = store.beginRead()) {
          for (Table t : TABLES) {
            checkScan(txn, committed, t, new byte[0], null, Integer.MAX_VALUE);
          }
        }
        StoreStats stats = store.stats();
        for (Table t : TABLES) {
          assertThat(stats.entries(t)).as(at()).isEqualTo((long) committed.get(t).size());
        }
      } catch (RuntimeException | AssertionError e) {
        throw new AssertionError("random store run failed at seed " + seed + ", step " + step, e);
      }
    }

    private void checkScan(
        ReadTxn txn, Map<Table, NavigableMap<byte[], byte[]>> model, Table table) {
      byte[] prefix = randomPrefix();
      byte[] after = random.nextInt(3) == 0 ? null : randomPrefix();
      int limit = random.nextInt(4) == 0 ? Integer.MAX_VALUE : random.nextInt(6);
      checkScan(txn, model, table, prefix, after, limit);
    }

    private void checkScan(
        ReadTxn txn,
        Map<Table, NavigableMap<byte[], byte[]>> model,
        Table table,
        byte[] prefix,
        byte[] after,
        int limit) {
      List<String> expected = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e : model.get(table).tailMap(prefix, true).entrySet()) {
        if (expected.size() >= limit || !startsWith(e.getKey(), prefix)) {
          break;
        }
        if (after == null || Arrays.compareUnsigned(e.getKey(), after) > 0) {
          expected.add(entry(e.getKey(), e.getValue()));
        }
      }
      List<String> actual = new ArrayList<>();
      int n =
          txn.scan(
              table,
              prefix,
              after,
              limit,
              (k, v) -> {
                actual.add(entry(k, v));
                return true;
              });
      assertThat(actual).as(at()).containsExactlyElementsOf(expected);
      assertThat(n).as(at()).isEqualTo(expected.size());
      checkForEach(txn, model, table);
    }

    private void checkForEach(
        ReadTxn txn, Map<Table, NavigableMap<byte[], byte[]>> model, Table table) {
      List<String> expected = entries(model.get(table));
      List<String> actual = new ArrayList<>();
      long n = txn.forEach(table, (k, v) -> actual.add(entry(heap(k), heap(v))));
      assertThat(actual).as(at()).containsExactlyElementsOf(expected);
      assertThat(n).as(at()).isEqualTo(expected.size());
    }

    private String at() {
      return "seed " + seed + ", step " + step;
    }

    private byte[] randomKey() {
      byte[] k = new byte[1 + random.nextInt(4)];
      for (int i = 0; i < k.length; i++) {
        k[i] = ALPHABET[random.nextInt(ALPHABET.length)];
      }
      return k;
    }

    private byte[] randomPrefix() {
      return random.nextInt(5) == 0 ? new byte[0] : head(randomKey(), 1 + random.nextInt(2));
    }

    private static byte[] head(byte[] bytes, int n) {
      return Arrays.copyOf(bytes, Math.min(n, bytes.length));
    }

    private byte[] randomValue() {
      byte[] v =
          new byte[random.nextInt(20) == 0 ? 2000 + random.nextInt(6000) : random.nextInt(12)];
      random.nextBytes(v);
      return v;
    }

    private static Map<Table, NavigableMap<byte[], byte[]>> emptyModel() {
      Map<Table, NavigableMap<byte[], byte[]>> model = new EnumMap<>(Table.class);
      for (Table t : TABLES) {
        model.put(t, new TreeMap<>(UNSIGNED));
      }
      return model;
    }

    private static Map<Table, NavigableMap<byte[], byte[]>> copy(
        Map<Table, NavigableMap<byte[], byte[]>> model) {
      Map<Table, NavigableMap<byte[], byte[]>> out = new EnumMap<>(Table.class);
      model.forEach((t, m) -> out.put(t, new TreeMap<>(m)));
      return out;
    }
  }

  // --- helpers ---------------------------------------------------------------------------------

  void write(Consumer<WriteTxn> body) {
    try (WriteTxn txn = store.beginWrite()) {
      body.accept(txn);
      txn.commit();
    }
  }

  /** Every entry of every table, as {@code TABLE:key=value} in hex. */
  List<String> everything() {
    List<String> out = new ArrayList<>();
    try (ReadTxn txn = store.beginRead()) {
      for (Table t : Table.values()) {
        for (String e : scanAll(txn, t, new byte[0])) {
          out.add(t + ":" + e);
        }
      }
    }
    return out;
  }

  static List<String> scanAll(ReadTxn txn, Table table, byte[] prefix) {
    List<String> out = new ArrayList<>();
    int n =
        txn.scan(
            table,
            prefix,
            (k, v) -> {
              out.add(entry(k, v));
              return true;
            });
    assertThat(n).isEqualTo(out.size());
    return out;
  }

  /** The entries of a sorted model, in order, as {@link #entry} strings. */
  static List<String> entries(NavigableMap<byte[], byte[]> model) {
    List<String> out = new ArrayList<>();
    model.forEach((k, v) -> out.add(entry(k, v)));
    return out;
  }

  /** Hex {@code key=value}, which reads well in assertion failures. */
  static String entry(byte[] key, byte[] value) {
    return HEX.formatHex(key) + "=" + HEX.formatHex(value);
  }

  /** A heap copy of a view {@link ReadTxn#forEach} handed out. */
  static byte[] heap(DirectBuffer view) {
    byte[] out = new byte[view.capacity()];
    view.getBytes(0, out);
    return out;
  }

  static byte[] key(String s) {
    return s.getBytes(UTF_8);
  }

  static byte[] value(String s) {
    return s.getBytes(UTF_8);
  }

  static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length && Arrays.equals(Arrays.copyOf(key, prefix.length), prefix);
  }

  static byte[] intKey(int i) {
    return new byte[] {(byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i};
  }
}
