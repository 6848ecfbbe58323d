package io.koala.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.store.InMemoryStateStore;
import io.koala.store.KeyLayout;
import io.koala.store.LmdbStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.StoreOptions;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A holder's answer: every store entry of each requested key with its bucket's generation, read in
 * store key order whatever the request's order, and inside a message frame: keys beyond its budget
 * are left for later. Against both backends, since LMDB walks the keys with a cursor of its own.
 */
class StateServingTest {
  static final TaskId HOLDER = new TaskId(new OperatorId("count"), 0);

  @Test
  void aReplyStopsAtItsBudgetAndListsTheKeysLeftOut() {
    int valueBytes = 100_000;
    List<KeyRef> keys = new ArrayList<>();
    try (InMemoryStateStore store = new InMemoryStateStore()) {
      try (WriteTxn txn = store.beginWrite()) {
        for (int i = 0; i < 10; i++) {
          byte[] key = {(byte) i};
          keys.add(new KeyRef(7, key));
          txn.put(Table.STATE, KeyLayout.stateKey(7, key, 1, new byte[0]), new byte[valueBytes]);
        }
        txn.commit();
      }
      StateMessage.StateReply reply;
      try (ReadTxn txn = store.beginRead()) {
        reply = StateServing.serve(txn, new StateMessage.Fetch(1, HOLDER, keys, null), HOLDER);
      }
      int served = (StateServing.CHUNK_BYTES + valueBytes - 1) / valueBytes;
      assertThat(reply.keys()).hasSize(served);
      assertThat(reply.keys()).allMatch(k -> !k.absent());
      assertThat(reply.unserved()).containsExactlyElementsOf(keys.subList(served, keys.size()));
    }
  }

  @Test
  void aSmallReplyServesEveryKeyAbsentOrNot() {
    try (InMemoryStateStore store = new InMemoryStateStore()) {
      List<KeyRef> keys = List.of(new KeyRef(1, new byte[] {1}), new KeyRef(2, new byte[] {2}));
      StateMessage.StateReply reply;
      try (ReadTxn txn = store.beginRead()) {
        reply = StateServing.serve(txn, new StateMessage.Fetch(1, HOLDER, keys, null), HOLDER);
      }
      assertThat(reply.keys()).hasSize(2).allMatch(StateMessage.KeyState::absent);
      assertThat(reply.unserved()).isEmpty();
    }
  }

  static StateStore open(boolean lmdb, Path dir) {
    return lmdb ? LmdbStateStore.open(dir, StoreOptions.defaults()) : new InMemoryStateStore();
  }

