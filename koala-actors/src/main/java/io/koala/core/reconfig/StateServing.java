package io.koala.core.reconfig;

import io.koala.core.reconfig.StateMessage.Fetch;
import io.koala.core.reconfig.StateMessage.KeyRef;
import io.koala.core.reconfig.StateMessage.KeyState;
import io.koala.core.reconfig.StateMessage.StateReply;
import io.koala.plan.TaskId;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * How a holder answers a fetch, from a read transaction of its store: every store entry of each key
 * (all state ids and namespaces, one prefix), and the holder's generation of the key's bucket.
 * Pure; holders never delete on send (§6.7).
 */
public final class StateServing {
  private StateServing() {}

  /** The store key under which a task keeps its generation of {@code bucket}. */
  public static byte[] generationKey(int bucket) {
    return ByteBuffer.allocate(6).put((byte) 'g').put((byte) 'b').putInt(bucket).array();
  }

  /** Answers {@code fetch} as {@code self}. */
  public static StateReply serve(ReadTxn txn, Fetch fetch, TaskId self) {
    List<KeyState> keys = new ArrayList<>(fetch.keys().size());
    for (KeyRef k : fetch.keys()) {
      List<byte[]> storeKeys = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      txn.scan(
          Table.STATE,
          KeyLayout.keyPrefix(k.bucket(), k.key()),
          (sk, v) -> {
            storeKeys.add(sk);
            values.add(v);
            return true;
          });
      byte[] g = txn.get(Table.METADATA, generationKey(k.bucket()));
      keys.add(new KeyState(k, g == null ? 0 : ByteBuffer.wrap(g).getLong(), storeKeys, values));
    }
    return new StateReply(fetch.requestId(), self, keys);
  }
}
