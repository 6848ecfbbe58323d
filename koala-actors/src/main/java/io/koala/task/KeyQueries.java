package io.koala.task;

import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.QueryMessage;
import io.koala.protocol.StateServerAddress;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.Table;
import io.koala.task.state.KeyedStateBackend;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers state queries (docs/decisions.md, "State queries during live moves") at the task that
 * processes the key's bucket, between batches: from its own store when the key's state is here,
 * else by asking the holder its lookup table names, whose state server answers the client. A task
 * that does not process the bucket says so (naming the task it handed the bucket to, if any): only
 * the bucket's current owner decides where a key's state is, which is what keeps each key's answers
 * from going backwards.
 */
public final class KeyQueries {
  private final TaskId self;
  private final TaskHost host;
  private final StatePlane keyed; // null: the chain keeps no keyed state
  private final StateStore store; // null likewise
  private final boolean remoteState; // the keyed state lives at remote state services
  private final String keyType; // the class the operator declared its keys as, or null
  private final EpochParticipant epoch;

  KeyQueries(
      TaskId self,
      TaskHost host,
      StatePlane keyed,
      StateStore store,
      boolean remoteState,
      Class<?> keyType,
      EpochParticipant epoch) {
    this.self = self;
    this.host = host;
    this.keyed = keyed;
    this.store = store;
    this.remoteState = remoteState;
    this.keyType = keyType == null ? null : keyType.getName();
    this.epoch = epoch;
  }

  /** Answers {@code read}, or has the key's holder answer it; {@code serving}: the task may. */
  void onRead(QueryMessage.Read read, boolean serving) {
    if (elsewhere(read.bucket(), serving)) {
      host.send(
          read.replyTo(),
          new QueryMessage.NotHere(read.id(), self.index(), epoch.handedTo(read.bucket())));
      return;
    }
    String refusal = refusal(read.state(), read.kind(), read.types());
    if (refusal != null) {
      host.send(read.replyTo(), new QueryMessage.Refused(read.id(), refusal));
      return;
    }
    QueryMessage.Declared declared = declared(read);
    int at = keyed.locate(read.bucket(), read.key());
    if (at == io.koala.keys.KeyLocations.DELETED) {
      host.send(
          read.replyTo(),
          new QueryMessage.Found(read.id(), self.index(), false, List.of(), List.of(), declared));
    } else if (at == self.index()) {
      host.send(read.replyTo(), answer(read, store, self.index(), false, declared));
    } else {
      host.send(
          new StateServerAddress(new TaskId(self.operator(), at)),
          new QueryMessage.HolderRead(read, self.index(), at, declared));
    }
  }

  /**
   * Answers {@code scan}: from this task's store when no key of the bucket can be elsewhere, else
   * once every holder the bucket's lookup table names has said what it has ({@link
   * #onHolderScanned}).
   */
  void onScan(QueryMessage.Scan scan, boolean serving, long nowNanos) {
    if (elsewhere(scan.bucket(), serving)) {
      host.send(
          scan.replyTo(),
          new QueryMessage.NotHere(scan.id(), self.index(), epoch.handedTo(scan.bucket())));
      return;
    }
    String refusal = refusal(scan.state(), scan.kind(), scan.types());
    if (refusal != null) {
      host.send(scan.replyTo(), new QueryMessage.Refused(scan.id(), refusal));
      return;
    }
    java.util.Set<Integer> holders = new java.util.TreeSet<>(keyed.holdersOf(scan.bucket()));
    holders.remove(self.index());
    PendingScan p = new PendingScan(scan, holders, nowNanos);
    scans.put(scan.id(), p);
    for (int holder : holders) {
      host.send(
          new StateServerAddress(new TaskId(self.operator(), holder)),
          new QueryMessage.HolderScan(scan, self.index(), holder));
    }
    finishIfComplete(p);
  }

  /** A holder said what it has of a scan: answer it once all have. */
  void onHolderScanned(QueryMessage.HolderScanned m) {
    PendingScan p = scans.get(m.id());
    if (p != null && p.waiting.remove(m.holder())) {
      p.fromHolders.put(m.holder(), m);
      finishIfComplete(p);
    }
  }