  @ParameterizedTest(name = "lmdb={0}")
  @ValueSource(booleans = {false, true})
  void anyRequestOrderServesEveryEntryOfEachKeyWithItsBucketsGeneration(
      boolean lmdb, @TempDir Path dir) {
    long seed = System.nanoTime();
    System.out.println("StateServingTest seed " + seed);
    Random random = new Random(seed);
    int[] buckets = {3, 5, 300};
    List<KeyRef> keys = new ArrayList<>();
    try (StateStore store = open(lmdb, dir)) {
      try (WriteTxn txn = store.beginWrite()) {
        txn.put(Table.METADATA, StateServing.generationKey(3), longBytes(7));
        txn.put(Table.METADATA, StateServing.generationKey(5), longBytes(9));
        // bucket 300 has no generation: 0
        for (int b : buckets) {
          for (int i = 0; i < 12; i++) {
            byte[] key = new byte[1 + i % 3];
            random.nextBytes(key);
            KeyRef ref = new KeyRef(b, key);
            if (keys.contains(ref)) {
              continue;
            }
            keys.add(ref);
            for (int e = 0; e < i % 4; e++) { // 0 to 3 entries: some keys are absent
              byte[] ns = e == 2 ? new byte[] {(byte) 0x90} : new byte[0];
              txn.put(Table.STATE, KeyLayout.stateKey(b, key, 1 + e % 2, ns), randomBytes(random));
            }
          }
          // a neighbour nobody asks for
          txn.put(Table.STATE, KeyLayout.stateKey(b, new byte[4], 1, new byte[0]), new byte[1]);
        }
        txn.commit();
      }
      try (ReadTxn txn = store.beginRead()) {
        Map<KeyRef, String> expected = new LinkedHashMap<>();
        List<KeyRef> storeOrder = new ArrayList<>(keys);
        storeOrder.sort(
            (x, y) ->
                Arrays.compareUnsigned(
                    KeyLayout.keyPrefix(x.bucket(), x.key()),
                    KeyLayout.keyPrefix(y.bucket(), y.key())));
        for (KeyRef k : storeOrder) {
          long generation = k.bucket() == 3 ? 7 : k.bucket() == 5 ? 9 : 0;
          expected.put(k, describe(StateServing.stateOf(txn, k, generation)));
        }
        List<KeyRef> shuffled = new ArrayList<>(keys);
        Collections.shuffle(shuffled, random);
        List<KeyRef> reversed = new ArrayList<>(storeOrder);
        Collections.reverse(reversed);
        for (List<KeyRef> request : List.of(storeOrder, reversed, shuffled)) {
          StateMessage.StateReply reply =
              StateServing.serve(txn, new StateMessage.Fetch(1, HOLDER, request, null), HOLDER);
          assertThat(reply.unserved()).isEmpty();
          Map<KeyRef, String> served = new LinkedHashMap<>();
          reply.keys().forEach(ks -> served.put(ks.key(), describe(ks)));
          assertThat(served).containsExactlyEntriesOf(expected); // in store order, too
        }
      }
    }
  }

  @ParameterizedTest(name = "lmdb={0}")
  @ValueSource(booleans = {false, true})
  void theBudgetServesTheFirstKeysInStoreOrderAndLeavesTheTailUnserved(
      boolean lmdb, @TempDir Path dir) {
    int valueBytes = 100_000;
    List<KeyRef> keys = new ArrayList<>();
    try (StateStore store = open(lmdb, dir)) {
      try (WriteTxn txn = store.beginWrite()) {
        for (int i = 0; i < 10; i++) {
          byte[] key = {(byte) i};
          keys.add(new KeyRef(7, key));
          if (i != 1 && i != 5) { // keys 1 and 5 are absent
            txn.put(Table.STATE, KeyLayout.stateKey(7, key, 1, new byte[0]), new byte[valueBytes]);
          }
        }
        txn.commit();
      }
      List<KeyRef> request = new ArrayList<>(keys);
      Collections.reverse(request);
      StateMessage.StateReply reply;
      try (ReadTxn txn = store.beginRead()) {
        reply = StateServing.serve(txn, new StateMessage.Fetch(1, HOLDER, request, null), HOLDER);
      }
      // 0, absent 1, 2 stay under the budget, so 3 is served too; then absent 5 waits like 4
      assertThat(reply.keys())
          .extracting(StateMessage.KeyState::key)
          .containsExactlyElementsOf(keys.subList(0, 4));
      assertThat(reply.keys())
          .extracting(StateMessage.KeyState::absent)
          .containsExactly(false, true, false, false);
      assertThat(reply.unserved()).containsExactlyElementsOf(keys.subList(4, 10));
    }
  }

  private static String describe(StateMessage.KeyState ks) {
    StringBuilder s = new StringBuilder("g" + ks.generation());
    for (int i = 0; i < ks.storeKeys().size(); i++) {
      s.append(' ')
          .append(HexFormat.of().formatHex(ks.storeKeys().get(i)))
          .append('=')
          .append(HexFormat.of().formatHex(ks.values().get(i)));
    }
    return s.toString();
  }

  private static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  private static byte[] randomBytes(Random random) {
    byte[] b = new byte[1 + random.nextInt(40)];
    random.nextBytes(b);
    return b;
  }
}
