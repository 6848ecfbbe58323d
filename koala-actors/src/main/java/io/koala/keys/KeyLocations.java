package io.koala.keys;

import io.koala.protocol.BucketHandover;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The key lookup table of one task (DESIGN §5.3): for each bucket it owns, where the state of each
 * key physically is, so that any key is one hop from its owner after any number of
 * reconfigurations.
 *
 * <ul>
 *   <li>A bucket that never moved (or has converged) is <b>fully local</b>: no entries, and a
 *       lookup is one map read.
 *   <li>A moved bucket has a <b>default holder</b> (where its untouched keys are), a <b>membership
 *       filter</b> of the keys there, and exact <b>entries</b> for keys touched since it moved, in
 *       the store's {@link Table#LOCATIONS} table ({@code bucket | keyLen | key → holder |
 *       ABSENT}): full keys, never hashes.
 *   <li><b>Resolution</b>: the entry if there is one (an entry naming this task means the local
 *       store is authoritative; ABSENT means the key was deleted, so a stale local copy is deleted
 *       before use); else, if the filter says the key is not at the default holder, the key is new
 *       and local (an entry records it, so a later hand-over knows it is here); else the default
 *       holder. The local store is never consulted first (hazard K1).
 *   <li>A bucket becomes fully local again when its default holder is this task or has been drained
 *       and no entry names another task; only then are its entries dropped (K3).
 * </ul>
 *
 * <p>Also keeps, for every owned bucket, the membership filter of the keys present locally (added
 * to as keys are written), so a hand-over never scans a bucket, and a generation per bucket, bumped
 * each time the task gains it, so that a late release of a copy never deletes one written since
 * (K5). Not thread-safe: used by the owning task inside its batch transaction.
 */
public final class KeyLocations {
  private static final byte HOLDER = 0;
  private static final byte ABSENT = 1;

  /** {@link #locate}: the key's state was deleted since its bucket moved; it has none. */
  public static final int DELETED = -1;

  private final int self;
  private final Map<Integer, Moved> moved = new HashMap<>();
  private Moved[] movedByBucket = new Moved[128]; // the same, indexed by bucket: the hot path
  private final Map<Integer, MembershipFilter> localKeys = new HashMap<>();
  private final Map<Integer, Long> generations = new HashMap<>();
  private final Set<Integer> full = new TreeSet<>(); // buckets whose local filter outgrew its size

  /**
   * A moved bucket's location metadata; its entries are in the store, and those that say LOCAL are
   * also in {@code local}, so that resolving a key already here reads no store.
   */
  private static final class Moved {
    final LocalKeySet local = new LocalKeySet();
    int defaultHolder;
    MembershipFilter filter;
    byte[] drainCursor;
    boolean drained;
    final Map<Integer, Long> remote = new HashMap<>(); // holder → entries naming it

    void addRemote(int holder, long n) {
      remote.merge(holder, n, (a, b) -> a + b == 0 ? null : a + b);
    }
  }

  /**
   * @param self this task's index
   * @param ownedBuckets the buckets it owns at start, all fully local
   */
  public KeyLocations(int self, int[] ownedBuckets) {
    this.self = self;
    for (int b : ownedBuckets) {
      localKeys.put(b, new MembershipFilter());
      generations.put(b, 1L);
    }
  }

  private Moved movedAt(int bucket) {
    return bucket < movedByBucket.length ? movedByBucket[bucket] : null;
  }

  private void forget(int bucket) {
    moved.remove(bucket);
    if (bucket < movedByBucket.length) {
      movedByBucket[bucket] = null;
    }
  }

  /** This task's index. */
  public int self() {
    return self;
  }

  /** Whether this task owns {@code bucket}. */
  public boolean owns(int bucket) {
    return localKeys.containsKey(bucket);
  }

  /** Whether {@code bucket} is owned and fully local (no lookup needed). */
  public boolean isFullyLocal(int bucket) {
    return movedAt(bucket) == null;
  }

