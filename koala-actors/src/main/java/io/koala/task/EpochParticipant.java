package io.koala.task;

import io.koala.channel.InputChannel;
import io.koala.function.KeySelector;
import io.koala.keys.BucketPush;
import io.koala.plan.TaskId;
import io.koala.protocol.BucketHandover;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.ForwardedBatch;
import io.koala.protocol.Handover;
import io.koala.protocol.Marker;
import io.koala.protocol.PeerMarker;
import io.koala.protocol.ProtocolViolationException;
import io.koala.protocol.ReconfigurationProtocol;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.StateChunk;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.protocol.Watermark;
import io.koala.store.KeyLayout;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import io.koala.task.state.KeyedTimers;
import io.koala.time.WatermarkTracker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The task's side of a reconfiguration epoch (DESIGN §6.1, §6.6), from prepare until drained: its
 * {@link EpochRole}; at a sender, the hand-over of its moving buckets on peer channels and the
 * forwarding of their later records, with a peer marker once an upstream channel has switched; at a
 * receiver, installing hand-overs and pushed state, the forwarded records, and holding records that
 * came directly from an upstream until the sender's peer marker says that it forwarded everything
 * sent before the switch. It reports each step it reaches to the coordinator.
 */
final class EpochParticipant {
  private static final long NONE = WatermarkTracker.NONE;

  private final TaskSetup setup;
  private final TaskHost host;
  private final TaskMetrics metrics;
  private final OperatorChain chain;
  private final InputGate input;
  private final OutputGate output;
  private final EventTime eventTime;
  private final StatePlane keyed; // null: the chain keeps no keyed state
  private final KeyedBatch keyedBatch; // null likewise
  private final RemoteStateClient remote; // null: the chain keeps no keyed state
  private final BatchClock clock;
  private final LongSupplier watermarkAtPrepare; // what a target task will not emit past (W1)
  private EpochRole role; // null: no epoch runs at this task
  private long drainedEpoch = -1; // the last epoch this task reported drained
  private long holdingSince; // while the role holds records: when the first was held

  EpochParticipant(
      TaskSetup setup,
      TaskHost host,
      TaskMetrics metrics,
      OperatorChain chain,
      InputGate input,
      OutputGate output,
      EventTime eventTime,
      StatePlane keyed,
      KeyedBatch keyedBatch,
      RemoteStateClient remote,
      BatchClock clock,
      LongSupplier watermarkAtPrepare) {
    this.setup = setup;
    this.host = host;
    this.metrics = metrics;
    this.chain = chain;
    this.input = input;
    this.output = output;
    this.eventTime = eventTime;
    this.keyed = keyed;
    this.keyedBatch = keyedBatch;
    this.remote = remote;
    this.clock = clock;
    this.watermarkAtPrepare = watermarkAtPrepare;
  }

  /** Whether an epoch runs at this task. */
  boolean active() {
    return role != null;
  }

  /** Whether {@code channel} is an incoming peer channel of the running epoch. */
  boolean isPeerInput(int channel) {
    return role != null && role.peerInSender.containsKey(channel);
  }

  /** Whether {@code channel} is an outgoing peer channel this task opens at hand-over. */
  boolean announcesPeerOut(int channel) {
    return role != null && role.announcesPeerOut(channel);
  }

  /** The engine's guard: runs a step, failing the task if it throws. */
  @FunctionalInterface
  interface Guard {
    void run(TaskEngine.ThrowingRunnable step);
  }

