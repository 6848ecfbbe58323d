package io.koala.task;

import io.koala.plan.TaskId;
import io.koala.protocol.BucketMove;
import io.koala.protocol.EpochMessage.Peer;
import io.koala.protocol.EpochMessage.PrepareTarget;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A target task's part in one reconfiguration, from prepare until drained (DESIGN §6.1): which
 * buckets it gives (and so forwards) and gets, its peer channels, the markers still expected, the
 * hand-overs still to install, and the records held until a peer marker (§6.6).
 */
final class EpochRole {
  final long epoch;
  final Map<Integer, Integer> movesOut = new HashMap<>(); // bucket → receiver index
  final Map<Integer, Integer> movesIn = new HashMap<>(); // bucket → sender index
  final java.util.List<Peer> peersOut; // opened at hand-over
  final Map<Integer, Integer> peerOutPosition = new HashMap<>(); // receiver index → output pos
  final Map<Integer, Integer> peerInSender = new HashMap<>(); // peer input channel → sender index
  final Set<Integer> expectedMarkers = new HashSet<>();
  // expected channels whose peer marker went out when their marker arrived (it is consumed later)
  final Set<Integer> peerMarkedEarly = new HashSet<>();
  final Set<Integer> handOversPending = new HashSet<>(); // senders whose hand-over is not in
  final Set<HoldKey> peerMarkersIn = new HashSet<>();
  final Map<HoldKey, ArrayDeque<Held>> held = new HashMap<>();
  long heldBytes; // what the held records count for against the budget of waiting records (D5)
  long catchUpTo = Long.MAX_VALUE;
  boolean caughtUpReported;
  boolean handedOver;
  boolean connectedReported;
  boolean peersClosed;
  int peerInputsOpen;

  /** Records from {@code upstream} on {@code edge} of buckets given by task {@code sender}. */
  record HoldKey(int sender, TaskId upstream, int edge) {}

  /**
   * A record held until its sender's peer marker, with the arrival number of the channel item it
   * came in (it keeps its place before later watermarks and barriers when it parks on release) and
   * the bytes it counts for while it waits ({@link Parking#waitingBytes}).
   */
  record Held(Object value, long timestamp, int edge, long arrival, int bytes) {}

  EpochRole(PrepareTarget p) {
    this.epoch = p.epoch();
    this.peersOut = p.peersOut();
    for (BucketMove m : p.movesOut()) {
      movesOut.put(m.bucket(), m.to());
    }
    for (BucketMove m : p.movesIn()) {
      movesIn.put(m.bucket(), m.from());
    }
    for (Peer peer : p.peersIn()) {
      peerInSender.put(peer.channel(), peer.task().index());
      handOversPending.add(peer.task().index());
    }
    peerInputsOpen = p.peersIn().size();
    expectedMarkers.addAll(p.expectedMarkers());
  }

  /** Whether {@code channel} is one of this task's outgoing peer channels. */
  boolean announcesPeerOut(int channel) {
    for (Peer p : peersOut) {
      if (p.channel() == channel) {
        return true;
      }
    }
    return false;
  }

  boolean isSender() {
    return !movesOut.isEmpty();
  }

  /** Whether nothing of this epoch remains to do at the task. */
  boolean drained() {
    return expectedMarkers.isEmpty()
        && peerInputsOpen == 0
        && handOversPending.isEmpty()
        && (!isSender() || peersClosed)
        && held.isEmpty();
  }
}
