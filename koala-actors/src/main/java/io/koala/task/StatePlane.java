package io.koala.task;

import io.koala.function.KeySelector;
import io.koala.job.StatePlaneStats.Stall;
import io.koala.keys.Draining;
import io.koala.keys.KeyLocations;
import io.koala.keys.StateServing;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.ExecutionPlan.VertexInput;
import io.koala.plan.TaskId;
import io.koala.protocol.BucketHandover;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.CheckpointBarrier;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.Idle;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.protocol.StateMessage.KeyState;
import io.koala.protocol.StateServiceAddress;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.Watermark;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.state.TimeDomain;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.WriteTxn;
import io.koala.task.state.KeyedStateBackend;
import io.koala.task.state.KeyedTimers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The owner side of the state plane (DESIGN §5.3, §6.4–§6.7): which buckets the task owns, where
 * the state of each of their keys is ({@link KeyLocations}), and getting it here. A record or timer
 * callback of a key whose state is elsewhere is parked, with the later items of its key, while one
 * fetch per holder per batch asks for it; the reply is installed in one transaction and the parked
 * items run. Retiring holders are drained by piggybacked and timed requests; copies installed from
 * holders are released once no restorable checkpoint needs them there.
 */
final class StatePlane {

  private final TaskSetup setup;
  private final TaskHost host;
  private final TaskMetrics metrics;
  private final KeyEncoder keys;
  private final StateStore store;
  private final KeyedStateBackend state;
  private final KeyedTimers timers;
  private final OperatorChain chain;
  private final BatchClock clock;
  private final Releases releases;
  private final StateRequests requests;
  private final Runnable timersChanged; // wakes the task for its next processing-time timer
  private final RemoteStateClient remote;
  private final boolean remoteState; // the state lives at state services
  private KeyLocations locations; // replaced by a restored one before start
  private final Parking parking = new Parking();
  private final Draining draining = new Draining();
  private final long maxWaitingBytes; // parked and held: then upstream records wait (D5)
  private boolean drainScheduled;
  private long recordsAtDrainTick = -1;

  private final BucketOwnership ownership;
  // buckets taken over with all their state pulled at once (eager), whose pull has not ended
  private final boolean[] pulling;
  private int bucketsPulling;
  private final List<KeySelector<Object, Object>> selectors = new ArrayList<>(); // by input edge
  private byte[] recordKeyBytes;
  private final HotSet hot;

  @SuppressWarnings("unchecked")
  StatePlane(
      TaskSetup setup,
      Vertex vertex,
      StateStore store,
      KryoSerde serde,
      KeyEncoder keys,
      TaskHost host,
      TaskMetrics metrics,
      OperatorChain chain,
      BatchClock clock,
      RemoteStateClient remote,
      LongSupplier watermark,
      LongSupplier lastBarrier,
      Runnable timersChanged) {
    this.setup = setup;
    this.host = host;
    this.metrics = metrics;
    this.keys = keys;
    this.store = store;
    this.state = new KeyedStateBackend(vertex.head().id().name(), store, serde);
    this.chain = chain;
    this.clock = clock;
    this.releases = new Releases(setup, host, metrics, lastBarrier);
    this.requests = new StateRequests(setup, host, metrics, clock, remote, draining);
    this.timersChanged = timersChanged;
    this.remote = remote;
    this.remoteState = remote.enabled();
    this.maxWaitingBytes = setup.settings().maxWaitingBytes();
    for (VertexInput vi : vertex.inputs()) {
      selectors.add((KeySelector<Object, Object>) vi.keySelector());
    }
    ownership = new BucketOwnership(setup);
    pulling = new boolean[setup.buckets()];
    int[] ownedBuckets = ownership.owned();
    locations = new KeyLocations(setup.task().index(), ownedBuckets);
    hot = new HotSet(setup.settings(), setup.buckets(), host.nanoTime());
    timers = new KeyedTimers(state, ownedBuckets, watermark, host::currentTimeMillis);
  }

