package io.koala.keys;

import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.StateMessage.Drain;
import io.koala.protocol.StateMessage.DrainChunk;
import io.koala.protocol.StateMessage.Fetch;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.protocol.StateMessage.KeyState;
import io.koala.protocol.StateMessage.StateReply;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How a holder answers a fetch, from a read transaction of its store: every store entry of each key
 * (all state ids and namespaces, one prefix), and the holder's generation of the key's bucket.
 * Pure; holders never delete on send (§6.7).
 */
public final class StateServing {
  /** Bytes of state a drained chunk stops at (it ends with a whole key, so may exceed it). */
  public static final int CHUNK_BYTES = ChannelSettings.FRAME_BYTES / 4;

  private StateServing() {}

  /** The store key under which a task keeps its generation of {@code bucket}. */
  public static byte[] generationKey(int bucket) {
    return ByteBuffer.allocate(6).put(GENERATION_PREFIX).putInt(bucket).array();
  }

  /** The prefix of every {@link #generationKey}. */
  static final byte[] GENERATION_PREFIX = {'g', 'b'};

  /**
   * Answers {@code fetch} as {@code self}: the requested keys in order until their state reaches
   * {@link #CHUNK_BYTES} (at least one key); the keys beyond are listed as unserved, for the owner
   * to ask for again, so that a reply stays well inside a message frame.
   */
  public static StateReply serve(ReadTxn txn, Fetch fetch, TaskId self) {
    List<KeyState> keys = new ArrayList<>(fetch.keys().size());
    List<KeyRef> unserved = new ArrayList<>();
    long bytes = 0;
    for (KeyRef k : fetch.keys()) {
      if (bytes >= CHUNK_BYTES) {
        unserved.add(k);
        continue;
      }
      KeyState ks = stateOf(txn, k, generation(txn, k.bucket()));
      bytes += ks.bytes();
      keys.add(ks);
    }
    DrainChunk chunk = fetch.drain() == null ? null : drain(txn, fetch.drain());
    return new StateReply(fetch.requestId(), self, keys, chunk, unserved);
  }

  /** The whole state of {@code key} in {@code txn}: every store entry under its prefix. */
  public static KeyState stateOf(ReadTxn txn, KeyRef key, long generation) {
    List<byte[]> storeKeys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    txn.scan(
        Table.STATE,
        KeyLayout.keyPrefix(key.bucket(), key.key()),
        (sk, v) -> {
          storeKeys.add(sk);
          values.add(v);
          return true;
        });
    return new KeyState(key, generation, storeKeys, values);
  }

  /** Replaces the whole state of {@code ks}'s key in {@code txn} with {@code ks}'s entries. */
  public static void replace(WriteTxn txn, KeyState ks) {
    KeyRef ref = ks.key();
    txn.deletePrefix(Table.STATE, KeyLayout.keyPrefix(ref.bucket(), ref.key()));
    for (int i = 0; i < ks.storeKeys().size(); i++) {
      txn.put(Table.STATE, ks.storeKeys().get(i), ks.values().get(i));
    }
  }

  /**
   * The next keys of a bucket after the drain's cursor, every store entry of each, up to the
   * drain's key count or {@link #CHUNK_BYTES} (at least one key).
   */
  public static DrainChunk drain(ReadTxn txn, Drain drain) {
    int bucket = drain.bucket();
    long generation = generation(txn, bucket);
    List<KeyState> keys = new ArrayList<>();
    byte[][] cursor = {drain.after()};
    long[] bytes = {0};
    List<byte[]> storeKeys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    byte[][] current = {null};
    boolean[] full = {false};
    txn.scan(
        Table.STATE,
        KeyLayout.bucketPrefix(bucket),
        drain.after(),
        Integer.MAX_VALUE,
        (sk, v) -> {
          byte[] key = KeyLayout.userKeyOf(sk);
          if (current[0] == null || !Arrays.equals(key, current[0])) {
            if (current[0] != null) {
              keys.add(
                  new KeyState(
                      new KeyRef(bucket, current[0]),
                      generation,
                      List.copyOf(storeKeys),
                      List.copyOf(values)));
              storeKeys.clear();
              values.clear();
              if (keys.size() >= drain.maxKeys() || bytes[0] >= CHUNK_BYTES) {
                full[0] = true;
                return false;
              }
            }
            current[0] = key;
          }
          storeKeys.add(sk);
          values.add(v);
          bytes[0] += sk.length + v.length;
          cursor[0] = sk;
          return true;
        });
    if (!full[0] && current[0] != null) {
      keys.add(new KeyState(new KeyRef(bucket, current[0]), generation, storeKeys, values));
    }
    return new DrainChunk(bucket, keys, cursor[0], !full[0]);
  }

  private static long generation(ReadTxn txn, int bucket) {
    byte[] g = txn.get(Table.METADATA, generationKey(bucket));
    return g == null ? 0 : ByteBuffer.wrap(g).getLong();
  }
}
