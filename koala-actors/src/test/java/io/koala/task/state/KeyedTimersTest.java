package io.koala.task.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.protocol.Handover;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.state.TimeDomain;
import io.koala.store.InMemoryStateStore;
import io.koala.store.Table;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Keyed timers in the store's TIMERS table: registration and deletion through the batch's
 * transaction, de-duplication, the due scan across buckets, and the cached earliest timestamp.
 */
class KeyedTimersTest {
  private static final byte[] NONE = new byte[0];
  private static final TimeDomain EVENT = TimeDomain.EVENT_TIME;
  private static final TimeDomain PROCESSING = TimeDomain.PROCESSING_TIME;
  private static final int[] OWNED = {3, 7, 300};

  private final InMemoryStateStore store = new InMemoryStateStore();
  private final KeyedStateBackend backend =
      new KeyedStateBackend("op", store, new KryoSerde(TypeRegistry.withDefaults()));
  private long watermark = Long.MIN_VALUE;
  private long clock = 1_000;
  private final KeyedTimers timers = new KeyedTimers(backend, OWNED, () -> watermark, () -> clock);

  @AfterEach
  void closeStore() {
    backend.abort();
    store.close();
  }

  /** A timer as the test sees it. */
  record T(int bucket, long ts, String key, String ns) {
    static T of(KeyedTimers.Due d) {
      return new T(d.bucket(), d.timestamp(), str(d.key()), str(d.namespace()));
    }

    byte[] keyBytes() {
      return key.getBytes(StandardCharsets.UTF_8);
    }

    byte[] nsBytes() {
      return ns.getBytes(StandardCharsets.UTF_8);
    }
  }

  /** The documented firing order: timestamp, then key bytes, then namespace (both unsigned). */
  private static final Comparator<T> ORDER =
      Comparator.comparingLong(T::ts)
          .thenComparing(T::keyBytes, Arrays::compareUnsigned)
          .thenComparing(T::nsBytes, Arrays::compareUnsigned);