  KeyedStateBackend state() {
    return state;
  }

  KeyedTimers timers() {
    return timers;
  }

  // ---------------------------------------------------------------- transactions

  void begin() {
    state.begin();
  }

  WriteTxn txn() {
    return state.batchTxn();
  }

  /**
   * Commits the batch's state and adds the keys that may be new to their bucket's filter; a filter
   * that outgrew its size is rebuilt from the store.
   */
  void commit() {
    state.commit();
    state.takeNewKeys(
        (key, bucket) -> {
          if (ownership.owns(bucket)) {
            locations.written(bucket, key);
          }
        });
    if (locations.hasFullFilters()) {
      try (ReadTxn txn = store.beginRead()) {
        locations.rebuildFilters(txn);
      }
    }
  }

  void abort() {
    state.abort();
  }

  // ---------------------------------------------------------------- start and checkpoints

  /** A fresh start: the lookup table's initial entries, and the next timers, in one batch. */
  void init(boolean fresh) {
    state.begin();
    if (fresh) {
      locations.init(state.batchTxn());
    }
    timers.recoverNext();
    commit();
  }

  /** Resumes the lookup table, and so the owned buckets, from a checkpoint. */
  void restore(TaskCheckpoint cp) {
    if (cp.locations() == null) {
      throw new IllegalStateException(
          "the checkpoint of keyed task " + setup.task() + " has no lookup table");
    }
    try (ReadTxn txn = store.beginRead()) {
      locations = KeyLocations.restore(setup.task().index(), cp.locations(), txn);
    }
    ownership.restore(locations);
    timers.buckets(ownership.owned());
  }

  /** The lookup table, for a checkpoint. */
  KeyLocations.Snapshot snapshotLocations() {
    return locations.snapshot();
  }

  /** A read transaction of the store, opened now, for a snapshot. */
  ReadTxn beginSnapshot() {
    return store.beginLongRead();
  }

  // ---------------------------------------------------------------- records

  /** See {@link TaskEngine#locateState}; {@link TaskEngine#NOT_OWNER} for another task's key. */
  int locate(Object key) {
    byte[] keyBytes = keys.encode(key);
    int bucket = Buckets.bucketOf(keyBytes, ownership.buckets());
    return ownership.owns(bucket) ? locate(bucket, keyBytes) : TaskEngine.NOT_OWNER;
  }

  /** Where the state of a key of an owned bucket is: {@link KeyLocations#DELETED} or a task. */
  int locate(int bucket, byte[] keyBytes) {
    try (ReadTxn txn = store.beginRead()) {
      return locations.locate(txn, bucket, keyBytes);
    }
  }

  /** The tasks other than this one that hold state of keys of {@code bucket}, an owned bucket. */
  java.util.Set<Integer> holdersOf(int bucket) {
    return locations.holdersOf(bucket);
  }

  /** The key selector of input edge {@code edge}. */
  KeySelector<Object, Object> selector(int edge) {
    return selectors.get(edge);
  }

  /** Returns the bucket of the record's key and makes it the current key. */
  int setKey(KeySelector<Object, Object> selector, Object value) {
    chain.recordKey(null);
    Object key = keyOf(selector, value);
    chain.recordKey(key);
    byte[] keyBytes = KeySelection.storable(keys.encode(key), key, chain.headName());
    recordKeyBytes = keyBytes;
    int bucket = Buckets.bucketOf(keyBytes, ownership.buckets());
    state.setCurrentKey(key, keyBytes, bucket);
    if (ownership.owns(bucket) && hot.tracks()) {
      hot.touch(bucket, keyBytes, host.nanoTime());
    }
    return bucket;
  }

  /** The bucket of {@code value}'s key, leaving the current key as it is. */
  int bucketOf(KeySelector<Object, Object> selector, Object value) {
    return Buckets.bucketOf(keys.encode(keyOf(selector, value)), ownership.buckets());
  }