  /**
   * Drops scans whose holders did not answer for {@link #SCAN_TIMEOUT_NANOS} (the client asks
   * again).
   */
  void expire(long nowNanos) {
    scans.values().removeIf(p -> nowNanos - p.startedNanos > SCAN_TIMEOUT_NANOS);
  }

  private void finishIfComplete(PendingScan p) {
    if (!p.waiting.isEmpty()) {
      return;
    }
    QueryMessage.Scan scan = p.scan;
    scans.remove(scan.id());
    if (!keyed.owns(scan.bucket())) { // handed over while the holders answered
      host.send(
          scan.replyTo(),
          new QueryMessage.NotHere(scan.id(), self.index(), epoch.handedTo(scan.bucket())));
      return;
    }
    List<QueryMessage.KeyEntries> all = new ArrayList<>();
    byte[] bound = null; // the scan may go on after it: a source has more beyond it
    KeysPage local;
    try (ReadTxn txn = store.beginRead()) {
      local = scan(txn, scan, key -> keyed.locate(scan.bucket(), key) == self.index());
    }
    all.addAll(local.keys());
    if (local.more()) {
      bound = last(local.keys());
    }
    for (QueryMessage.HolderScanned h : p.fromHolders.values()) {
      for (QueryMessage.KeyEntries k : h.keys()) {
        if (keyed.locate(scan.bucket(), k.key()) == h.holder()) {
          all.add(k);
        }
      }
      if (h.more()) {
        byte[] b = last(h.keys());
        bound = bound == null || STORE_ORDER.compare(b, bound) < 0 ? b : bound;
      }
    }
    all.sort((a, b) -> STORE_ORDER.compare(a.key(), b.key()));
    byte[] cut = bound;
    List<QueryMessage.KeyEntries> page = new ArrayList<>();
    for (QueryMessage.KeyEntries k : all) {
      if (cut != null && STORE_ORDER.compare(k.key(), cut) > 0) {
        break;
      }
      page.add(k);
    }
    byte[] next = cut;
    if (page.size() > scan.limit()) {
      page = page.subList(0, scan.limit());
      next = last(page);
    }
    host.send(
        scan.replyTo(), new QueryMessage.Page(scan.id(), self.index(), List.copyOf(page), next));
  }

  private static byte[] last(List<QueryMessage.KeyEntries> keys) {
    return keys.get(keys.size() - 1).key();
  }

  /** The order of keys in a bucket's store range: by length, then by unsigned bytes. */
  private static final java.util.Comparator<byte[]> STORE_ORDER =
      (a, b) ->
          a.length != b.length
              ? Integer.compare(a.length, b.length)
              : java.util.Arrays.compareUnsigned(a, b);

  private static final long SCAN_TIMEOUT_NANOS = 10_000_000_000L;

  /** A scan waiting for holders. */
  private static final class PendingScan {
    final QueryMessage.Scan scan;
    final java.util.Set<Integer> waiting;
    final long startedNanos;
    final java.util.Map<Integer, QueryMessage.HolderScanned> fromHolders =
        new java.util.TreeMap<>();

    PendingScan(QueryMessage.Scan scan, java.util.Set<Integer> waiting, long startedNanos) {
      this.scan = scan;
      this.waiting = waiting;
      this.startedNanos = startedNanos;
    }
  }

  private final java.util.Map<Long, PendingScan> scans = new java.util.HashMap<>();

  /**
   * Whether a query of {@code bucket} must be asked elsewhere: this task keeps keyed state here but
   * does not process the bucket now, or does not yet serve queries (it has not started: its
   * operators have not declared their states, so what it would refuse is not known yet).
   */
  private boolean elsewhere(int bucket, boolean serving) {
    return keyed != null && !remoteState && (!serving || !keyed.owns(bucket));
  }

  /**
   * Why a query of state {@code state} of {@code kind} read with {@code types} can never be
   * answered here, or null.
   */
  private String refusal(String state, QueryMessage.Kind kind, QueryMessage.Types types) {
    String operator = self.operator().name();
    if (keyed == null) {
      return "operator '" + operator + "' keeps no keyed state";
    }
    if (remoteState) {
      return "operator '"
          + operator
          + "' keeps its state at remote state services (koala.store.backend = remote): state"
          + " queries read the tasks' own stores";
    }
    return QueryRefusal.of(operator, keyed.state(), keyType, state, kind, types);
  }

