package io.koala.keys;

import io.koala.protocol.StateChunk;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateMessage.KeyState;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A whole bucket's state pushed ahead of its hand-over, as the protocols that move whole buckets do
 * ({@code StateMove.PUSH_AHEAD}): read out at the sender in chunks of about {@link
 * StateServing#CHUNK_BYTES}, by the same scan a holder drains with run to the end, and written at
 * the receiver entry by entry. Pure.
 */
public final class BucketPush {
  private BucketPush() {}

  /** What {@link #install} wrote: keys (a key's several store entries count once) and bytes. */
  public record Written(long keys, long bytes) {}

  /** The state of {@code bucket}, every store entry of it, in chunks. */
  public static List<StateChunk> chunks(ReadTxn txn, int bucket) {
    List<StateChunk> chunks = new ArrayList<>();
    StateMessage.DrainChunk d = null;
    do {
      d =
          StateServing.drain(
              txn, new StateMessage.Drain(bucket, d == null ? null : d.next(), Integer.MAX_VALUE));
      List<byte[]> keys = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      for (KeyState ks : d.keys()) {
        keys.addAll(ks.storeKeys());
        values.addAll(ks.values());
      }
      if (!keys.isEmpty()) {
        chunks.add(new StateChunk(bucket, keys, values));
      }
    } while (!d.end());
    return chunks;
  }

  /** Writes chunk {@code c} into the receiver's store. */
  public static Written install(WriteTxn txn, StateChunk c) {
    long keys = 0;
    long bytes = 0;
    byte[] last = null;
    for (int i = 0; i < c.keys().size(); i++) {
      byte[] k = c.keys().get(i);
      txn.put(Table.STATE, k, c.values().get(i));
      bytes += k.length + c.values().get(i).length;
      byte[] key = KeyLayout.userKeyOf(k);
      if (last == null || !Arrays.equals(key, last)) {
        keys++;
        last = key;
      }
    }
    return new Written(keys, bytes);
  }
}