  /**
   * Carries out coordinator command {@code c} of an epoch (the engine handles the sources' end,
   * pause and resume): prepares, announces inputs, catches up, hands over, switches routing, drains
   * retiring holders; reports {@link EpochMessage.Prepared} and {@link EpochMessage.Switched} here,
   * the other steps when they are reached ({@link #check}).
   */
  void onCommand(EpochMessage.Command c, Runnable drain, Guard guard) {
    if (c instanceof EpochMessage.PrepareTarget p) {
      long w = prepareTarget(p);
      host.send(
          TaskEngine.COORDINATOR,
          new EpochMessage.Prepared(p.epoch(), setup.task(), w, transfer()));
      check(); // a new task with nothing to wait for (no marker, no peer) is drained already
    } else if (c instanceof EpochMessage.ExpectInputs e) {
      for (InputSpec in : e.inputs()) {
        addInput(in);
      }
      if (!e.markers().isEmpty() && e.epoch() != drainedEpoch) {
        // a source's tasks give up splits: the epoch waits until their markers are consumed here
        prepare(
            new EpochMessage.PrepareTarget(
                e.epoch(), List.of(), List.of(), List.of(), List.of(), e.markers()));
      }
      host.send(
          TaskEngine.COORDINATOR,
          new EpochMessage.Prepared(e.epoch(), setup.task(), NONE, transfer()));
      check();
    } else if (c instanceof EpochMessage.CatchUp u) {
      if (catchUp(u)) {
        guard.run(drain::run);
      }
      check();
    } else if (c instanceof EpochMessage.HandOverBuckets h) {
      if (mustHandOver(h)) {
        guard.run(() -> handOver(h.move()));
        // the hand-over may fill a peer channel; peer input must still be consumed (see drain)
        guard.run(drain::run);
      }
      host.send(TaskEngine.COORDINATOR, new EpochMessage.HandedOver(h.epoch(), setup.task()));
    } else if (c instanceof EpochMessage.SwitchRouting sw) {
      switchRouting(sw.edge(), sw.next(), sw.epoch(), guard);
      host.send(TaskEngine.COORDINATOR, new EpochMessage.Switched(sw.epoch(), setup.task()));
    } else if (c instanceof EpochMessage.Retiring r) {
      if (keyed == null) {
        host.send(
            TaskEngine.COORDINATOR,
            new EpochMessage.References(r.epoch(), setup.task(), List.of()));
      } else {
        keyed.retiring(r); // the coordinator published the operator's retiring holders (§6.5)
      }
    } else {
      throw new IllegalStateException("unhandled " + c);
    }
  }

  /**
   * Adds an input channel announced by a reconfiguration (from a new upstream task, or a peer
   * channel): until it delivers a watermark it holds this task's watermark (§6.1 step 1, P4).
   * Idempotent.
   */
  void addInput(InputSpec in) {
    if (input.has(in.channel())) {
      return; // announced twice: idempotent
    }
    if (input.ended()) {
      throw new IllegalStateException(
          "task " + setup.task() + " has ended its input; it cannot get channel " + in.channel());
    }
    input.add(in, eventTime.addChannel());
  }

  /**
   * Switches the routing of output edge {@code edge} to {@code next} at epoch {@code epoch} (§6.1
   * step 4): flushes the edge's records, opens the channels {@code next} adds (each starting with
   * this task's last forwarded watermark, or Idle), sends a {@link Marker} on every channel the
   * edge had, closes those {@code next} drops with end-of-channel after their marker, and from then
   * on routes by {@code next}'s table. A record thus takes the old path or the new one, never both.
   * Idempotent per epoch.
   */
  void switchRouting(int edge, OutputSpec next, long epoch, Guard guard) {
    if (output.switching(edge, epoch)) {
      guard.run(() -> output.switchRouting(edge, next, epoch, chain.tailName()));
    }
  }

  // ---------------------------------------------------------------- steps

  /**
   * Step 1 (§6.1), at a task of the target operator: learns its part, opens its incoming peer
   * channels (they hold its watermark until they deliver one, so it cannot emit past what it has
   * now; outgoing ones open at hand-over), and returns the watermark it will not emit past (W1).
   * Idempotent.
   */
  private long prepareTarget(EpochMessage.PrepareTarget p) {
    if (prepare(p)) {
      for (EpochMessage.Peer in : p.peersIn()) {
        addInput(new InputSpec(in.channel(), in.task(), TaskEngine.PEER_EDGE));
      }
    }
    return watermarkAtPrepare.getAsLong();
  }