  /**
   * Where the state of {@code key} in owned {@code bucket} is: {@link #self()} when the local store
   * is authoritative for it, else the index of the task holding it. Resolving a deleted key deletes
   * its stale local copy; resolving a new key records an entry for it.
   */
  public int resolve(WriteTxn txn, int bucket, byte[] key) {
    Moved m = movedAt(bucket);
    if (m == null) {
      return self;
    }
    if (m.local.contains(key)) {
      return self; // its entry says LOCAL, and stays so while the bucket is here
    }
    byte[] entryKey = KeyLayout.keyPrefix(bucket, key);
    byte[] entry = txn.get(Table.LOCATIONS, entryKey);
    if (entry != null) {
      if (entry[0] == ABSENT) {
        txn.deletePrefix(Table.STATE, entryKey);
        txn.put(Table.LOCATIONS, entryKey, holder(self));
        m.local.add(key);
        return self;
      }
      int at = holderIn(entry);
      if (at == self) {
        m.local.add(key);
      }
      return at;
    }
    if (!m.filter.mightContain(key)) {
      // a new key: local from now on, and an entry says so at the next hand-over
      txn.put(Table.LOCATIONS, entryKey, holder(self));
      m.local.add(key);
      return self;
    }
    return m.drained ? self : m.defaultHolder;
  }

  /**
   * Where the state of {@code key} in owned {@code bucket} is, as {@link #resolve} answers, but
   * without any effect (for reads from outside the task's batches, such as a test driver's): {@link
   * #self()}, the index of the task holding it, or {@link #DELETED}. A key this task does not have
   * yet resolves to {@link #self()}.
   */
  public int locate(ReadTxn txn, int bucket, byte[] key) {
    Moved m = movedAt(bucket);
    if (m == null || m.local.contains(key)) {
      return self;
    }
    byte[] entry = txn.get(Table.LOCATIONS, KeyLayout.keyPrefix(bucket, key));
    if (entry != null) {
      return entry[0] == ABSENT ? DELETED : holderIn(entry);
    }
    return !m.filter.mightContain(key) || m.drained ? self : m.defaultHolder;
  }

  /**
   * The owner installed {@code key}'s state (or learnt it is absent) from {@code from}: the key is
   * local from now on. The caller has written (or deleted) the local copy in {@code txn}.
   */
  public void installed(WriteTxn txn, int bucket, byte[] key, int from) {
    Moved m = movedAt(bucket);
    if (m == null) {
      throw new IllegalStateException("bucket " + bucket + " is fully local at task " + self);
    }
    byte[] entryKey = KeyLayout.keyPrefix(bucket, key);
    byte[] entry = txn.get(Table.LOCATIONS, entryKey);
    if (entry != null && entry[0] == HOLDER && ByteBuffer.wrap(entry, 1, 4).getInt() != self) {
      m.addRemote(ByteBuffer.wrap(entry, 1, 4).getInt(), -1);
    }
    txn.put(Table.LOCATIONS, entryKey, holder(self));
    m.local.add(key);
    addLocal(bucket, key);
    converge(txn, bucket, m);
  }

  /**
   * Whether a key drained or piggybacked from {@code from} may be installed: only if it resolves to
   * exactly that task right now (K4); otherwise the copy is stale and is discarded.
   */
  public boolean acceptsDrained(WriteTxn txn, int bucket, byte[] key, int from) {
    Moved m = movedAt(bucket);
    if (m == null) {
      return false;
    }
    byte[] entry = txn.get(Table.LOCATIONS, KeyLayout.keyPrefix(bucket, key));
    if (entry != null) {
      return entry[0] == HOLDER && ByteBuffer.wrap(entry, 1, 4).getInt() == from;
    }
    return !m.drained && m.defaultHolder == from && m.filter.mightContain(key);
  }

  /** A key of an owned bucket was written locally: it is present here from now on. */
  public void written(int bucket, byte[] key) {
    addLocal(bucket, key);
  }

  private void addLocal(int bucket, byte[] key) {
    MembershipFilter f = localKeys.get(bucket);
    f.add(key);
    if (f.isFull()) {
      full.add(bucket);
    }
  }

  /** Whether some filter of local keys has outgrown its size ({@link #rebuildFilters}). */
  public boolean hasFullFilters() {
    return !full.isEmpty();
  }

