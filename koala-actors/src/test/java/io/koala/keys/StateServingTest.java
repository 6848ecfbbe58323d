package io.koala.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.store.InMemoryStateStore;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A holder's answer stays inside a message frame: keys beyond its budget are left for later. */
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
}
