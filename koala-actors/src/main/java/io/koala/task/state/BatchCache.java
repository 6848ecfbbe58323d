package io.koala.task.state;

import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The state entries a batch has read or written, as encoded bytes, so a key touched by many records
 * of a batch costs one store read and one store write instead of one of each per record. The first
 * write of a key right after its store read goes through at once (the store then overwrites it in
 * place without searching again, see {@code LmdbStateStore}); later writes of a key wait for {@link
 * #flush}, which applies them in key order. So uniformly spread keys cost what they cost without a
 * cache, and hot keys one write per batch. The cache is empty between batches: no state lives on
 * the heap across batches. Values are kept encoded, so a caller that mutates a value it read sees
 * the same as without the cache.
 */
final class BatchCache {
  private final Map<Key, Entry> entries = new HashMap<>();

  /** The entry most recently read from the store, while nothing else touched the store since. */
  private Entry justRead;

  /** A store key with its hash computed once. */
  private record Key(byte[] bytes, int hash) {
    static Key of(byte[] bytes) {
      return new Key(bytes, Arrays.hashCode(bytes));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && hash == k.hash && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** A cached entry: its current bytes ({@code null}: absent) and whether the store is behind. */
  private static final class Entry {
    byte[] value;
    boolean dirty;
    final boolean loadedAbsent;

    Entry(byte[] value, boolean loadedAbsent) {
      this.value = value;
      this.loadedAbsent = loadedAbsent;
    }
  }

  /** The bytes stored under {@code key} as the batch sees them, or {@code null}. */
  byte[] get(WriteTxn txn, byte[] key) {
    Key k = Key.of(key);
    Entry e = entries.get(k);
    if (e == null) {
      byte[] stored = txn.get(Table.STATE, key);
      e = new Entry(stored, stored == null);
      entries.put(k, e);
      justRead = e.value == null ? null : e;
    }
    return e.value;
  }

  /**
   * Sets the bytes under {@code key} ({@code null}: deletes it).
   *
   * @return whether the entry may not have existed before this batch (a new key, perhaps)
   */
  boolean put(WriteTxn txn, byte[] key, byte[] value) {
    Key k = Key.of(key);
    Entry e = entries.get(k);
    boolean mayBeNew = e == null || e.loadedAbsent;
    if (e == null) {
      e = new Entry(value, true);
      entries.put(k, e);
      e.dirty = true;
    } else if (e == justRead && value != null) {
      txn.put(Table.STATE, key, value); // through the read cursor
      e.value = value;
    } else {
      e.value = value;
      e.dirty = true;
    }
    justRead = null;
    return mayBeNew;
  }

  /** Writes every change to {@code txn}, in key order, and empties the cache. */
  void flush(WriteTxn txn) {
    List<Map.Entry<Key, Entry>> dirty = new ArrayList<>();
    for (Map.Entry<Key, Entry> e : entries.entrySet()) {
      if (e.getValue().dirty) {
        dirty.add(e);
      }
    }
    dirty.sort((a, b) -> Arrays.compareUnsigned(a.getKey().bytes, b.getKey().bytes));
    for (Map.Entry<Key, Entry> e : dirty) {
      byte[] value = e.getValue().value;
      if (value == null) {
        txn.delete(Table.STATE, e.getKey().bytes);
      } else {
        txn.put(Table.STATE, e.getKey().bytes, value);
      }
    }
    entries.clear();
    justRead = null;
  }

  /** Forgets every change (the batch is aborted). */
  void clear() {
    entries.clear();
    justRead = null;
  }
}
