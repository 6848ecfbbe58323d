package io.koala.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The timer key layout {@code bucket | domain | timestamp | keyLen | key | nsLen | namespace}: its
 * unsigned byte order is (bucket, domain, timestamp) order, its fields read back, and a bucket's
 * (or a bucket and domain's) timers form one prefix range in a store.
 */
class KeyLayoutTimerKeyTest {
  private static final byte EVENT = 1;
  private static final byte PROCESSING = 2;
  private static final byte[] NONE = new byte[0];

  private static final long[] TIMESTAMPS = {
    Long.MIN_VALUE,
    Long.MIN_VALUE + 1,
    -1L << 40,
    -256,
    -255,
    -2,
    -1,
    0,
    1,
    255,
    256,
    1L << 40,
    Long.MAX_VALUE - 1,
    Long.MAX_VALUE
  };
  private static final int[] BUCKETS = {0, 1, 255, 256, 257, KeyLayout.MAX_BUCKETS - 1};

  /** A timer as its fields, with the key it lays out to. */
  record Timer(int bucket, byte domain, long timestamp, byte[] key, byte[] namespace) {
    byte[] storeKey() {
      return KeyLayout.timerKey(bucket, domain, timestamp, key, namespace);
    }

    @Override
    public String toString() {
      return "Timer(b" + bucket + ", d" + domain + ", ts " + timestamp + ")";
    }
  }

  private static final Comparator<Timer> FIELD_ORDER =
      Comparator.comparingInt(Timer::bucket)
          .thenComparingInt(t -> t.domain() & 0xFF)
          .thenComparingLong(Timer::timestamp);

  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  /**
   * Every combination of bucket, domain and timestamp, with keys and namespaces chosen to disagree
   * with the timestamp order when compared alone (long, high keys at small timestamps).
   */
  private static List<Timer> grid() {
    List<Timer> out = new ArrayList<>();
    int i = 0;
    for (int bucket : BUCKETS) {
      for (byte domain : new byte[] {EVENT, PROCESSING}) {
        for (long ts : TIMESTAMPS) {
          byte[] key = i % 2 == 0 ? bytes(0xFF, 0xFF, 0xFF) : bytes(0x00);
          byte[] ns = i % 3 == 0 ? bytes(0xFF) : NONE;
          out.add(new Timer(bucket, domain, ts, key, ns));
          i++;
        }
      }
    }
    return out;
  }

  @Test
  void unsignedByteOrderIsBucketDomainTimestampOrder() {
    List<Timer> timers = grid();
    for (Timer a : timers) {
      for (Timer b : timers) {
        int fields = Integer.signum(FIELD_ORDER.compare(a, b));
        int bytes = Integer.signum(Arrays.compareUnsigned(a.storeKey(), b.storeKey()));
        if (fields != 0) {
          assertThat(bytes).as("%s vs %s", a, b).isEqualTo(fields);
        }
      }
    }
  }

  @Test
  void sortingKeysSortsTimersByBucketDomainAndTimestampIncludingTheExtremes() {
    List<Timer> timers = new ArrayList<>(grid());
    Collections.reverse(timers);
    List<Timer> byBytes = new ArrayList<>(timers);
    byBytes.sort((a, b) -> Arrays.compareUnsigned(a.storeKey(), b.storeKey()));
    List<Timer> byFields = new ArrayList<>(timers);
    byFields.sort(FIELD_ORDER);
    assertThat(byBytes).containsExactlyElementsOf(byFields);
    assertThat(byBytes.get(0).timestamp()).isEqualTo(Long.MIN_VALUE);
    assertThat(byBytes.get(TIMESTAMPS.length - 1).timestamp()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void timestampKeyAndNamespaceReadBack() {
    byte[][] keys = {NONE, bytes(0), bytes(0xFF, 0x80, 0x7F), new byte[300]};
    byte[][] namespaces = {NONE, bytes(0xFF), new byte[0xFFFF]};
    Arrays.fill(namespaces[2], (byte) 0xA5);
    for (long ts : TIMESTAMPS) {
      for (byte[] key : keys) {
        for (byte[] ns : namespaces) {
          byte[] k = KeyLayout.timerKey(KeyLayout.MAX_BUCKETS - 1, PROCESSING, ts, key, ns);
          assertThat(KeyLayout.timerTimestamp(k)).isEqualTo(ts);
          assertThat(KeyLayout.timerUserKey(k)).isEqualTo(key);
          assertThat(KeyLayout.timerNamespace(k)).isEqualTo(ns);
          assertThat(KeyLayout.bucketOf(k)).isEqualTo(KeyLayout.MAX_BUCKETS - 1);
          assertThat(k).hasSize(2 + 1 + 8 + 4 + key.length + 2 + ns.length);
        }
      }
    }
  }

  @Test
  void aTimerKeyStartsWithItsBucketAndDomainPrefixes() {
    for (Timer t : grid()) {
      byte[] k = t.storeKey();
      assertThat(k)
          .startsWith(KeyLayout.bucketPrefix(t.bucket()))
          .startsWith(KeyLayout.timerPrefix(t.bucket(), t.domain()));
    }
    assertThat(KeyLayout.timerPrefix(0x0102, PROCESSING)).containsExactly(0x01, 0x02, 0x02);
  }

  @Test
  void aBucketsTimersOfOneDomainAreOnePrefixRangeInTimestampOrder() {
    List<Timer> all = grid();
    try (InMemoryStateStore store = new InMemoryStateStore()) {
      try (WriteTxn txn = store.beginWrite()) {
        for (Timer t : all) {
          txn.put(Table.TIMERS, t.storeKey(), NONE);
        }
        txn.commit();
      }
      try (ReadTxn txn = store.beginRead()) {
        for (int bucket : BUCKETS) {
          for (byte domain : new byte[] {EVENT, PROCESSING}) {
            List<Long> seen = new ArrayList<>();
            txn.scan(
                Table.TIMERS,
                KeyLayout.timerPrefix(bucket, domain),
                (k, v) -> {
                  assertThat(KeyLayout.bucketOf(k)).isEqualTo(bucket);
                  assertThat(k[2]).isEqualTo(domain);
                  seen.add(KeyLayout.timerTimestamp(k));
                  return true;
                });
            assertThat(seen).as("bucket %d domain %d", bucket, domain).containsExactly(toBoxed());
          }
          int[] count = {0};
          txn.scan(Table.TIMERS, KeyLayout.bucketPrefix(bucket), (k, v) -> ++count[0] > 0);
          assertThat(count[0])
              .as("both domains of bucket %d", bucket)
              .isEqualTo(2 * TIMESTAMPS.length);
        }
      }
    }
  }

  @Test
  void deletingABucketPrefixRemovesExactlyThatBucketsTimers() {
    try (InMemoryStateStore store = new InMemoryStateStore();
        WriteTxn txn = store.beginWrite()) {
      for (Timer t : grid()) {
        txn.put(Table.TIMERS, t.storeKey(), NONE);
      }
      assertThat(txn.deletePrefix(Table.TIMERS, KeyLayout.bucketPrefix(256)))
          .isEqualTo(2L * TIMESTAMPS.length);
      for (Timer t : grid()) {
        assertThat(txn.get(Table.TIMERS, t.storeKey()) == null)
            .as("%s", t)
            .isEqualTo(t.bucket() == 256);
      }
    }
  }

  @Test
  void domainsAreSeparateForTheSameTimer() {
    byte[] event = KeyLayout.timerKey(7, EVENT, 42, bytes(1, 2), bytes(3));
    byte[] processing = KeyLayout.timerKey(7, PROCESSING, 42, bytes(1, 2), bytes(3));
    assertThat(event).isNotEqualTo(processing);
    assertThat(event).startsWith(KeyLayout.timerPrefix(7, EVENT));
    assertThat(Arrays.copyOf(event, 3)).isNotEqualTo(KeyLayout.timerPrefix(7, PROCESSING));
    // Every event-time timer of a bucket sorts before every processing-time timer of it.
    assertThat(
            Arrays.compareUnsigned(
                KeyLayout.timerKey(7, EVENT, Long.MAX_VALUE, bytes(0xFF), bytes(0xFF)),
                KeyLayout.timerKey(7, PROCESSING, Long.MIN_VALUE, NONE, NONE)))
        .isNegative();
  }

  @Test
  void theSameTimerLaysOutToTheSameKey() {
    assertThat(KeyLayout.timerKey(3, EVENT, -5, bytes(9), bytes(8)))
        .isEqualTo(KeyLayout.timerKey(3, EVENT, -5, bytes(9), bytes(8)));
    assertThat(KeyLayout.timerKey(3, EVENT, -5, bytes(9), NONE))
        .as("the namespace is part of the timer")
        .isNotEqualTo(KeyLayout.timerKey(3, EVENT, -5, bytes(9), bytes(8)));
  }

  @Test
  void aKeyAndNamespaceSplitDifferentlyAreDifferentTimers() {
    // Length prefixes keep (key "ab", ns "") apart from (key "a", ns "b").
    byte[] a = KeyLayout.timerKey(3, EVENT, 1, bytes('a', 'b'), NONE);
    byte[] b = KeyLayout.timerKey(3, EVENT, 1, bytes('a'), bytes('b'));
    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void rejectsBadBucketsAndOversizedNamespaces() {
    assertThatThrownBy(() -> KeyLayout.timerKey(-1, EVENT, 0, NONE, NONE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KeyLayout.timerKey(KeyLayout.MAX_BUCKETS, EVENT, 0, NONE, NONE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KeyLayout.timerPrefix(KeyLayout.MAX_BUCKETS, EVENT))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KeyLayout.timerKey(0, EVENT, 0, NONE, new byte[0x10000]))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("65535");
  }

  private static Long[] toBoxed() {
    return Arrays.stream(TIMESTAMPS).boxed().toArray(Long[]::new);
  }
}