  private static String str(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private interface Body {
    void run(KeyedTimers timers);
  }

  /** Runs {@code body} with {@code key} (in {@code bucket}) current, in its own committed batch. */
  private void forKey(String key, int bucket, Body body) {
    backend.begin();
    backend.setCurrentKey(key, key.getBytes(StandardCharsets.UTF_8), bucket);
    body.run(timers);
    backend.commit();
  }

  private void register(TimeDomain domain, T t) {
    forKey(
        t.key(),
        t.bucket(),
        k -> {
          if (domain == EVENT) {
            k.registerEventTimeTimer(t.ts(), t.nsBytes());
          } else {
            k.registerProcessingTimeTimer(t.ts(), t.nsBytes());
          }
        });
  }

  /** The due timers, read in a batch of their own (nothing is removed). */
  private List<T> due(TimeDomain domain, long upTo, int limit) {
    backend.begin();
    try {
      return timers.due(domain, upTo, limit).stream().map(T::of).toList();
    } finally {
      backend.abort();
    }
  }

  /**
   * Fires (removes) every timer of {@code domain} up to {@code upTo}, chunk by chunk, the way the
   * task engine does: a short chunk means none are left.
   */
  private List<T> fire(TimeDomain domain, long upTo, int chunk) {
    List<T> fired = new ArrayList<>();
    while (timers.next(domain) <= upTo) {
      backend.begin();
      List<KeyedTimers.Due> due = timers.due(domain, upTo, chunk);
      for (KeyedTimers.Due d : due) {
        timers.remove(d);
        fired.add(T.of(d));
      }
      if (due.size() < chunk) {
        timers.refresh(domain);
      }
      backend.commit();
      if (due.size() < chunk) {
        break;
      }
    }
    return fired;
  }

  private long timerEntries() {
    return store.stats().entries(Table.TIMERS);
  }

  // ------------------------------------------------------------------ register and delete

  @Test
  void registeredTimersAreDueAtTheirTimestampWithKeyBucketAndNamespace() {
    register(EVENT, new T(3, 10, "a", ""));
    register(EVENT, new T(7, 20, "b", "w1"));
    assertThat(due(EVENT, 9, 10)).isEmpty();
    assertThat(due(EVENT, 10, 10)).containsExactly(new T(3, 10, "a", ""));
    assertThat(due(EVENT, 100, 10)).containsExactly(new T(3, 10, "a", ""), new T(7, 20, "b", "w1"));
    assertThat(timerEntries()).isEqualTo(2);
  }

  @Test
  void theNamespaceLessMethodsUseTheEmptyNamespace() {
    forKey("a", 3, k -> k.registerEventTimeTimer(5));
    assertThat(due(EVENT, 5, 10)).containsExactly(new T(3, 5, "a", ""));
    forKey("a", 3, k -> k.deleteEventTimeTimer(5));
    assertThat(due(EVENT, 5, 10)).isEmpty();
    forKey("a", 3, k -> k.registerProcessingTimeTimer(6));
    assertThat(due(PROCESSING, 6, 10)).containsExactly(new T(3, 6, "a", ""));
    forKey("a", 3, k -> k.deleteProcessingTimeTimer(6));
    assertThat(due(PROCESSING, 6, 10)).isEmpty();
    assertThat(timerEntries()).isZero();
  }

  @Test
  void deletingRemovesOnlyThatKeyTimestampAndNamespace() {
    register(EVENT, new T(3, 10, "a", ""));
    register(EVENT, new T(3, 10, "a", "x"));
    register(EVENT, new T(3, 10, "b", ""));
    register(EVENT, new T(3, 11, "a", ""));
    forKey("a", 3, k -> k.deleteEventTimeTimer(10, NONE));
    assertThat(due(EVENT, 100, 10))
        .containsExactly(new T(3, 10, "a", "x"), new T(3, 10, "b", ""), new T(3, 11, "a", ""));
    forKey("zzz", 3, k -> k.deleteEventTimeTimer(10, NONE)); // deleting a missing timer: no-op
    assertThat(timerEntries()).isEqualTo(3);
  }

  @Test
  void theSameKeyTimestampAndNamespaceIsOneTimer() {
    for (int i = 0; i < 3; i++) {
      register(EVENT, new T(7, 42, "k", "ns"));
    }
    forKey(
        "k",
        7,
        k -> {
          k.registerEventTimeTimer(42, "ns".getBytes(StandardCharsets.UTF_8));
          k.registerEventTimeTimer(42, "ns".getBytes(StandardCharsets.UTF_8));
        });
    assertThat(due(EVENT, 42, 10)).containsExactly(new T(7, 42, "k", "ns"));
    assertThat(timerEntries()).isEqualTo(1);
    assertThat(fire(EVENT, 42, 10)).as("fires once").hasSize(1);
  }

  @Test
  void timersOutsideARecordAreRefused() {
    backend.begin();
    assertThatThrownBy(() -> timers.registerEventTimeTimer(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("outside the processing of a record");
    backend.abort();
    assertThatThrownBy(() -> timers.refresh(EVENT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no batch transaction");
  }

  @Test
  void timersOfAnAbortedBatchAreGone() {
    backend.begin();
    backend.setCurrentKey("a", "a".getBytes(StandardCharsets.UTF_8), 3);
    timers.registerEventTimeTimer(10);
    backend.abort();
    assertThat(due(EVENT, 100, 10)).isEmpty();
    assertThat(fire(EVENT, 100, 10)).isEmpty();
    assertThat(timers.next(EVENT)).isEqualTo(Long.MAX_VALUE);
  }

  // ------------------------------------------------------------------ the due scan

  @Test
  void dueMergesTheOwnedBucketsInTimestampKeyNamespaceOrder() {
    List<T> all =
        List.of(
            new T(300, -5, "m", ""),
            new T(3, 7, "b", ""),
            new T(7, 7, "a", "z"),
            new T(7, 7, "a", "y"),
            new T(3, Long.MIN_VALUE, "q", ""),
            new T(300, 0, "c", ""),
            new T(7, 1_000, "d", ""),
            new T(3, Long.MAX_VALUE, "e", ""));
    for (T t : all) {
      register(EVENT, t);
    }
    List<T> expected = new ArrayList<>(all);
    expected.sort(ORDER);
    assertThat(due(EVENT, Long.MAX_VALUE, 100)).containsExactlyElementsOf(expected);
    assertThat(due(EVENT, 7, 100)).containsExactlyElementsOf(expected.subList(0, 6));
    assertThat(due(EVENT, -6, 100)).containsExactly(new T(3, Long.MIN_VALUE, "q", ""));
  }

  @Test
  void dueIgnoresBucketsTheTaskDoesNotOwn() {
    register(EVENT, new T(4, 1, "foreign", ""));
    register(EVENT, new T(3, 2, "mine", ""));
    assertThat(due(EVENT, 100, 10)).containsExactly(new T(3, 2, "mine", ""));
  }

  @Test
  void dueReturnsAtMostLimitTheEarliestFirstAcrossBuckets() {
    for (int i = 0; i < 10; i++) {
      register(EVENT, new T(OWNED[i % 3], 100 - i * 10, "k" + i, ""));
    }
    assertThat(due(EVENT, 1_000, 3))
        .extracting(T::ts)
        .as("the three earliest, whatever their bucket")
        .containsExactly(10L, 20L, 30L);
    assertThat(due(EVENT, 1_000, 0)).isEmpty();
    assertThat(fire(EVENT, 1_000, 3))
        .extracting(T::ts)
        .containsExactly(10L, 20L, 30L, 40L, 50L, 60L, 70L, 80L, 90L, 100L);
    assertThat(timerEntries()).isZero();
  }

  @Test
  void randomTimersFireInTheDocumentedOrderWhateverTheChunkSize() {
    String replay = System.getProperty("koala.timers.seed");
    long seed = replay != null ? Long.parseLong(replay) : System.nanoTime();
    System.out.println("KeyedTimersTest seed " + seed + " (replay with -Dkoala.timers.seed=N)");
    Random random = new Random(seed);
    List<T> all = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      // Keys of one length: see firingOrderTiesAreByKeyBytesEvenWhenKeyLengthsDiffer. A key
      // lives in one bucket.
      char c = (char) ('a' + random.nextInt(26));
      T t =
          new T(
              OWNED[c % OWNED.length],
              random.nextInt(40) - 20,
              "k" + c,
              random.nextBoolean() ? "" : "n" + random.nextInt(3));
      if (all.stream().noneMatch(t::equals)) {
        all.add(t);
      }
      register(EVENT, t);
    }
    List<T> expected = new ArrayList<>(all);
    expected.sort(ORDER);
    long upTo = random.nextInt(40) - 20;
    List<T> dueNow = expected.stream().filter(t -> t.ts() <= upTo).toList();
    int chunk = 1 + random.nextInt(30);
    assertThat(fire(EVENT, upTo, chunk)).as("seed " + seed).containsExactlyElementsOf(dueNow);
    assertThat(timerEntries()).isEqualTo(all.size() - dueNow.size());
    assertThat(fire(EVENT, Long.MAX_VALUE, chunk))
        .as("seed " + seed)
        .containsExactlyElementsOf(expected.subList(dueNow.size(), expected.size()));
  }

  @Test
  void firingOrderTiesAreByKeyLengthThenBytesWhateverTheChunkSize() {
    // Same bucket, same timestamp: "b" is shorter than "aa", so it comes first (the store order).
    register(EVENT, new T(3, 5, "b", ""));
    register(EVENT, new T(3, 5, "aa", ""));
    assertThat(due(EVENT, 5, 2)).containsExactly(new T(3, 5, "b", ""), new T(3, 5, "aa", ""));
    assertThat(due(EVENT, 5, 1))
        .as("the first of the documented order")
        .containsExactly(new T(3, 5, "b", ""));
    assertThat(fire(EVENT, 5, 1))
        .as("the firing order must not depend on the chunk size")
        .containsExactly(new T(3, 5, "b", ""), new T(3, 5, "aa", ""));
  }

  // ------------------------------------------------------------------ the cached earliest
  // timestamp

  @Test
  void nextIsALowerBoundThatRefreshMakesExact() {
    assertThat(timers.next(EVENT)).isEqualTo(Long.MAX_VALUE);
    register(EVENT, new T(3, 50, "a", ""));
    assertThat(timers.next(EVENT)).isEqualTo(50);
    register(EVENT, new T(7, 30, "b", ""));
    assertThat(timers.next(EVENT)).isEqualTo(30);
    forKey("b", 7, k -> k.deleteEventTimeTimer(30));
    assertThat(timers.next(EVENT)).as("a deletion leaves a lower bound").isEqualTo(30);
    assertThat(due(EVENT, 40, 10)).as("the scan finds nothing").isEmpty();

    backend.begin();
    timers.refresh(EVENT);
    backend.commit();
    assertThat(timers.next(EVENT)).isEqualTo(50);
    assertThat(fire(EVENT, 60, 10)).containsExactly(new T(3, 50, "a", ""));
    assertThat(timers.next(EVENT)).as("after firing and refresh: exact").isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void afterFiringAChunkTheNextTimestampIsExact() {
    register(EVENT, new T(3, 10, "a", ""));
    register(EVENT, new T(7, 20, "b", ""));
    register(EVENT, new T(300, 30, "c", ""));
    assertThat(fire(EVENT, 20, 10)).hasSize(2);
    assertThat(timers.next(EVENT)).isEqualTo(30);
  }

  @Test
  void dueSkipsTheScanWhileTheCachedBoundIsAboveUpTo() {
    // A timer written behind the cache's back (another instance, as after a restart) is not seen
    // until the cache is recovered from the store.
    KeyedTimers other = new KeyedTimers(backend, OWNED, () -> 0, () -> 0);
    backend.begin();
    backend.setCurrentKey("a", "a".getBytes(StandardCharsets.UTF_8), 3);
    other.registerEventTimeTimer(10);
    other.registerProcessingTimeTimer(20);
    backend.commit();
    assertThat(timers.next(EVENT)).isEqualTo(Long.MAX_VALUE);
    assertThat(due(EVENT, 100, 10)).isEmpty();

    backend.begin();
    timers.recoverNext();
    backend.commit();
    assertThat(timers.next(EVENT)).isEqualTo(10);
    assertThat(timers.next(PROCESSING)).isEqualTo(20);
    assertThat(due(EVENT, 100, 10)).containsExactly(new T(3, 10, "a", ""));
  }

  // ------------------------------------------------------------------ domains

  @Test
  void eventAndProcessingTimeTimersAreIndependent() {
    register(EVENT, new T(3, 10, "a", ""));
    register(PROCESSING, new T(3, 10, "a", ""));
    register(PROCESSING, new T(7, 5, "b", ""));
    assertThat(timers.next(EVENT)).isEqualTo(10);
    assertThat(timers.next(PROCESSING)).isEqualTo(5);
    assertThat(timerEntries()).isEqualTo(3);

    forKey("a", 3, k -> k.deleteEventTimeTimer(10));
    assertThat(due(EVENT, 100, 10)).isEmpty();
    assertThat(due(PROCESSING, 100, 10))
        .containsExactly(new T(7, 5, "b", ""), new T(3, 10, "a", ""));

    register(EVENT, new T(3, 1, "c", ""));
    assertThat(fire(PROCESSING, 100, 10)).hasSize(2);
    assertThat(timers.next(PROCESSING)).isEqualTo(Long.MAX_VALUE);
    assertThat(timers.next(EVENT)).as("untouched by the other domain").isEqualTo(1);
    assertThat(fire(EVENT, 100, 10)).containsExactly(new T(3, 1, "c", ""));
  }

  @Test
  void theClocksComeFromTheTask() {
    watermark = 77;
    clock = 12_345;
    assertThat(timers.currentWatermark()).isEqualTo(77);
    assertThat(timers.currentProcessingTime()).isEqualTo(12_345);
  }

  // ------------------------------------------------------------------ hand-over

  @Test
  void aBucketsTimersShipWithItAndFireAtTheTaskThatInstallsThem() {
    register(EVENT, new T(7, 20, "b", "w1"));
    register(PROCESSING, new T(7, 1_500, "c", ""));
    register(EVENT, new T(3, 10, "a", ""));

    backend.begin();
    List<Handover.ShippedTimer> shipped = timers.ship(backend.batchTxn(), 7);
    backend.commit();
    assertThat(shipped).hasSize(2);
    assertThat(due(EVENT, 100, 10)).containsExactly(new T(3, 10, "a", "")); // gone from here
    assertThat(due(PROCESSING, 2_000, 10)).isEmpty();

    InMemoryStateStore other = new InMemoryStateStore();
    KeyedStateBackend otherBackend =
        new KeyedStateBackend("op", other, new KryoSerde(TypeRegistry.withDefaults()));
    KeyedTimers receiver = new KeyedTimers(otherBackend, new int[] {7}, () -> 0L, () -> 0L);
    List<Handover.ShippedTimer> all = new ArrayList<>(shipped);
    all.add(KeyedTimers.shipParked(15, EVENT, "p".getBytes(StandardCharsets.UTF_8), NONE));
    try {
      otherBackend.begin();
      receiver.install(otherBackend.batchTxn(), 7, all);
      otherBackend.commit();
      assertThat(receiver.next(EVENT)).isEqualTo(15); // the cached bound covers what came in
      assertThat(receiver.next(PROCESSING)).isEqualTo(1_500);
      otherBackend.begin();
      assertThat(receiver.due(EVENT, 100, 10).stream().map(T::of))
          .containsExactly(new T(7, 15, "p", ""), new T(7, 20, "b", "w1"));
      assertThat(receiver.due(PROCESSING, 2_000, 10).stream().map(T::of))
          .containsExactly(new T(7, 1_500, "c", ""));
      otherBackend.abort();
    } finally {
      other.close();
    }
  }
}