  /**
   * Rebuilds each filter of local keys that has outgrown its size from the keys present in the
   * store ({@code txn} sees the batch just committed), with room to grow: a filter stays between
   * 9.6 and 12 bits per key ({@link MembershipFilter}). Keys deleted since are dropped on the way.
   */
  public void rebuildFilters(ReadTxn txn) {
    for (int bucket : full) {
      if (!localKeys.containsKey(bucket)) {
        continue; // handed over since
      }
      List<byte[]> present = new ArrayList<>();
      byte[][] last = {null};
      txn.scan(
          Table.STATE,
          KeyLayout.bucketPrefix(bucket),
          (k, v) -> {
            byte[] key = KeyLayout.userKeyOf(k);
            if (last[0] == null || !Arrays.equals(key, last[0])) {
              present.add(key);
              last[0] = key;
            }
            return true;
          });
      MembershipFilter f = MembershipFilter.forKeys(present.size());
      present.forEach(f::add);
      localKeys.put(bucket, f);
    }
    full.clear();
  }

  /**
   * The drain of {@code bucket}'s default holder advanced to {@code cursor}; {@code end} when it is
   * complete (every chunk installed).
   */
  public void drainedTo(WriteTxn txn, int bucket, byte[] cursor, boolean end) {
    Moved m = movedAt(bucket);
    if (m == null || m.drained) {
      return;
    }
    m.drainCursor = cursor;
    m.drained = end;
    converge(txn, bucket, m);
  }

  /**
   * The tasks other than this one that hold state of owned {@code bucket}: its default holder until
   * drained, and every holder an entry names.
   */
  public Set<Integer> holdersOf(int bucket) {
    Moved m = movedAt(bucket);
    if (m == null) {
      return Set.of();
    }
    Set<Integer> out = new TreeSet<>(m.remote.keySet());
    if (!m.drained && m.defaultHolder != self) {
      out.add(m.defaultHolder);
    }
    return out;
  }

  /** Owned buckets whose keys may be elsewhere, in ascending order. */
  public int[] movedBuckets() {
    return moved.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
  }

  /** Up to {@code limit} keys of owned {@code bucket} whose entries name {@code holder}. */
  public List<byte[]> entriesNaming(WriteTxn txn, int bucket, int holder, int limit) {
    List<byte[]> out = new ArrayList<>();
    Moved m = movedAt(bucket);
    if (m == null || !m.remote.containsKey(holder)) {
      return out;
    }
    txn.scan(
        Table.LOCATIONS,
        KeyLayout.bucketPrefix(bucket),
        (k, v) -> {
          if (v[0] == HOLDER && ByteBuffer.wrap(v, 1, 4).getInt() == holder) {
            out.add(KeyLayout.userKeyOf(k));
          }
          return out.size() < limit;
        });
    return out;
  }

  /** The drain cursor of {@code bucket}'s default holder, or {@code null} (from the start). */
  public byte[] drainCursor(int bucket) {
    Moved m = movedAt(bucket);
    return m == null ? null : m.drainCursor;
  }

  /** The default holder of a moved bucket, or {@link #self()} for a fully local one. */
  public int defaultHolder(int bucket) {
    Moved m = movedAt(bucket);
    return m == null || m.drained ? self : m.defaultHolder;
  }

  /** The generation of an owned bucket here (bumped each time the task gains it). */
  public long generation(int bucket) {
    return generations.getOrDefault(bucket, 0L);
  }