  /** {@code value}'s key; a failing selector is the user's function failing. */
  private Object keyOf(KeySelector<Object, Object> selector, Object value) {
    return KeySelection.keyOf(selector, value, chain.headName());
  }

  boolean owns(int bucket) {
    return ownership.owns(bucket);
  }

  /**
   * Parks the record of the current key, which came in the channel item of arrival number {@code
   * arrival}, if its state is elsewhere or earlier items of it are parked (DESIGN §6.4: per-key
   * order is kept; other keys flow on).
   *
   * @return whether the record was parked (else it runs now)
   */
  boolean parked(int bucket, Object value, long timestamp, int edge, long arrival) {
    if (!mayBeElsewhere(bucket) && parking.isEmpty()) {
      return false;
    }
    KeyRef ref = new KeyRef(bucket, recordKeyBytes);
    if (parking.isParked(ref)) {
      parking.park(ref, Parking.Parked.record(value, timestamp, edge, arrival), -1);
      metrics.recordsParked++;
      return true;
    }
    if (mayBeElsewhere(bucket)) {
      int holder = holderOf(bucket, ref.key());
      if (holder != locations.self()) {
        parkRemote(ref, Parking.Parked.record(value, timestamp, edge, arrival), holder);
        return true;
      }
    }
    return false;
  }

  /**
   * The record of the current key is held until a sender's peer marker (§6.6): fetch the key's
   * state meanwhile, if it is at another task, so that the record runs at once when the hold ends
   * (issue 20 step 5) instead of the hold ending in a burst of fetches.
   */
  void prefetchHeld(int bucket) {
    if (remoteState || !ownership.elsewhere(bucket) || pulling[bucket]) {
      return; // remote state is read per batch; an eager pull brings the bucket anyway
    }
    KeyRef ref = new KeyRef(bucket, recordKeyBytes);
    if (parking.fetchingFrom(ref) != -1 || parking.isParked(ref)) {
      return;
    }
    int holder = holderOf(bucket, ref.key());
    if (holder != locations.self()) {
      parking.prefetch(ref, holder);
    }
  }

  /** See {@link HotSet#take}. */
  List<byte[]> takeHotKeys(int bucket) {
    return hot.take(bucket, host.nanoTime());
  }

  /**
   * The hot set of {@code bucket}, just taken over from {@code holder}, came with its hand-over
   * (issue 20 step 2): once every hand-over is in, its keys are asked for ahead of their records,
   * at the pace of the replies ({@link HotSet}). A reply installs a key only if it is still awaited
   * from that holder (K4), as for any fetch; a record of a key being fetched parks behind it.
   */
  void prefetchHot(int bucket, int holder, List<byte[]> keys) {
    if (!remoteState && ownership.elsewhere(bucket)) {
      hot.tookOver(bucket, holder, keys);
    }
  }

  /** Every hand-over of the reconfiguration is in: asks for the hot keys ({@link HotSet}). */
  void handOversIn() {
    hot.handOversIn();
    nextHotKeys();
  }

  /** Asks for the next hot keys of the holders with room in their window ({@link HotSet#next}). */
  private void nextHotKeys() {
    if (hot.isIdle()) {
      return;
    }
    state.begin();
    hot.next(
        state.batchTxn(),
        locations,
        parking,
        b -> ownership.owns(b),
        requests::outstandingTo,
        requests.keysPerRequest());
    commit();
    sendFetches();
  }

  /** Runs a due timer's callback, or parks it like a record when its key's state is elsewhere. */
  void runTimer(KeyedTimers.Due t, TimeDomain domain) {
    KeyRef ref = new KeyRef(t.bucket(), t.key());
    Parking.Parked callback = Parking.Parked.timer(t.timestamp(), t.namespace(), domain);
    if (parking.isParked(ref)) {
      parking.park(ref, callback, -1);
      metrics.recordsParked++;
      return;
    }
    if (mayBeElsewhere(t.bucket())) {
      int holder = holderOf(t.bucket(), t.key());
      if (holder != locations.self()) {
        parkRemote(ref, callback, holder);
        return;
      }
    }
    runParked(ref, callback);
  }

