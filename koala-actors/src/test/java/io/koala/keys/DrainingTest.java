package io.koala.keys;

import static io.koala.keys.KeyLocationsTest.B;
import static io.koala.keys.KeyLocationsTest.k;
import static io.koala.keys.KeyLocationsTest.move;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.keys.KeyLocationsTest.Task;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.StateMessage.Drain;
import io.koala.protocol.StateMessage.DrainChunk;
import io.koala.protocol.StateMessage.KeyState;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Forced full transfer (DESIGN §6.5) over the pure cores: an owner drains retiring holders with a
 * cursor it drives, installs only what resolves to the sender (K4), and ends up referencing none of
 * them.
 */
class DrainingTest {
  static final DrainSettings SETTINGS = new DrainSettings(3, 5, 10);

  Task a = new Task(0, B);
  Task b = new Task(1);
  Task c = new Task(2);
  long nextRequest;

  @AfterEach
  void close() {
    a.close();
    b.close();
    c.close();
  }

  /** The holder's state server answering a drain. */
  static DrainChunk serve(Task holder, Drain d) {
    try (ReadTxn t = holder.store.beginRead()) {
      return StateServing.drain(t, d);
    }
  }

  /**
   * Runs {@code owner}'s drain of {@code holder} to the end, {@code keys} keys per request, as the
   * task engine does: installs each accepted key, then moves the cursor on. Returns the keys
   * installed.
   */
  int drainAll(Task owner, Draining draining, Task holder, int keys) {
    int installed = 0;
    for (int round = 0; round < 1000; round++) {
      long id = nextRequest++;
      Drain d = draining.next(owner.klt, holder.klt.self(), id, keys);
      if (d == null) {
        return installed;
      }
      DrainChunk chunk = serve(holder, d);
      assertThat(chunk.keys().size()).isLessThanOrEqualTo(keys);
      assertThat(draining.accept(owner.klt, id, holder.klt.self(), chunk)).isTrue();
      installed +=
          owner.txn(
              t -> {
                int n = 0;
                for (KeyState ks : chunk.keys()) {
                  if (owner.klt.acceptsDrained(t, B, ks.key().key(), holder.klt.self())) {
                    t.deletePrefix(Table.STATE, KeyLayout.keyPrefix(B, ks.key().key()));
                    for (int i = 0; i < ks.storeKeys().size(); i++) {
                      t.put(Table.STATE, ks.storeKeys().get(i), ks.values().get(i));
                    }
                    owner.klt.installed(t, B, ks.key().key(), holder.klt.self());
                    n++;
                  }
                }
                draining.advanced(t, owner.klt, holder.klt.self(), chunk);
                return n;
              });
    }
    throw new AssertionError("the drain did not end");
  }

  @Test
  void aDrainMovesEveryKeyWithAllItsEntriesAndEndsTheReference() {
    for (int i = 0; i < 23; i++) {
      a.write("k" + i, "v" + i);
    }
    // a key with several store entries (another state id) must arrive whole
    a.txn(
        t -> {
          t.put(Table.STATE, KeyLayout.stateKey(B, k("k7"), 2, new byte[0]), k("second"));
          return null;
        });
    move(a, b);
    Draining draining = new Draining();
    draining.retiring(1, Set.of(0), SETTINGS);
    assertThat(draining.referenced(b.klt)).containsExactly(0);

    assertThat(drainAll(b, draining, a, 4)).isEqualTo(23);

    assertThat(draining.referenced(b.klt)).isEmpty();
    assertThat(b.klt.isFullyLocal(B)).as("nothing of the bucket is elsewhere").isTrue();
    for (int i = 0; i < 23; i++) {
      assertThat(b.read("k" + i, a, b)).isEqualTo("v" + i);
    }
    byte[] second = b.txn(t -> t.get(Table.STATE, KeyLayout.stateKey(B, k("k7"), 2, new byte[0])));
    assertThat(second).isEqualTo(k("second"));
  }

  @Test
  void k4AStaleCopyAtTheHolderIsNotInstalled() {
    a.write("k1", "v1");
    a.write("k2", "v2");
    move(a, b);
    b.fetch("k1", a);
    b.write("k1", "v1-at-b"); // a's copy of k1 is stale now (its release has not arrived)
    Draining draining = new Draining();
    draining.retiring(1, Set.of(0), SETTINGS);

    assertThat(drainAll(b, draining, a, 10)).as("only k2 resolves to a").isEqualTo(1);

    assertThat(b.read("k1", a, b)).isEqualTo("v1-at-b");
    assertThat(b.read("k2", a, b)).isEqualTo("v2");
    assertThat(draining.referenced(b.klt)).isEmpty();
  }

