package io.koala.task;

import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.OperatorNode;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.ForwardedBatch;
import io.koala.protocol.RecordBatch;
import java.util.HashMap;
import java.util.Map;

/**
 * When the task's next batch of work may run, and what each batch cost. The task's emulated
 * capacity ({@link Throttle}, DESIGN §4.7) is charged for the records a batch ran; a batch's
 * latency runs from the start of its processing until its last record ran, which for a batch that
 * fetched state is when the last of its fetches has been answered and its parked records have run.
 *
 * <p>It also measures the task's busy time ({@link TaskMetrics#busy}): each unit of work (a batch,
 * a state reply that ran parked records, the held records a peer marker released) is busy from its
 * start until it ends, or, with an emulated capacity, for at least what its records cost at the
 * capacity in force, since the throttle delays batches instead of burning CPU.
 */
final class BatchClock {
  private final TaskHost host;
  private final TaskMetrics metrics;
  private Throttle throttle; // null: no capacity limit
  private OperatorNode.CapacityChange change; // the capacity from a time on, or null
  private long changeAtMillis = Long.MAX_VALUE; // when, once the job's start is known
  private boolean throttleScheduled;
  private long recordsCharged;
  private long recordsBusy; // the records counted in busy time so far
  // the batch being processed, and the batches still waiting for fetch replies, by request id
  private Batch current;
  private final Map<Long, Batch> waiting = new HashMap<>();

  /** A batch that started at {@code startNanos} and waits for {@code fetches} replies. */
  static final class Batch {
    final long startNanos;
    int fetches;

    Batch(long startNanos) {
      this.startNanos = startNanos;
    }
  }

  BatchClock(Vertex vertex, TaskHost host, TaskMetrics metrics) {
    this.host = host;
    this.metrics = metrics;
    double capacity = 0;
    for (OperatorNode n : vertex.chain()) {
      if (n.capacity() > 0) {
        capacity = capacity == 0 ? n.capacity() : Math.min(capacity, n.capacity());
      }
      if (n.capacityChange() != null) {
        change = n.capacityChange(); // an experiment's control: one operator of the chain
      }
    }
    throttle = capacity > 0 ? new Throttle(capacity) : null;
  }

  /** The job started at {@code startMillis}: the origin of a capacity change. */
  void jobStarted(long startMillis) {
    if (change != null) {
      changeAtMillis = startMillis + change.atMillis();
    }
  }

  /**
   * Whether the task's capacity lets a data item run now; if not, asks to be woken when it does.
   */
  boolean mayRun(ChannelItem item) {
    if (throttle == null || !(item instanceof RecordBatch || item instanceof ForwardedBatch)) {
      return true;
    }
    if (change != null && host.currentTimeMillis() >= changeAtMillis) {
      throttle = new Throttle(change.perSecond());
      change = null;
    }
    long wait = throttle.waitNanos(host.nanoTime());
    if (wait == 0) {
      return true;
    }
    if (!throttleScheduled) {
      throttleScheduled = true;
      host.schedule(TaskTimer.CAPACITY, Math.max(1, wait / 1_000_000));
    }
    return false;
  }

  /** The wake-up asked for by {@link #mayRun} came. */
  void capacityDue() {
    throttleScheduled = false;
  }

  /** A batch of records starts at {@code t0}: the fetches it sends count toward its latency. */
  void start(long t0) {
    current = new Batch(t0);
  }

  /** A fetch with request id {@code id} went out: the batch being processed waits for it. */
  void fetchSent(long id) {
    if (current != null) {
      current.fetches++;
      waiting.put(id, current);
    }
  }

  /**
   * A batch of work that started at {@code t0} ended: records its latency and charges the task's
   * capacity for the records it ran (not those it forwarded, held or parked: they are charged where
   * and when they run).
   */
  void done(long t0) {
    long now = host.nanoTime();
    if (current != null && current.fetches > 0) {
      metrics.batches++; // its latency is recorded once its last fetch's reply has run
    } else {
      metrics.batch(now - t0);
    }
    current = null;
    busy(t0, now);
    charge(now);
  }

  /**
   * Work that is no batch of its own ran from {@code t0} until now (the records a peer marker
   * released): counts its busy time and charges the capacity for its records.
   */
  void ran(long t0) {
    long now = host.nanoTime();
    busy(t0, now);
    charge(now);
  }

  /** Work that ran from {@code t0} until {@code now} ends: its records, and its busy time. */
  private void busy(long t0, long now) {
    long records = metrics.recordsIn() - recordsBusy;
    recordsBusy = metrics.recordsIn();
    metrics.busy(now - t0, records, throttle == null ? 0 : throttle.perSecond());
  }

  /** Charges the task's capacity for the records it ran since the last charge. */
  private void charge(long now) {
    if (throttle != null) {
      throttle.take(now, (int) (metrics.recordsIn() - recordsCharged));
      recordsCharged = metrics.recordsIn();
    }
  }

  /**
   * The reply to fetch {@code requestId} has run, from {@code t0}. A reply to no batch's fetch is a
   * batch of its own; else, unless it left keys out ({@code partly}: the batch then waits for their
   * fetch too, see {@link #refetched}), the batch it answered may be complete.
   *
   * @return the batch the reply answered, or null
   */
  Batch replied(long requestId, long t0, boolean partly) {
    Batch waited = waiting.remove(requestId);
    if (waited == null) {
      done(t0);
    } else {
      long now = host.nanoTime();
      if (partly) {
        current = waited; // the batch also waits for the fetch of the rest
      } else if (--waited.fetches == 0) {
        metrics.latency(now - waited.startNanos); // its records have all run
      }
      busy(t0, now);
      charge(now);
    }
    return waited;
  }

  /** After a partial reply's keys were asked for again: the reply itself no longer counts. */
  void refetched(Batch waited) {
    if (waited != null && current == waited) {
      current = null; // the reply that left keys out is done; their new fetch counts
      if (--waited.fetches == 0) {
        metrics.latency(host.nanoTime() - waited.startNanos);
      }
    }
  }
}