  /** Whether state of owned {@code bucket} may be at another task or at a state service. */
  private boolean mayBeElsewhere(int bucket) {
    return remoteState || ownership.elsewhere(bucket);
  }

  /**
   * Where the state of {@code key} in owned {@code bucket} is: its state service with the remote
   * backend, else as the lookup table resolves it ({@link KeyLocations#self()}: here).
   */
  private int holderOf(int bucket, byte[] key) {
    if (remoteState) {
      return remote.holderOf(bucket);
    }
    return locations.resolve(state.batchTxn(), bucket, key);
  }

  /**
   * Parks an item of a key whose state is at {@code holder}: it waits for its bucket's pull if one
   * runs (eager), else for a fetch of the key.
   */
  private void parkRemote(KeyRef ref, Parking.Parked item, int holder) {
    if (pulling[ref.bucket()]) {
      parking.await(ref, item);
    } else {
      parking.park(ref, item, holder);
    }
    metrics.recordsParked++;
  }

  private void runParked(KeyRef ref, Parking.Parked p) {
    Object key = keys.decode(ref.key());
    chain.recordKey(key);
    state.setCurrentKey(key, ref.key(), ref.bucket());
    if (p.isTimer()) {
      chain.onTimer(p.timestamp(), p.namespace(), p.timerDomain());
    } else {
      chain.processHead(p.value(), p.timestamp(), p.edge());
    }
  }

  /**
   * Whether the parking rules let {@code item}, of arrival number {@code arrival} at the input
   * gate, be consumed now (DESIGN §4.2, §4.5, §6.4, D2, D5), when {@code heldBytes} of held records
   * count against it ({@link EpochParticipant#heldBytesAgainst}). A watermark, idleness, checkpoint
   * barrier or end applies only after every record that arrived before it has run, so it waits
   * while one of them is parked (its channel waits with it; the others flow). A record batch, which
   * only direct upstream channels carry, waits while the records the task keeps waiting, parked and
   * held, count for the budget {@link io.koala.protocol.ChannelSettings#maxWaitingBytes} or more:
   * its channel's credit is withheld so. What comes on the state plane and the peer channels
   * (forwarded records, hand-overs, chunks, markers, peer markers) never waits for the budget, and
   * it is what lets waiting records run: state replies the parked ones, peer markers the held ones.
   * Per-key order is kept by parking each record behind the earlier ones of its key.
   */
  boolean admits(ChannelItem item, long arrival, long heldBytes) {
    if (item instanceof RecordBatch) {
      return parking.bytes() + heldBytes < maxWaitingBytes;
    }
    if (parking.isEmpty()) {
      return true;
    }
    if (item instanceof Watermark
        || item == Idle.INSTANCE
        || item instanceof CheckpointBarrier
        || item == EndOfChannel.INSTANCE) {
      return parking.oldestArrival() > arrival;
    }
    return true;
  }

  /**
   * Why {@link #admits} refused {@code item} with {@code heldBytes} of held records against it: a
   * record batch for the budget, which the parked or the held records fill more of.
   */
  Stall refusal(ChannelItem item, long heldBytes) {
    if (!(item instanceof RecordBatch)) {
      return Stall.PARKED_GATE;
    }
    return heldBytes > parking.bytes() ? Stall.HELD_LIMIT : Stall.PARKED_LIMIT;
  }

  boolean nothingParked() {
    return parking.isEmpty();
  }

  int parkedCount() {
    return parking.count();
  }

  /** What the parked items count for in the budget of waiting records. */
  long parkedBytes() {
    return parking.bytes();
  }

  long lookupMemoryBytes() {
    return locations.memoryBytes();
  }

  // ---------------------------------------------------------------- fetches and replies