  /**
   * The answer to {@code read} from {@code store}, a store holding the key's state: the owner's, or
   * the holder's its lookup table names ({@code byHolder}). Thread-safe for the store: a holder's
   * state server calls it on its own thread.
   */
  public static QueryMessage.Found answer(
      QueryMessage.Read read,
      StateStore store,
      int servedBy,
      boolean byHolder,
      QueryMessage.Declared declared) {
    List<byte[]> namespaces = new ArrayList<>(1);
    List<byte[]> values = new ArrayList<>(1);
    try (ReadTxn txn = store.beginRead()) {
      KeyedStateBackend.entries(
          txn,
          read.bucket(),
          read.key(),
          read.state(),
          (ns, v) -> {
            namespaces.add(ns);
            values.add(v);
          });
    }
    return new QueryMessage.Found(read.id(), servedBy, byHolder, namespaces, values, declared);
  }

  /**
   * How {@code read}'s state was declared, if the read asks (a {@link QueryMessage.Kind#DECLARED}
   * one).
   */
  private QueryMessage.Declared declared(QueryMessage.Read read) {
    if (read.kind() != QueryMessage.Kind.DECLARED) {
      return null;
    }
    String[] types = keyed.state().declaredTypes(read.state());
    return new QueryMessage.Declared(
        keyed.state().declaredKind(read.state()),
        types == null ? null : types[0],
        types == null ? null : types[1]);
  }

  /** Keys of a bucket with their entries of one state, and whether the store has more. */
  public record KeysPage(List<QueryMessage.KeyEntries> keys, boolean more) {}

  /**
   * The keys of {@code scan}'s bucket after its cursor that have its state and that {@code accept}
   * takes, in store order, with their entries of the state: at most {@code scan.limit()} keys, and
   * no more once their entries reach {@link StateServing#CHUNK_BYTES} (at least one key).
   */
  public static KeysPage scan(
      ReadTxn txn, QueryMessage.Scan scan, java.util.function.Predicate<byte[]> accept) {
    int stateId = KeyedStateBackend.stateId(scan.state());
    byte[] after = scan.after() == null ? null : KeyLayout.keyPrefix(scan.bucket(), scan.after());
    List<QueryMessage.KeyEntries> keys = new ArrayList<>();
    boolean[] more = {false};
    long[] bytes = {0};
    byte[][] current = {null}; // the key whose entries are being gathered
    List<byte[]> namespaces = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    Runnable close =
        () -> {
          if (current[0] != null && !namespaces.isEmpty() && accept.test(current[0])) {
            keys.add(
                new QueryMessage.KeyEntries(
                    current[0], List.copyOf(namespaces), List.copyOf(values)));
          }
          namespaces.clear();
          values.clear();
        };
    txn.scan(
        Table.STATE,
        KeyLayout.bucketPrefix(scan.bucket()),
        after,
        Integer.MAX_VALUE,
        (k, v) -> {
          byte[] key = KeyLayout.userKeyOf(k);
          if (scan.after() != null && java.util.Arrays.equals(key, scan.after())) {
            return true; // the cursor's own entries
          }
          if (current[0] == null || !java.util.Arrays.equals(key, current[0])) {
            close.run();
            if (keys.size() >= scan.limit() || bytes[0] >= StateServing.CHUNK_BYTES) {
              more[0] = true;
              return false;
            }
            current[0] = key;
          }
          int statePrefix = KeyLayout.BUCKET_BYTES + 4 + key.length;
          if (readInt(k, statePrefix) == stateId) {
            int nsLength = ((k[statePrefix + 4] & 0xFF) << 8) | (k[statePrefix + 5] & 0xFF);
            namespaces.add(
                java.util.Arrays.copyOfRange(k, statePrefix + 6, statePrefix + 6 + nsLength));
            values.add(v);
            bytes[0] += v.length + k.length;
          }
          return true;
        });
    if (!more[0]) {
      close.run();
    }
    return new KeysPage(keys, more[0]);
  }

  private static int readInt(byte[] b, int p) {
    return ((b[p] & 0xFF) << 24)
        | ((b[p + 1] & 0xFF) << 16)
        | ((b[p + 2] & 0xFF) << 8)
        | (b[p + 3] & 0xFF);
  }
}
