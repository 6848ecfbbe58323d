package io.koala.testkit.sim;

import io.koala.plan.TaskId;
import io.koala.protocol.BucketHandover;
import io.koala.protocol.Deliver;
import io.koala.protocol.ForwardedBatch;
import io.koala.protocol.Handover;
import io.koala.protocol.PeerMarker;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.List;

/**
 * The bugs planted in a simulation ({@link Simulation.Fault}, tests of the checkers only), and how
 * often they changed something.
 */
final class PlantedBugs {
  private final EnumSet<Simulation.Fault> planted = EnumSet.noneOf(Simulation.Fault.class);
  private int applied;

  void plant(Simulation.Fault fault) {
    planted.add(fault);
  }

  boolean contains(Simulation.Fault fault) {
    return planted.contains(fault);
  }

  /** How many times a planted bug changed something. */
  int applied() {
    return applied;
  }

  /** Whether {@code fault} is planted; if so, it is counted as applied once more. */
  boolean apply(Simulation.Fault fault) {
    if (!planted.contains(fault)) {
      return false;
    }
    applied++;
    return true;
  }

  /**
   * The message to send to {@code to} instead of {@code d}, whose queue is {@code q}, after the
   * planted bugs that change messages.
   */
  Deliver onSend(ArrayDeque<Object> q, Deliver d, Object to) {
    if (planted.isEmpty()) {
      return d;
    }
    if (d.item() instanceof Handover h && apply(Simulation.Fault.LOSE_STATE_LOCATION)) {
      BucketHandover b = h.bucket();
      BucketHandover lost =
          new BucketHandover(
              b.bucket(),
              ((TaskId) to).index(),
              b.filter(),
              b.drainCursor(),
              b.drained(),
              List.of());
      return new Deliver(
          d.channel(),
          d.seq(),
          new Handover(lost, h.timers(), h.pullAtOnce(), h.writesBefore(), h.hotKeys()));
    }
    if (planted.contains(Simulation.Fault.PEER_MARKER_BEFORE_FORWARDED)
        && d.item() instanceof PeerMarker
        && q.peekLast() instanceof Deliver prev
        && prev.channel() == d.channel()
        && prev.item() instanceof ForwardedBatch) {
      applied++;
      q.pollLast();
      q.add(new Deliver(prev.channel(), prev.seq(), d.item()));
      return new Deliver(d.channel(), d.seq(), prev.item());
    }
    return d;
  }
}
