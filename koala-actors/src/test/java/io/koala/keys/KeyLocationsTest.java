package io.koala.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.BucketHandover;
import io.koala.store.InMemoryStateStore;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The key lookup table against the hazards of docs/hazards.md §1: each test moves one bucket
 * between simulated tasks (a table and a store each) and checks where every key resolves.
 */
class KeyLocationsTest {
  static final int B = 7;

  /** A task: its lookup table and its store. */
  static final class Task implements AutoCloseable {
    final KeyLocations klt;
    final InMemoryStateStore store = new InMemoryStateStore();

    Task(int index, int... owned) {
      klt = new KeyLocations(index, owned);
    }

    <R> R txn(Function<WriteTxn, R> work) {
      try (WriteTxn t = store.beginWrite()) {
        R r = work.apply(t);
        t.commit();
        return r;
      }
    }

    /** Writes the key's state, as the owner processing a record would. */
    void write(String key, String value) {
      txn(
          t -> {
            assertThat(klt.resolve(t, B, k(key)))
                .as("owner writes only local keys")
                .isEqualTo(klt.self());
            t.put(Table.STATE, KeyLayout.stateKey(B, k(key), 1, new byte[0]), v(value));
            klt.written(B, k(key));
            return null;
          });
    }

    /** Deletes the key's state, as the owner clearing it would. */
    void delete(String key) {
      txn(
          t -> {
            assertThat(klt.resolve(t, B, k(key))).isEqualTo(klt.self());
            t.deletePrefix(Table.STATE, KeyLayout.keyPrefix(B, k(key)));
            return null;
          });
    }

    int resolve(String key) {
      return txn(t -> klt.resolve(t, B, k(key)));
    }

    int locate(String key) {
      try (ReadTxn t = store.beginRead()) {
        return klt.locate(t, B, k(key));
      }
    }

    int entries() {
      return txn(t -> t.scan(Table.LOCATIONS, KeyLayout.bucketPrefix(B), (x, y) -> true));
    }

    /** The local copy, whether authoritative or stale. */
    String local(String key) {
      return txn(
          t -> {
            byte[] b = t.get(Table.STATE, KeyLayout.stateKey(B, k(key), 1, new byte[0]));
            return b == null ? null : new String(b, StandardCharsets.UTF_8);
          });
    }

    /** Fetches the key from its holder and installs it. */
    void fetch(String key, Task holder) {
      String value = holder.local(key);
      txn(
          t -> {
            t.deletePrefix(Table.STATE, KeyLayout.keyPrefix(B, k(key)));
            if (value != null) {
              t.put(Table.STATE, KeyLayout.stateKey(B, k(key), 1, new byte[0]), v(value));
            }
            klt.installed(t, B, k(key), holder.klt.self());
            return null;
          });
    }

    /** The value the owner sees: local if it resolves here, else at the holder it resolves to. */
    String read(String key, Task... all) {
      int at = resolve(key);
      for (Task t : all) {
        if (t.klt.self() == at) {
          return t.local(key);
        }
      }
      throw new AssertionError("no task " + at);
    }

    @Override
    public void close() {
      store.close();
    }
  }