  @Test
  void keysAnEntryNamesAtARetiringHolderAreDrainedWithItsScan() {
    a.write("k1", "v1");
    a.write("k2", "v2");
    move(a, b);
    b.fetch("k1", a);
    b.write("k1", "v1-at-b");
    move(b, c); // c: default holder a; k1 → b
    Draining draining = new Draining();
    draining.retiring(2, Set.of(0, 1), SETTINGS);
    assertThat(draining.referenced(c.klt)).containsExactly(0, 1);

    drainAll(c, draining, a, 10); // a's stale k1 is discarded: k1 resolves to b
    assertThat(draining.referenced(c.klt)).containsExactly(1);
    drainAll(c, draining, b, 10);

    assertThat(draining.referenced(c.klt)).isEmpty();
    assertThat(c.read("k1", a, b, c)).isEqualTo("v1-at-b");
    assertThat(c.read("k2", a, b, c)).isEqualTo("v2");
  }

  @Test
  void oneRequestPerHolderAndALateChunkForABucketThatMovedIsDiscarded() {
    a.write("k1", "v1");
    move(a, b);
    Draining draining = new Draining();
    draining.retiring(1, Set.of(0), SETTINGS);
    Drain first = draining.next(b.klt, 0, 10, 5);
    assertThat(first).isNotNull();
    assertThat(draining.next(b.klt, 0, 11, 5)).as("one outstanding per holder").isNull();
    assertThat(draining.next(b.klt, 2, 12, 5)).as("task 2 is not retiring").isNull();

    move(b, c);
    draining.bucketChanged(B);
    DrainChunk late = serve(a, first);
    assertThat(draining.accept(b.klt, 10, 0, late)).isFalse();
    // the new owner resumes from the shipped cursor (here: the start)
    Draining atC = new Draining();
    atC.retiring(2, Set.of(0), SETTINGS);
    assertThat(drainAll(c, atC, a, 5)).isEqualTo(1);
    assertThat(c.read("k1", a, c)).isEqualTo("v1");
  }

  @Test
  void referencesAreReportedOncePerChangeAndPerPublication() {
    a.write("k1", "v1");
    move(a, b);
    Draining draining = new Draining();
    assertThat(draining.toReport(b.klt, Set.of())).as("nothing published yet").isNull();
    draining.retiring(3, Set.of(0), SETTINGS);
    assertThat(draining.toReport(b.klt, Set.of())).containsExactly(0);
    assertThat(draining.toReport(b.klt, Set.of())).isNull();
    draining.retiring(2, Set.of(), SETTINGS); // an older publication is ignored
    assertThat(draining.isRetiring(0)).isTrue();
    drainAll(b, draining, a, 5);
    assertThat(draining.toReport(b.klt, Set.of(0)))
        .as("nothing named there, but a request awaits its reply: still referenced")
        .isNull();
    assertThat(draining.toReport(b.klt, Set.of(7))).as("7 does not retire").isEmpty();
    draining.retiring(4, Set.of(0), SETTINGS);
    assertThat(draining.toReport(b.klt, Set.of())).as("a new publication is answered").isEmpty();
    assertThat(draining.version()).isEqualTo(4);
  }

  @Test
  void chunksStopAtTheirKeyCountAndTheCursorSkipsWholeKeys() {
    for (int i = 0; i < 10; i++) {
      a.write("k" + i, "v" + i);
      int n = i;
      a.txn(
          t -> {
            t.put(Table.STATE, KeyLayout.stateKey(B, k("k" + n), 2, new byte[0]), k("x"));
            return null;
          });
    }
    DrainChunk first = serve(a, new Drain(B, null, 4));
    assertThat(first.keys()).hasSize(4).allMatch(ks -> ks.storeKeys().size() == 2);
    assertThat(first.end()).isFalse();
    DrainChunk rest = serve(a, new Drain(B, first.next(), 100));
    assertThat(rest.keys()).hasSize(6);
    assertThat(rest.end()).isTrue();
    List<String> all =
        java.util.stream.Stream.concat(first.keys().stream(), rest.keys().stream())
            .map(ks -> new String(ks.key().key(), java.nio.charset.StandardCharsets.UTF_8))
            .distinct()
            .toList();
    assertThat(all).hasSize(10);
  }
}
