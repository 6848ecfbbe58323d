package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.QueryMessage;
import io.koala.store.InMemoryStateStore;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import io.koala.task.state.KeyedStateBackend;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a task's store gives a scan ({@link KeyQueries#scan}): the keys of one bucket that have the
 * state, in store order, after a cursor, bounded, with only that state's entries.
 */
class KeyQueriesTest {
  private static final int BUCKET = 7;
  private static final byte[] NONE = new byte[0];

  private static byte[] key(String k) {
    return k.getBytes(StandardCharsets.UTF_8);
  }

  /** Keys a, bb, c, dd in bucket 7 with "count"; bb also with "other"; e only with "other". */
  private static StateStore store() {
    StateStore store = new InMemoryStateStore();
    int count = KeyedStateBackend.stateId("count");
    int other = KeyedStateBackend.stateId("other");
    try (WriteTxn txn = store.beginWrite()) {
      for (String k : List.of("a", "bb", "c", "dd")) {
        txn.put(Table.STATE, KeyLayout.stateKey(BUCKET, key(k), count, NONE), key("v" + k));
      }
      txn.put(Table.STATE, KeyLayout.stateKey(BUCKET, key("bb"), other, NONE), key("o"));
      txn.put(Table.STATE, KeyLayout.stateKey(BUCKET, key("e"), other, NONE), key("o"));
      txn.put(Table.STATE, KeyLayout.stateKey(BUCKET + 1, key("a"), count, NONE), key("x"));
      txn.put(Table.STATE, KeyLayout.stateKey(BUCKET, key("m"), count, key("k1")), key("1"));
      txn.put(Table.STATE, KeyLayout.stateKey(BUCKET, key("m"), count, key("k2")), key("2"));
      txn.commit();
    }
    return store;
  }

  private static QueryMessage.Scan scan(byte[] after, int limit) {
    return new QueryMessage.Scan(
        1, "count", QueryMessage.Kind.VALUE, QueryMessage.Types.ANY, BUCKET, after, limit, null);
  }

  private static List<String> keys(KeyQueries.KeysPage page) {
    return page.keys().stream().map(k -> new String(k.key(), StandardCharsets.UTF_8)).toList();
  }

  @Test
  void aScanReadsTheBucketsKeysWithTheStateInStoreOrderAfterTheCursorBoundedByItsLimit() {
    try (StateStore store = store();
        ReadTxn txn = store.beginRead()) {
      KeyQueries.KeysPage all = KeyQueries.scan(txn, scan(null, 100), k -> true);
      // store order: shorter keys first, then bytes; "e" has no "count", bucket 8 is another's
      assertThat(keys(all)).containsExactly("a", "c", "m", "bb", "dd");
      assertThat(all.more()).isFalse();
      assertThat(all.keys().get(3).values()).hasSize(1);
      assertThat(new String(all.keys().get(3).values().get(0), StandardCharsets.UTF_8))
          .isEqualTo("vbb");
      assertThat(all.keys().get(2).namespaces())
          .extracting(ns -> new String(ns, StandardCharsets.UTF_8))
          .containsExactly("k1", "k2");

      KeyQueries.KeysPage first = KeyQueries.scan(txn, scan(null, 2), k -> true);
      assertThat(keys(first)).containsExactly("a", "c");
      assertThat(first.more()).isTrue();
      KeyQueries.KeysPage next = KeyQueries.scan(txn, scan(key("c"), 2), k -> true);
      assertThat(keys(next)).containsExactly("m", "bb");
      KeyQueries.KeysPage last = KeyQueries.scan(txn, scan(key("bb"), 2), k -> true);
      assertThat(keys(last)).containsExactly("dd");
      assertThat(last.more()).isFalse();

      KeyQueries.KeysPage accepted =
          KeyQueries.scan(
              txn, scan(null, 2), k -> !new String(k, StandardCharsets.UTF_8).equals("c"));
      assertThat(keys(accepted)).as("refused keys do not count").containsExactly("a", "m");
    }
  }
}