  /**
   * Gives up {@code bucket}: returns what the receiver needs and forgets the bucket (the local
   * copies stay, as holder). Keys local here are shipped as held here, or ABSENT when this task has
   * no state for them.
   */
  public BucketHandover handOver(WriteTxn txn, int bucket) {
    MembershipFilter local = localKeys.remove(bucket);
    if (local == null) {
      throw new IllegalStateException("task " + self + " does not own bucket " + bucket);
    }
    Moved m = movedAt(bucket);
    forget(bucket);
    if (m == null) {
      return new BucketHandover(bucket, self, local.toBytes(), null, false, List.of());
    }
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    txn.scan(
        Table.LOCATIONS,
        KeyLayout.bucketPrefix(bucket),
        (k, v) -> {
          keys.add(KeyLayout.userKeyOf(k));
          values.add(v);
          return true;
        });
    List<BucketHandover.Entry> entries = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      byte[] key = keys.get(i);
      byte[] v = values.get(i);
      if (v[0] == ABSENT) {
        entries.add(new BucketHandover.Entry(key, -1, true));
      } else {
        int h = ByteBuffer.wrap(v, 1, 4).getInt();
        boolean present = h != self || hasState(txn, bucket, key);
        entries.add(new BucketHandover.Entry(key, h, !present));
      }
    }
    txn.deletePrefix(Table.LOCATIONS, KeyLayout.bucketPrefix(bucket));
    int defaultHolder = m.drained ? self : m.defaultHolder;
    MembershipFilter filter = m.drained ? local : m.filter;
    return new BucketHandover(
        bucket, defaultHolder, filter.toBytes(), m.drained ? null : m.drainCursor, false, entries);
  }

  /** Records the generations of the buckets owned at start in the store (for the state server). */
  public void init(WriteTxn txn) {
    generations.forEach((b, g) -> writeGeneration(txn, b, g));
  }

  private static void writeGeneration(WriteTxn txn, int bucket, long generation) {
    txn.put(
        Table.METADATA,
        StateServing.generationKey(bucket),
        ByteBuffer.allocate(8).putLong(generation).array());
  }

  /** Takes ownership of a bucket handed over by another task. */
  public void takeOver(WriteTxn txn, BucketHandover h) {
    int bucket = h.bucket();
    if (localKeys.containsKey(bucket)) {
      throw new IllegalStateException("task " + self + " already owns bucket " + bucket);
    }
    writeGeneration(txn, bucket, generations.merge(bucket, 1L, Long::sum));
    MembershipFilter shipped = MembershipFilter.fromBytes(h.filter());
    // the keys this task is authoritative for: those the shipped filter describes if they are
    // here, plus the entries naming this task
    MembershipFilter local =
        h.defaultHolder() == self ? MembershipFilter.fromBytes(h.filter()) : new MembershipFilter();
    Moved m = new Moved();
    m.defaultHolder = h.defaultHolder();
    m.filter = shipped;
    m.drainCursor = h.drainCursor();
    m.drained = h.drained();
    txn.deletePrefix(Table.LOCATIONS, KeyLayout.bucketPrefix(bucket)); // an earlier ownership's
    for (BucketHandover.Entry e : h.entries()) {
      byte[] value = e.absent() ? new byte[] {ABSENT} : holder(e.holder());
      txn.put(Table.LOCATIONS, KeyLayout.keyPrefix(bucket, e.key()), value);
      if (!e.absent() && e.holder() == self) {
        local.add(e.key());
        m.local.add(e.key());
      } else if (!e.absent()) {
        m.addRemote(e.holder(), 1);
      }
    }
    localKeys.put(bucket, local);
    if (local.isFull()) {
      full.add(bucket);
    }
    moved.put(bucket, m);
    if (bucket >= movedByBucket.length) {
      movedByBucket = Arrays.copyOf(movedByBucket, Math.max(bucket + 1, 2 * movedByBucket.length));
    }
    movedByBucket[bucket] = m;
    converge(txn, bucket, m);
  }

  /**
   * What a checkpoint keeps of the table besides the store (DESIGN §8): per owned bucket, the
   * filter of its local keys and, for a moved bucket, its default holder, that holder's filter, the
   * drain cursor and whether the drain is complete. Entries and generations are in the store
   * already.
   */
  public record Snapshot(List<OwnedBucket> buckets) {
    public Snapshot {
      buckets = List.copyOf(buckets);
    }
  }

  /** One owned bucket in a {@link Snapshot}; {@code defaultFilter} is null for a local bucket. */
  public record OwnedBucket(
      int bucket,
      byte[] localFilter,
      int defaultHolder,
      byte[] defaultFilter,
      byte[] drainCursor,
      boolean drained) {}

  /** The table's in-memory part, to be restored with the store of the same instant. */
  public Snapshot snapshot() {
    List<OwnedBucket> out = new ArrayList<>();
    for (int bucket : new TreeSet<>(localKeys.keySet())) {
      Moved m = movedAt(bucket);
      byte[] local = localKeys.get(bucket).toBytes();
      out.add(
          m == null
              ? new OwnedBucket(bucket, local, self, null, null, false)
              : new OwnedBucket(
                  bucket, local, m.defaultHolder, m.filter.toBytes(), m.drainCursor, m.drained));
    }
    return new Snapshot(out);
  }

  /**
   * The table of task {@code self} as {@link #snapshot} saw it, with {@code txn} reading the store
   * restored from the same checkpoint: the keys known local and the counts of entries naming other
   * tasks come from its entries, the generations from its metadata.
   */
  public static KeyLocations restore(int self, Snapshot snapshot, ReadTxn txn) {
    KeyLocations k = new KeyLocations(self, new int[0]);
    for (OwnedBucket b : snapshot.buckets()) {
      MembershipFilter local = MembershipFilter.fromBytes(b.localFilter());
      k.localKeys.put(b.bucket(), local);
      if (local.isFull()) {
        k.full.add(b.bucket());
      }
      if (b.defaultFilter() == null) {
        continue;
      }
      Moved m = new Moved();
      m.defaultHolder = b.defaultHolder();
      m.filter = MembershipFilter.fromBytes(b.defaultFilter());
      m.drainCursor = b.drainCursor();
      m.drained = b.drained();
      txn.scan(
          Table.LOCATIONS,
          KeyLayout.bucketPrefix(b.bucket()),
          (key, v) -> {
            if (v[0] == HOLDER && holderIn(v) == self) {
              m.local.add(KeyLayout.userKeyOf(key));
            } else if (v[0] == HOLDER) {
              m.addRemote(holderIn(v), 1);
            }
            return true;
          });
      k.moved.put(b.bucket(), m);
      if (b.bucket() >= k.movedByBucket.length) {
        k.movedByBucket =
            Arrays.copyOf(k.movedByBucket, Math.max(b.bucket() + 1, 2 * k.movedByBucket.length));
      }
      k.movedByBucket[b.bucket()] = m;
    }
    txn.scan(
        Table.METADATA,
        StateServing.GENERATION_PREFIX,
        (key, v) -> {
          k.generations.put(ByteBuffer.wrap(key, 2, 4).getInt(), ByteBuffer.wrap(v).getLong());
          return true;
        });
    return k;
  }

  /** Drops a moved bucket's metadata once everything of it is local (K3). */
  private void converge(WriteTxn txn, int bucket, Moved m) {
    boolean defaultDone = m.drained || m.defaultHolder == self;
    if (!defaultDone || !m.remote.isEmpty()) {
      return;
    }
    // tombstones stand for stale local copies: delete those before forgetting the tombstones
    List<byte[]> absent = new ArrayList<>();
    txn.scan(
        Table.LOCATIONS,
        KeyLayout.bucketPrefix(bucket),
        (k, v) -> {
          if (v[0] == ABSENT) {
            absent.add(KeyLayout.userKeyOf(k));
          }
          return true;
        });
    for (byte[] key : absent) {
      txn.deletePrefix(Table.STATE, KeyLayout.keyPrefix(bucket, key));
    }
    txn.deletePrefix(Table.LOCATIONS, KeyLayout.bucketPrefix(bucket));
    forget(bucket);
  }

  private static boolean hasState(WriteTxn txn, int bucket, byte[] key) {
    return txn.scan(Table.STATE, KeyLayout.keyPrefix(bucket, key), null, 1, (a, b) -> false) > 0;
  }

  /** Bytes of membership filters kept in memory. */
  public long filterBytes() {
    long b = 0;
    for (MembershipFilter f : localKeys.values()) {
      b += f.bytes();
    }
    for (Moved m : moved.values()) {
      b += m.filter.bytes();
    }
    return b;
  }

  /**
   * Bytes the lookup table keeps in memory: its membership filters and, per moved bucket, the keys
   * known to be local (their entries themselves are in the store).
   */
  public long memoryBytes() {
    long b = filterBytes();
    for (Moved m : moved.values()) {
      b += m.local.bytes();
    }
    return b;
  }

  private static int holderIn(byte[] entry) {
    return ByteBuffer.wrap(entry, 1, 4).getInt();
  }

  private static byte[] holder(int task) {
    return ByteBuffer.allocate(5).put(HOLDER).putInt(task).array();
  }
}