  /**
   * Sends the batch's fetches, for every key newly parked ({@link StateRequests#send}); the first
   * request to a retiring holder also asks for the next keys this task drains from it (§6.5).
   */
  void sendFetches() {
    DrainSettings s = draining.settings();
    sendFetches(s == null ? 0 : s.piggybackKeys());
  }

  private void sendFetches(int drainKeys) {
    requests.send(parking.takeFetches(), locations, drainKeys);
  }

  private void sendDrain(int holder, int keysPerChunk) {
    requests.sendDrain(holder, locations, keysPerChunk);
  }

  /**
   * A holder answered a fetch: installs each key still owned and still awaited from that holder,
   * and each drained key that resolves to exactly that holder (K4), in one transaction; runs the
   * keys' parked items in order, and releases the holder's copies.
   */
  void onStateReply(StateMessage.StateReply reply) {
    long t0 = host.nanoTime();
    int from = StateServiceAddress.holderOf(reply.holder());
    boolean pullNext = false;
    List<StateMessage.Released> released = new ArrayList<>();
    state.begin();
    WriteTxn txn = state.batchTxn();
    for (KeyState ks : reply.keys()) {
      KeyRef ref = ks.key();
      if (!ownership.owns(ref.bucket()) || parking.fetchingFrom(ref) != from) {
        continue; // abandoned, or answered twice: the key's entry still decides
      }
      install(txn, ks, from, released);
      if (!StateServiceAddress.isService(from)) {
        metrics.keysFetched++;
      }
    }
    for (KeyRef ref : reply.unserved()) {
      parking.refetch(ref, from); // the reply had no room for it
    }
    StateMessage.DrainChunk chunk = reply.chunk();
    if (chunk != null && draining.accept(locations, reply.requestId(), from, chunk)) {
      for (KeyState ks : chunk.keys()) {
        KeyRef ref = ks.key();
        if (locations.acceptsDrained(txn, ref.bucket(), ref.key(), from)) {
          install(txn, ks, from, released);
          metrics.keysDrained++;
          if (!reply.keys().isEmpty()) {
            metrics.piggybackedKeys++;
          }
        } // else a stale copy: the key resolves elsewhere now
      }
      draining.advanced(txn, locations, from, chunk);
      ownership.arrived(chunk.bucket(), locations.isFullyLocal(chunk.bucket()));
      if (pulling[chunk.bucket()]) {
        if (chunk.end()) {
          pullEnded(txn, chunk.bucket());
        }
        pullNext = true;
      } else if (chunk.end()) {
        // the scan of one bucket is done: go on with the next without waiting a tick, so
        // many sparse buckets drain at the pace of their keys, not one per interval
        drainScheduled = true;
        host.schedule(TaskTimer.DRAIN, 0);
      }
    }
    chain.endBatch();
    Map<Integer, List<KeyState>> writes = Map.of();
    if (remoteState) {
      state.flush();
      writes = remote.takeWrites(txn);
    }
    commit();
    chain.recordKey(null);
    BatchClock.Batch waited = clock.replied(reply.requestId(), t0, !reply.unserved().isEmpty());
    writes.forEach(remote::writeBack);
    releases.send(reply.holder(), released);
    timersChanged.run(); // the parked items may have registered some
    sendFetches();
    clock.refetched(waited);
    if (pullNext) {
      sendDrain(from, Integer.MAX_VALUE);
    }
    requests.answered(reply.requestId());
    nextHotKeys();
    reportReferences();
  }