  /**
   * Step 1: learns this task's part in epoch {@code p}; {@link #prepareTarget} opens its incoming
   * peer channels.
   *
   * @return false when this epoch was prepared already
   */
  boolean prepare(EpochMessage.PrepareTarget p) {
    if (role != null && role.epoch == p.epoch()) {
      return false;
    }
    if (role != null) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + " is still in epoch "
              + role.epoch
              + ", asked to prepare "
              + p.epoch());
    }
    role = new EpochRole(p);
    if (p.leaving()) {
      chain.retiring();
    }
    // channels that already ended (from retired upstream tasks) will bring no marker
    role.expectedMarkers.removeIf(input::hasEnded);
    return true;
  }

  /**
   * Step 2a, at every task of the target: W* is the largest watermark any of them had at prepare. A
   * sender reports once its applied watermark reaches W* (so every timer at or before W* has fired
   * where its key was); a receiver's event time may rise to W* but not beyond until its hand-overs
   * are in (so it never passes a timer it is about to receive).
   *
   * @return whether the incoming peer channels were raised to W* (the task may then progress)
   */
  boolean catchUp(EpochMessage.CatchUp c) {
    if (role == null && c.epoch() == drainedEpoch) {
      return false; // a task that neither gives nor gets buckets, drained already: nothing to do
    }
    if (role == null || role.epoch != c.epoch()) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " asked to catch up for epoch " + c.epoch() + " it is not in");
    }
    role.catchUpTo = c.watermark();
    if (c.watermark() == NONE) {
      return false;
    }
    // until their hand-over brings the sender's watermark, incoming peer channels cap this
    // task's event time at W*: it may catch up to W* (as a sender must) but not pass it
    for (int ch : role.peerInSender.keySet()) {
      eventTime.raise(input.watermarkIndex(ch), c.watermark());
    }
    return true;
  }

  /**
   * Step 2b: whether this sender has yet to hand over for epoch {@code h}.
   *
   * @throws ProtocolViolationException when it is not in that epoch
   */
  boolean mustHandOver(EpochMessage.HandOverBuckets h) {
    if (role == null || role.epoch != h.epoch()) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " asked to hand over for epoch " + h.epoch() + " it is not in");
    }
    return !role.handedOver;
  }

  /**
   * Step 2b, at a sender: gives up its moving buckets. Per receiver, the peer channel carries each
   * bucket's lookup-table part and timers (deleted here; those at or before the applied watermark
   * have fired), then the records parked on those keys (their fetches are abandoned), then the
   * applied watermark, then a {@link Marker} closing the hand-over. Later records of those buckets
   * are forwarded.
   */
  void handOver(ReconfigurationProtocol.StateMove move) {
    // peer channels open only now: a receiver knows them once every task has prepared
    for (EpochMessage.Peer out : role.peersOut) {
      int pos = output.openPeer(out.channel(), out.task(), chain.tailName());
      role.peerOutPosition.put(out.task().index(), pos);
    }
    Map<Integer, List<ChannelItem>> toReceiver = new HashMap<>();
    Map<Integer, List<Parking.Parked>> parkedRecords = new HashMap<>();
    keyed.begin();
    WriteTxn txn = keyed.txn();
    for (Map.Entry<Integer, Integer> m : role.movesOut.entrySet()) {
      int bucket = m.getKey();
      int receiver = m.getValue();
      BucketHandover lookup = keyed.lookupOf(txn, bucket);
      if (move != ReconfigurationProtocol.StateMove.ON_ACCESS
          && (lookup.defaultHolder() != keyed.self() || !lookup.entries().isEmpty())) {
        throw new IllegalStateException(
            "the "
                + move
                + " protocols move whole buckets, but bucket "
                + bucket
                + " has state at other tasks, left by a reconfiguration with another protocol");
      }
      if (remote.enabled()) {
        // the state is at the services, not here: the receiver reads it there too, once they
        // have this task's writes so far (Handover.writesBefore)
        lookup = new BucketHandover(bucket, receiver, lookup.filter(), null, false, List.of());
      } else if (move == ReconfigurationProtocol.StateMove.PUSH_AHEAD) {
        // all of the bucket's state goes ahead of its hand-over, which then names the receiver as
        // where the state is
        toReceiver
            .computeIfAbsent(receiver, r -> new ArrayList<>())
            .addAll(BucketPush.chunks(txn, bucket));
        txn.deletePrefix(Table.STATE, KeyLayout.bucketPrefix(bucket));
        lookup = new BucketHandover(bucket, receiver, lookup.filter(), null, false, List.of());
      }
      List<Handover.ShippedTimer> shipped = new ArrayList<>(keyed.timers().ship(txn, bucket));
      for (KeyRef ref : keyed.parkedKeysOf(bucket)) {
        for (Parking.Parked p : keyed.abandon(ref)) {
          if (p.isTimer()) {
            shipped.add(
                KeyedTimers.shipParked(p.timestamp(), p.timerDomain(), ref.key(), p.namespace()));
          } else {
            parkedRecords.computeIfAbsent(receiver, r -> new ArrayList<>()).add(p);
          }
        }
      }
      List<byte[]> hot = keyed.takeHotKeys(bucket);
      toReceiver
          .computeIfAbsent(receiver, r -> new ArrayList<>())
          .add(
              new Handover(
                  lookup,
                  shipped,
                  move == ReconfigurationProtocol.StateMove.PULL_AT_ONCE,
                  remote.writesBefore(),
                  move == ReconfigurationProtocol.StateMove.ON_ACCESS && !remote.enabled()
                      ? hot
                      : List.of()));
      keyed.gaveUp(bucket);
      metrics.bucketsHandedOver++;
    }
    keyed.commit();
    keyed.ownershipChanged();
    role.handedOver = true;
    for (Map.Entry<Integer, Integer> peer : role.peerOutPosition.entrySet()) {
      int receiver = peer.getKey();
      int pos = peer.getValue();
      for (ChannelItem item : toReceiver.getOrDefault(receiver, List.of())) {
        output.offer(pos, item);
      }
      for (Parking.Parked p : parkedRecords.getOrDefault(receiver, List.of())) {
        output.forwardRecord(pos, p.value(), p.timestamp(), p.edge());
      }
      output.flush(pos);
      if (eventTime.current() != NONE) {
        output.offer(pos, new Watermark(eventTime.current()));
      }
      output.offer(pos, new Marker(role.epoch));
    }
  }

  // ---------------------------------------------------------------- at a receiver

  /** Installs a bucket handed over by {@code sender}: its lookup-table part and its timers. */
  void installHandover(Handover h, TaskId sender) {
    remote.readAfter(sender, h.writesBefore());
    BucketHandover lookup = h.bucket();
    keyed.begin();
    WriteTxn txn = keyed.txn();
    keyed.takeOverLookup(txn, lookup);
    keyed.timers().install(txn, lookup.bucket(), h.timers());
    keyed.commit();
    boolean elsewhere = keyed.tookOver(lookup.bucket());
    keyed.ownershipChanged();
    eventTime.scheduleProcessingTimers();
    metrics.bucketsTakenOver++;
    if (h.pullAtOnce() && elsewhere) {
      keyed.pull(lookup.bucket(), lookup.defaultHolder());
    } else if (elsewhere) {
      keyed.prefetchHot(lookup.bucket(), lookup.defaultHolder(), h.hotKeys());
    }
  }

  /** Installs pushed state of a bucket whose hand-over follows (stop-and-restart, fluid). */
  void installChunk(StateChunk c) {
    keyed.begin();
    BucketPush.Written w = BucketPush.install(keyed.txn(), c);
    keyed.commit();
    metrics.stateBytesFetched += w.bytes();
    metrics.keysFetched += w.keys(); // installed from another task, pushed rather than fetched
  }

  /**
   * Runs the records a sender forwarded, which came in the item of arrival number {@code arrival}:
   * every one of them is of a bucket this task owns now.
   */
  void processForwarded(ForwardedBatch batch, long arrival) {
    long t0 = host.nanoTime();
    clock.start(t0);
    keyedBatch.begin();
    for (int i = 0; i < batch.size(); i++) {
      Object value = batch.value(i);
      long ts = batch.timestamp(i);
      int edge = batch.edge(i);
      int bucket = keyed.setKey(keyed.selector(edge), value);
      if (!keyed.owns(bucket)) {
        throw new ProtocolViolationException(
            "task "
                + setup.task()
                + " got a forwarded record of bucket "
                + bucket
                + ", which it does not own");
      }
      keyedBatch.run(bucket, value, ts, edge, arrival);
    }
    keyedBatch.end();
    clock.done(t0);
  }

  /**
   * §6.6: whether a record that came directly from upstream channel {@code ch} for a bucket this
   * task receives from a sender must wait until that sender has forwarded everything the upstream
   * sent it before switching; if so, it is held (with {@code arrival}, the arrival number of the
   * item it came in).
   */
  boolean holds(InputChannel ch, int bucket, Object value, long ts, long arrival) {
    if (role == null) {
      return false;
    }
    Integer sender = role.movesIn.get(bucket);
    if (sender == null || ch.input() == TaskEngine.PEER_EDGE) {
      return false;
    }
    EpochRole.HoldKey key = new EpochRole.HoldKey(sender, (TaskId) ch.source(), ch.input());
    if (role.peerMarkersIn.contains(key)) {
      return false;
    }
    if (role.held.isEmpty()) {
      holdingSince = host.nanoTime(); // the §6.6 hold starts
    }
    int bytes = Parking.waitingBytes(value);
    role.held
        .computeIfAbsent(key, k -> new ArrayDeque<>())
        .add(new EpochRole.Held(value, ts, ch.input(), arrival, bytes));
    role.heldBytes += bytes;
    metrics.recordsHeld++;
    keyed.prefetchHeld(bucket);
    return true;
  }

  /**
   * A record of a bucket this task does not own: forwarded to its receiver if this task handed the
   * bucket over in the current reconfiguration, else a protocol violation (never processed, never
   * dropped).
   */
  void forwardOrFail(int bucket, Object value, long timestamp, int edge) {
    if (!forward(bucket, value, timestamp, edge)) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + " received key "
              + chain.recordKey()
              + " of bucket "
              + bucket
              + ", which it does not own");
    }
  }

  /**
   * The task this task handed {@code bucket} over to in the running reconfiguration (its records
   * are forwarded there), or -1.
   */
  int handedTo(int bucket) {
    Integer receiver = role == null || !role.handedOver ? null : role.movesOut.get(bucket);
    return receiver == null ? -1 : receiver;
  }

  /**
   * Forwards a record of {@code bucket} to its receiver if this task handed the bucket over in the
   * current reconfiguration; returns whether it did.
   */
  private boolean forward(int bucket, Object value, long timestamp, int edge) {
    int receiver = handedTo(bucket);
    if (receiver == -1) {
      return false;
    }
    output.forwardRecord(role.peerOutPosition.get(receiver), value, timestamp, edge);
    metrics.recordsForwarded++;
    return true;
  }

  /**
   * The bytes of held records that count against the next record batch of upstream channel {@code
   * channel} in the budget of waiting records (D5; {@link StatePlane#admits}): all of them, except
   * on a channel whose marker this task still awaits, which counts none. Held records are released
   * by peer markers, which a sender sends when its upstream channels' markers reach it; a task that
   * is a sender and a receiver at once must therefore never stop taking in the records queued
   * before a marker it awaits because of its own held records, or two such tasks could each wait
   * for the other's peer marker. A channel yields held records only after its marker (or, when the
   * reconfiguration opened it, carries no marker), so the held records stay bounded all the same.
   */
  long heldBytesAgainst(int channel) {
    return role == null || role.expectedMarkers.contains(channel) ? 0 : role.heldBytes;
  }

  /** The bytes all held records count for in the budget of waiting records (D5). */
  long heldBytes() {
    return role == null ? 0 : role.heldBytes;
  }

  // ---------------------------------------------------------------- markers

  /** A marker on an upstream channel (or, on a peer channel, the end of a hand-over). */
  void marker(InputChannel ch) {
    if (role == null) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + " got a marker on channel "
              + ch.id()
              + " outside a reconfiguration");
    }
    Integer handingOver = role.peerInSender.get(ch.id());
    if (handingOver != null) {
      role.handOversPending.remove(handingOver);
      if (role.handOversPending.isEmpty() && !role.connectedReported) {
        role.connectedReported = true;
        host.send(TaskEngine.COORDINATOR, new EpochMessage.Connected(role.epoch, setup.task()));
        if (keyed != null) {
          keyed.handOversIn();
        }
      }
      return;
    }
    if (!role.expectedMarkers.remove(ch.id())) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " got an unexpected marker on channel " + ch.id());
    }
    upstreamDone(ch);
  }

  /** Input channel {@code ch} ended (its end was consumed). */
  void channelEnded(InputChannel ch) {
    if (role != null && role.peerInSender.containsKey(ch.id())) {
      role.peerInputsOpen--;
    } else if (role != null && role.expectedMarkers.remove(ch.id())) {
      upstreamDone(ch);
    }
  }

  /**
   * Nothing more routed by the old table comes on upstream channel {@code ch} (its marker, or its
   * end: a retired upstream task never switches, and its end follows its last record): a sender
   * tells its receivers, through a peer marker, that it has forwarded all of it.
   */
  private void upstreamDone(InputChannel ch) {
    if (role.isSender()) {
      if (!role.peerMarkedEarly.remove(ch.id())) {
        sendPeerMarker(ch);
      }
      if (role.expectedMarkers.isEmpty()) {
        for (int pos : role.peerOutPosition.values()) {
          output.offer(pos, EndOfChannel.INSTANCE);
        }
        role.peersClosed = true;
      }
    }
  }

  /**
   * An item arrived on input channel {@code lane}: when it is the marker (or end) of an upstream
   * channel whose marker this sender awaits, the records of the buckets it handed over that are
   * queued on that channel before it are forwarded now, and the peer marker follows them at once
   * (§6.6, issue 20 step 5): a receiver then holds that upstream's records for one hop, not until
   * this task has worked through its queued input. The rest of the queue runs in its turn; when the
   * marker is consumed, only the end of the peer channels may follow.
   */
  void arrived(InputGate.Lane lane, ChannelItem item) {
    InputChannel ch = lane.channel();
    if (role == null
        || !role.handedOver
        || !(item instanceof Marker || item == EndOfChannel.INSTANCE)
        || !role.expectedMarkers.contains(ch.id())
        || role.peerMarkedEarly.contains(ch.id())) {
      return;
    }
    int edge = ch.input();
    KeySelector<Object, Object> selector = keyed.selector(edge);
    input.rewriteBeforeLast(
        lane, queued -> queued instanceof RecordBatch b ? forwardMoved(b, selector, edge) : queued);
    role.peerMarkedEarly.add(ch.id());
    sendPeerMarker(ch);
  }

  /**
   * Forwards the records of {@code batch} whose buckets this task handed over; returns the rest.
   */
  private RecordBatch forwardMoved(
      RecordBatch batch, KeySelector<Object, Object> selector, int edge) {
    Object[] values = new Object[batch.size()];
    long[] timestamps = new long[batch.size()];
    int kept = 0;
    for (int i = 0; i < batch.size(); i++) {
      Object value = batch.value(i);
      int bucket = keyed.bucketOf(selector, value);
      if (keyed.owns(bucket) || !forward(bucket, value, batch.timestamp(i), edge)) {
        values[kept] = value; // a bucket it owns, or one it neither owns nor forwards: in turn
        timestamps[kept++] = batch.timestamp(i);
      }
    }
    return kept == batch.size() ? batch : new RecordBatch(values, timestamps, kept);
  }

  /** Tells every receiver that the records of upstream channel {@code ch} are all forwarded. */
  private void sendPeerMarker(InputChannel ch) {
    for (int pos : role.peerOutPosition.values()) {
      output.flush(pos);
      output.offer(pos, new PeerMarker((TaskId) ch.source(), ch.input()));
    }
  }

  /**
   * A sender forwarded everything {@code pm.upstream()} sent it before switching: the records held
   * for it run now (or park for their state).
   */
  void peerMarker(InputChannel ch, PeerMarker pm) {
    int from = role.peerInSender.get(ch.id());
    EpochRole.HoldKey key = new EpochRole.HoldKey(from, pm.upstream(), pm.edge());
    role.peerMarkersIn.add(key);
    ArrayDeque<EpochRole.Held> released = role.held.remove(key);
    if (released == null) {
      return;
    }
    for (EpochRole.Held r : released) {
      role.heldBytes -= r.bytes();
    }
    if (role.held.isEmpty()) {
      metrics.holdNanos += host.nanoTime() - holdingSince;
    }
    long t0 = host.nanoTime();
    keyedBatch.begin();
    for (EpochRole.Held r : released) {
      int bucket = keyed.setKey(keyed.selector(r.edge()), r.value());
      keyedBatch.run(bucket, r.value(), r.timestamp(), r.edge(), r.arrival());
    }
    keyedBatch.end();
    clock.ran(t0); // busy time, and the capacity charged for the released records
  }

  // ---------------------------------------------------------------- reports

  /** What this task has moved so far, for the coordinator's reports. */
  EpochMessage.Transfer transfer() {
    return new EpochMessage.Transfer(
        metrics.fetchRequests,
        metrics.keysFetched + metrics.keysDrained,
        metrics.stateBytesFetched,
        metrics.keysDrained,
        metrics.piggybackedKeys,
        metrics.recordsParked,
        keyed == null ? 0 : keyed.lookupMemoryBytes());
  }

  /** Reports what the current reconfiguration has reached at this task. */
  void check() {
    if (role == null) {
      return;
    }
    if (!role.caughtUpReported
        && role.catchUpTo != Long.MAX_VALUE
        && (role.catchUpTo == NONE || eventTime.current() >= role.catchUpTo)) {
      role.caughtUpReported = true;
      host.send(TaskEngine.COORDINATOR, new EpochMessage.CaughtUp(role.epoch, setup.task()));
    }
    if (role.drained() && (keyed == null || keyed.bucketsPulling() == 0)) {
      host.send(
          TaskEngine.COORDINATOR, new EpochMessage.Drained(role.epoch, setup.task(), transfer()));
      drainedEpoch = role.epoch;
      role = null;
    }
  }
}