  static byte[] k(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] v(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Moves bucket B from one task to another. */
  static void move(Task from, Task to) {
    BucketHandover h = from.txn(t -> from.klt.handOver(t, B));
    to.txn(
        t -> {
          to.klt.takeOver(t, h);
          return null;
        });
  }

  Task a = new Task(0, B);
  Task b = new Task(1);
  Task c = new Task(2);
  Task d = new Task(3);

  @AfterEach
  void close() {
    a.close();
    b.close();
    c.close();
    d.close();
  }

  @Test
  void locateAnswersAsResolveWouldWithoutWritingAnything() {
    a.write("k1", "v1");
    a.write("k2", "v2");
    a.write("k3", "v3");
    assertThat(a.locate("k1")).isEqualTo(0);
    move(a, b);
    b.fetch("k1", a);
    b.write("k1", "v1-b");
    b.fetch("k3", a);
    b.delete("k3");
    move(b, c); // c: k2 at its default holder a, k1 at b, k3 deleted
    int entries = c.entries();
    assertThat(c.locate("k1")).isEqualTo(1);
    assertThat(c.locate("k2")).isEqualTo(0);
    assertThat(c.locate("k3")).isEqualTo(KeyLocations.DELETED);
    assertThat(c.locate("fresh")).isEqualTo(2);
    assertThat(c.entries()).as("locate writes nothing").isEqualTo(entries);
    assertThat(c.resolve("k1")).isEqualTo(1);
    assertThat(c.resolve("k2")).isEqualTo(0);
    assertThat(c.resolve("fresh")).isEqualTo(2);
    assertThat(c.entries()).as("resolving a new key records it").isGreaterThan(entries);
    assertThat(c.locate("fresh")).isEqualTo(2);
  }

  /** DESIGN §8: a table restored from its snapshot and the store of the same instant. */
  @Test
  void aRestoredTableResolvesEveryKeyAsTheOriginalDid() {
    a.write("k1", "v1");
    a.write("k2", "v2");
    a.write("k3", "v3");
    move(a, b);
    b.fetch("k1", a);
    b.write("k1", "v1-b");
    b.write("fresh", "f");
    b.fetch("k3", a);
    b.delete("k3");
    move(b, c); // c: k2 at a (default), k1 and fresh at b, k3 deleted
    c.fetch("k1", b);
    KeyLocations.Snapshot snap = c.klt.snapshot();
    try (Task restored = new Task(2)) {
      restored.txn(
          t -> {
            c.txn(
                from -> {
                  for (Table table : Table.values()) {
                    from.scan(
                        table,
                        new byte[0],
                        (key, value) -> {
                          t.put(table, key, value);
                          return true;
                        });
                  }
                  return null;
                });
            return null;
          });
      KeyLocations back;
      try (ReadTxn t = restored.store.beginRead()) {
        back = KeyLocations.restore(2, snap, t);
      }
      for (String key : new String[] {"k1", "k2", "k3", "fresh", "never"}) {
        try (ReadTxn t1 = c.store.beginRead();
            ReadTxn t2 = restored.store.beginRead()) {
          assertThat(back.locate(t2, B, k(key))).as(key).isEqualTo(c.klt.locate(t1, B, k(key)));
        }
      }
      assertThat(back.owns(B)).isTrue();
      assertThat(back.isFullyLocal(B)).isFalse();
      assertThat(back.holdersOf(B)).isEqualTo(c.klt.holdersOf(B));
      assertThat(back.generation(B)).isEqualTo(c.klt.generation(B));
      assertThat(back.drainCursor(B)).isEqualTo(c.klt.drainCursor(B));
    }
  }

  @Test
  void aBucketThatNeverMovedIsLocalWithoutEntries() {
    a.write("k1", "v1");
    assertThat(a.klt.isFullyLocal(B)).isTrue();
    assertThat(a.resolve("k1")).isEqualTo(0);
    assertThat(a.resolve("unknown")).isEqualTo(0);
    int entries = a.txn(t -> t.scan(Table.LOCATIONS, KeyLayout.bucketPrefix(B), (x, y) -> true));
    assertThat(entries).isZero();
  }

  @Test
  void afterAMoveUntouchedKeysResolveToTheOldOwnerAndNewKeysAreLocal() {
    a.write("k1", "v1");
    a.write("k2", "v2");
    move(a, b);
    assertThat(b.resolve("k1")).isEqualTo(0);
    assertThat(b.resolve("k2")).isEqualTo(0);
    // K7: a key the filter does not know is new: local at once, no round trip
    assertThat(b.resolve("fresh")).isEqualTo(1);
    b.fetch("k1", a);
    assertThat(b.resolve("k1")).isEqualTo(1);
    assertThat(b.read("k1", a, b)).isEqualTo("v1");
    assertThat(b.read("k2", a, b)).isEqualTo("v2");
  }

  @Test
  void k1AReturningBucketNeverReadsTheStaleLocalCopy() {
    a.write("k1", "v1");
    a.write("k2", "v2");
    move(a, b);
    b.fetch("k1", a);
    b.write("k1", "v1-updated-at-b");
    move(b, a);
    // a still has its stale k1 = v1, but k1's entry names b
    assertThat(a.local("k1")).isEqualTo("v1");
    assertThat(a.resolve("k1")).isEqualTo(1);
    assertThat(a.read("k1", a, b)).isEqualTo("v1-updated-at-b");
    // k2 was never touched at b: a's own copy is authoritative
    assertThat(a.resolve("k2")).isEqualTo(0);
    assertThat(a.read("k2", a, b)).isEqualTo("v2");
  }

  @Test
  void k2ADeletedKeyDoesNotComeBack() {
    a.write("k1", "v1");
    move(a, b);
    b.fetch("k1", a);
    b.delete("k1");
    move(b, a);
    assertThat(a.resolve("k1")).as("tombstone: local and absent").isEqualTo(0);
    assertThat(a.local("k1")).as("the stale copy is gone").isNull();
  }

  @Test
  void k3ConvergenceKeepsEntriesThatPointElsewhere() {
    a.write("k1", "v1");
    a.write("k4", "v4");
    move(a, b); // b: default a
    b.fetch("k1", a);
    b.write("k1", "v1-b");
    move(b, c); // c: default a, k1 → b
    // a is drained to the end: without the k1 entry, k1 would look new and be lost
    c.txn(
        t -> {
          c.klt.drainedTo(t, B, null, true);
          return null;
        });
    assertThat(c.klt.isFullyLocal(B)).isFalse();
    assertThat(c.resolve("k1")).isEqualTo(1);
    c.fetch("k1", b);
    assertThat(c.klt.isFullyLocal(B)).isTrue();
    assertThat(c.read("k1", a, b, c)).isEqualTo("v1-b");
  }

  @Test
  void k4ADrainedCopyIsInstalledOnlyFromTheHolderTheKeyResolvesTo() {
    a.write("k", "v1");
    a.write("j", "w1");
    move(a, b);
    b.fetch("k", a);
    b.write("k", "v2");
    move(b, c); // c: default a, k → b
    boolean staleFromA = c.txn(t -> c.klt.acceptsDrained(t, B, k("k"), 0));
    boolean fromB = c.txn(t -> c.klt.acceptsDrained(t, B, k("k"), 1));
    boolean untouchedFromA = c.txn(t -> c.klt.acceptsDrained(t, B, k("j"), 0));
    assertThat(staleFromA).as("a's copy of k is stale").isFalse();
    assertThat(fromB).isTrue();
    assertThat(untouchedFromA).isTrue();
  }

  @Test
  void anyKeyIsOneHopAfterRepeatedMoves() {
    Task[] tasks = {a, b, c, d};
    Random random = new Random(11);
    java.util.Map<String, String> truth = new java.util.HashMap<>();
    for (int i = 0; i < 40; i++) {
      a.write("key" + i, "a" + i);
      truth.put("key" + i, "a" + i);
    }
    Task owner = a;
    for (int round = 0; round < 12; round++) {
      Task next =
          tasks[(java.util.Arrays.asList(tasks).indexOf(owner) + 1 + random.nextInt(3)) % 4];
      move(owner, next);
      owner = next;
      // the new owner touches a few keys: fetch (one hop) then write
      for (int i = 0; i < 5; i++) {
        String key = "key" + random.nextInt(40);
        int at = owner.resolve(key);
        if (at != owner.klt.self()) {
          owner.fetch(key, tasks[at]);
        }
        String value = key + "@" + round;
        owner.write(key, value);
        truth.put(key, value);
      }
      for (int i = 0; i < 40; i++) {
        String key = "key" + i;
        assertThat(owner.read(key, tasks)).as("round %d, %s", round, key).isEqualTo(truth.get(key));
      }
    }
  }

  @Test
  void generationsCountAcquisitions() {
    assertThat(a.klt.generation(B)).isEqualTo(1);
    move(a, b);
    move(b, a);
    assertThat(a.klt.generation(B)).isEqualTo(2);
    assertThat(b.klt.generation(B)).isEqualTo(1);
  }

  @Test
  void membershipFilterHasNoFalseNegativesAndFewFalsePositivesAtItsSize() {
    int n = 100_000;
    MembershipFilter f = new MembershipFilter(n);
    for (int i = 0; i < n; i++) {
      f.add(k("present-" + i));
    }
    assertThat(f.isFull()).isFalse();
    for (int i = 0; i < n; i++) {
      assertThat(f.mightContain(k("present-" + i))).isTrue();
    }
    int falsePositives = 0;
    for (int i = 0; i < n; i++) {
      if (f.mightContain(k("absent-" + i))) {
        falsePositives++;
      }
    }
    // budgets: a false positive costs a new key one fetch; bytes are the KLT's memory (§5.3)
    assertThat(falsePositives / (double) n).as("false-positive rate").isLessThan(0.015);
    assertThat(f.bytes() / (double) n).as("bytes per key").isLessThanOrEqualTo(1.5);
    MembershipFilter copy = MembershipFilter.fromBytes(f.toBytes());
    assertThat(copy.mightContain(k("present-77"))).isTrue();
    assertThat(copy.keys()).isEqualTo(f.keys());
    for (int i = 0; i < n / 10; i++) {
      f.add(k("more-" + i));
    }
    assertThat(f.isFull()).as("past its size").isTrue();
  }

  @Test
  void aGrowingBucketsFilterIsRebuiltFromTheStoreAndStaysSmall() {
    int n = 6_000;
    for (int i = 0; i < n; i++) {
      String key = "k" + i;
      a.txn(
          t -> {
            t.put(Table.STATE, KeyLayout.stateKey(B, k(key), 1, new byte[0]), v("v"));
            return null;
          });
      a.klt.written(B, k(key));
      if (a.klt.hasFullFilters()) {
        try (io.koala.store.ReadTxn t = a.store.beginRead()) {
          a.klt.rebuildFilters(t);
        }
      }
    }
    assertThat(a.klt.hasFullFilters()).isFalse();
    assertThat(a.klt.filterBytes() / (double) n).as("bytes per key").isBetween(1.2, 1.5);
    move(a, b); // the shipped filter knows every key: none resolves as new at b
    for (int i = 0; i < n; i += 97) {
      assertThat(b.resolve("k" + i)).isEqualTo(0);
    }
  }
}