  /**
   * Installs a key's state from {@code from} and runs what was parked behind it. State from a
   * remote service is only borrowed for the batch: {@link RemoteStateClient#takeWrites} writes it
   * back.
   */
  private void install(WriteTxn txn, KeyState ks, int from, List<StateMessage.Released> released) {
    KeyRef ref = ks.key();
    if (StateServiceAddress.isService(from)) {
      StateServing.replace(txn, ks);
      remote.borrowed(ref); // a read of where the state lives, not a transfer
    } else if (ks.absent() && locations.isFullyLocal(ref.bucket())) {
      // drained from that holder while this fetch was in flight: it had no state for the key
    } else {
      StateServing.replace(txn, ks);
      metrics.stateBytesFetched += ks.bytes();
      locations.installed(txn, ref.bucket(), ref.key(), from);
      ownership.arrived(ref.bucket(), locations.isFullyLocal(ref.bucket()));
      releases.installed(txn, from, ref, ks.generation(), released);
    }
    for (Parking.Parked p : parking.arrived(ref)) {
      runParked(ref, p);
    }
  }

  // ---------------------------------------------------------------- pulls (eager)

  /**
   * The pull of {@code bucket} ended: each key still waiting runs if its state is here now (it was
   * not at the old owner: a new key the filter could not rule out), else is fetched after all.
   */
  private void pullEnded(WriteTxn txn, int bucket) {
    pulling[bucket] = false;
    bucketsPulling--;
    for (KeyRef ref : parking.keysOf(bucket)) {
      int holder = locations.resolve(txn, bucket, ref.key());
      if (holder == locations.self()) {
        for (Parking.Parked p : parking.arrived(ref)) {
          runParked(ref, p);
        }
      } else {
        parking.fetchInstead(ref, holder);
      }
    }
  }

  /** Buckets taken over whose whole state is still being pulled. */
  int bucketsPulling() {
    return bucketsPulling;
  }

  // ---------------------------------------------------------------- drains (§6.5)

  /** The coordinator published the operator's retiring holders: drain them. */
  void retiring(EpochMessage.Retiring r) {
    draining.retiring(r.epoch(), Set.copyOf(r.holders()), r.settings());
    reportReferences();
    scheduleDrain();
  }

  /** The wake-up for draining came. */
  void drainDue() {
    drainScheduled = false;
  }

  /**
   * The drain timer (§6.5): fetches the keys entries still name at a retiring holder whose scan has
   * ended, and asks every retiring holder this task references, with no request outstanding, for
   * its next chunk: a large one when the task processed nothing since the last tick, else as many
   * keys as a piggybacked drain, so cold buckets drain even while the task is busy.
   */
  void drainHolders() {
    DrainSettings s = draining.settings();
    if (s == null) {
      return;
    }
    boolean idle = metrics.recordsIn() == recordsAtDrainTick;
    recordsAtDrainTick = metrics.recordsIn();
    int keysPerChunk = idle ? s.idleChunkKeys() : s.piggybackKeys();
    Set<Integer> referenced = draining.referenced(locations);
    if (!referenced.isEmpty() && keysPerChunk > 0) { // 0: a busy owner drains nothing
      state.begin();
      for (int h : referenced) {
        for (int b : draining.leftovers(locations, h)) {
          for (byte[] key : locations.entriesNaming(state.batchTxn(), b, h, keysPerChunk)) {
            parking.prefetch(new KeyRef(b, key), h);
          }
        }
      }
      commit();
      sendFetches(keysPerChunk);
      for (int h : referenced) {
        sendDrain(h, keysPerChunk);
      }
    }
    reportReferences();
    scheduleDrain();
  }

  private void scheduleDrain() {
    DrainSettings s = draining.settings();
    if (!drainScheduled && s != null && !draining.referenced(locations).isEmpty()) {
      drainScheduled = true;
      host.schedule(TaskTimer.DRAIN, s.intervalMillis());
    }
  }

  /** Tells the coordinator which retiring holders this task still references, if that changed. */
  private void reportReferences() {
    Set<Integer> r = draining.toReport(locations, requests.awaited());
    if (r != null) {
      host.send(
          TaskEngine.COORDINATOR,
          new EpochMessage.References(draining.version(), setup.task(), new ArrayList<>(r)));
    }
  }

  /** Whether this task still references state at {@code holder}, or awaits a reply from it. */
  boolean references(int holder) {
    boolean referenced = requests.awaited().contains(holder);
    for (int b : locations.movedBuckets()) {
      referenced |= locations.holdersOf(b).contains(holder);
    }
    return referenced;
  }

