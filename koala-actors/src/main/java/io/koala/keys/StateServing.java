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
import io.koala.store.PrefixEntryVisitor;
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
   * Answers {@code fetch} as {@code self}: the requested keys in store key order (bucket, then key
   * length, then key bytes: {@link KeyLayout}) until their state reaches {@link #CHUNK_BYTES} (at
   * least one key); the keys beyond are listed as unserved, for the owner to ask for again, so that
   * a reply stays well inside a message frame. The keys are read with one forward walk of the store
   * ({@link ReadTxn#scanPrefixes}) and each bucket's generation once.
   */
  public static StateReply serve(ReadTxn txn, Fetch fetch, TaskId self) {
    int n = fetch.keys().size();
    Requested[] sorted = new Requested[n];
    for (int i = 0; i < n; i++) {
      KeyRef k = fetch.keys().get(i);
      sorted[i] = new Requested(k, KeyLayout.keyPrefix(k.bucket(), k.key()));
    }
    Arrays.sort(sorted, (a, b) -> Arrays.compareUnsigned(a.prefix, b.prefix));
    KeyRef[] keys = new KeyRef[n];
    long[] generations = new long[n];
    List<byte[]> prefixes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys[i] = sorted[i].key;
      int bucket = keys[i].bucket();
      generations[i] =
          i > 0 && keys[i - 1].bucket() == bucket ? generations[i - 1] : generation(txn, bucket);
      prefixes.add(sorted[i].prefix);
    }
    Collector served = new Collector(keys, generations);
    txn.scanPrefixes(Table.STATE, prefixes, served);
    served.finish();
    DrainChunk chunk = fetch.drain() == null ? null : drain(txn, fetch.drain());
    List<KeyRef> unserved = Arrays.asList(keys).subList(served.decided, n);
    return new StateReply(fetch.requestId(), self, served.states, chunk, unserved);
  }

  /** A requested key and the prefix of its store entries, by which it sorts. */
  private record Requested(KeyRef key, byte[] prefix) {}

  /**
   * Gathers the entries of a scan of sorted keys into their states, deciding the keys in order: a
   * key is served (with its entries, or absent without any) while the state gathered before it is
   * under {@link #CHUNK_BYTES}; the keys from {@link #decided} on are left unserved.
   */
  private static final class Collector implements PrefixEntryVisitor {
    private final KeyRef[] keys;
    private final long[] generations;
    final List<KeyState> states;
    int decided;
    private long bytes;
    private int open = -1;
    private List<byte[]> storeKeys;
    private List<byte[]> values;

    Collector(KeyRef[] keys, long[] generations) {
      this.keys = keys;
      this.generations = generations;
      this.states = new ArrayList<>(keys.length);
    }

    @Override
    public boolean visit(int prefix, byte[] key, byte[] value) {
      if (prefix != open) {
        closeOpen();
        if (!serveAbsentUpTo(prefix) || bytes >= CHUNK_BYTES) {
          return false; // the budget is spent: this key and those after it stay unserved
        }
        open = prefix;
        storeKeys = new ArrayList<>(1);
        values = new ArrayList<>(1);
      }
      storeKeys.add(key);
      values.add(value);
      bytes += key.length + value.length;
      return true;
    }

    /** After the scan: the key still open, and the keys after it without entries while room. */
    void finish() {
      closeOpen();
      serveAbsentUpTo(keys.length);
    }

    private void closeOpen() {
      if (open >= 0) {
        states.add(new KeyState(keys[open], generations[open], storeKeys, values));
        decided = open + 1;
        open = -1;
      }
    }

    /** Serves the keys before {@code end} that had no entries; false when the budget ran out. */
    private boolean serveAbsentUpTo(int end) {
      for (; decided < end; decided++) {
        if (bytes >= CHUNK_BYTES) {
          return false;
        }
        states.add(new KeyState(keys[decided], generations[decided], List.of(), List.of()));
      }
      return true;
    }
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