  // ---------------------------------------------------------------- releases (§6.7)

  /** At a holder: deletes the copies an owner released ({@link Releases#apply}). */
  void release(StateMessage.Release release) {
    long t0 = host.nanoTime();
    state.begin();
    releases.apply(state.batchTxn(), release, ownership::owns, locations::generation);
    commit();
    metrics.releaseApplyNanos += host.nanoTime() - t0;
  }

  /** Releases the copies installed before the barrier of checkpoint {@code oldestRestorable}. */
  void releaseBefore(long oldestRestorable) {
    state.begin();
    Map<Integer, List<StateMessage.Released>> byHolder =
        releases.takeBefore(state.batchTxn(), oldestRestorable);
    commit();
    byHolder.forEach(
        (holder, keys) -> releases.send(new TaskId(setup.task().operator(), holder), keys));
  }

  // ---------------------------------------------------------------- bucket ownership

  /**
   * Gives up {@code bucket} outside an epoch, by the hand-over's own steps ({@link #lookupOf},
   * {@link #gaveUp}): see {@link TaskEngine#handOver(int)}.
   */
  BucketHandover handOver(int bucket) {
    state.begin();
    BucketHandover h = lookupOf(state.batchTxn(), bucket);
    gaveUp(bucket);
    commit();
    ownershipChanged();
    return h;
  }

  /**
   * Takes over a bucket outside an epoch, by the hand-over's own steps ({@link #takeOverLookup},
   * {@link #tookOver}): see {@link TaskEngine#takeOver}.
   */
  void takeOver(BucketHandover h) {
    state.begin();
    takeOverLookup(state.batchTxn(), h);
    commit();
    tookOver(h.bucket());
    ownershipChanged();
  }

  /** This task's index, as lookup-table parts name it. */
  int self() {
    return locations.self();
  }

  /** Step 2b at a sender: the lookup-table part of {@code bucket}, taken out of the table. */
  BucketHandover lookupOf(WriteTxn txn, int bucket) {
    return locations.handOver(txn, bucket);
  }

  /** The keys of {@code bucket} with parked items. */
  List<KeyRef> parkedKeysOf(int bucket) {
    return parking.keysOf(bucket);
  }

  /**
   * Gives up the items parked on {@code ref}: their fetch is abandoned (a late reply is dropped).
   */
  Iterable<Parking.Parked> abandon(KeyRef ref) {
    return parking.abandon(ref);
  }

  /**
   * The bucket is handed over: drains of it are forgotten here (a late chunk is discarded; the new
   * owner resumes the default holder's scan from the cursor shipped in the lookup table). Call
   * {@link #ownershipChanged} once all are.
   */
  void gaveUp(int bucket) {
    ownership.gaveUp(bucket);
    draining.bucketChanged(bucket);
  }

  /**
   * Installs a bucket's lookup-table part received at hand-over; commit, then {@link #tookOver}.
   */
  void takeOverLookup(WriteTxn txn, BucketHandover lookup) {
    locations.takeOver(txn, lookup);
  }

  /**
   * The bucket whose lookup-table part was installed is owned from now on; call {@link
   * #ownershipChanged} once all are.
   *
   * @return whether some of its keys' state is elsewhere
   */
  boolean tookOver(int bucket) {
    draining.bucketChanged(bucket);
    return ownership.tookOver(bucket, locations.isFullyLocal(bucket));
  }

  /** The owned buckets changed: the timers follow them. */
  void ownershipChanged() {
    timers.buckets(ownership.owned());
  }

  /** Pulls all of a bucket taken over from {@code holder} at once (eager). */
  void pull(int bucket, int holder) {
    pulling[bucket] = true;
    bucketsPulling++;
    draining.pull(holder);
    sendDrain(holder, Integer.MAX_VALUE);
  }
}
