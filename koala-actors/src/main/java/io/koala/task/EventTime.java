package io.koala.task;

import io.koala.protocol.TaskSetup;
import io.koala.state.TimeDomain;
import io.koala.task.state.KeyedTimers;
import io.koala.time.WatermarkTracker;
import java.util.List;

/**
 * The task's event time (DESIGN §4.5) and its timers: combines the watermarks of the input channels
 * ({@link WatermarkTracker}), holds the watermark waiting to be applied until the items before it
 * are done, and applies it: the due event-time timers fire in timestamp order (in chunks, pausing
 * while the output is backpressured), the operators see it, and it is forwarded downstream after
 * the records emitted before it. It also fires the processing-time timers when they are due, and
 * tells downstream when every input is idle.
 */
final class EventTime {
  private static final long NONE = WatermarkTracker.NONE;

  private final TaskSetup setup;
  private final TaskHost host;
  private final TaskMetrics metrics;
  private final OperatorChain chain;
  private final OutputGate output;
  private final StatePlane keyed; // null: the chain keeps no keyed state, so it has no timers
  private final KeyedBatch keyedBatch; // null likewise
  private final KeyedTimers timers;
  private final WatermarkTracker watermarks;
  private long current = NONE;
  private long pending = NONE;
  private long processingTimerAt = Long.MAX_VALUE;
  private boolean processingTimersDue;

  EventTime(
      TaskSetup setup,
      TaskHost host,
      TaskMetrics metrics,
      int channels,
      OperatorChain chain,
      OutputGate output,
      StatePlane keyed,
      KeyedBatch keyedBatch) {
    this.setup = setup;
    this.host = host;
    this.metrics = metrics;
    this.chain = chain;
    this.output = output;
    this.keyed = keyed;
    this.keyedBatch = keyedBatch;
    this.timers = keyed == null ? null : keyed.timers();
    this.watermarks = new WatermarkTracker(channels);
  }

  /** The watermark applied last. */
  long current() {
    return current;
  }

  /** The combined watermark of the inputs (applied or not). */
  long combined() {
    return watermarks.combined();
  }

  void restore(long watermark) {
    current = watermark;
  }

  // ---------------------------------------------------------------- channels

  /** Adds an input channel; returns its number. */
  int addChannel() {
    return watermarks.addChannel();
  }

  /** Data arrived on channel {@code index}: it is active again. */
  void onData(int index) {
    watermarks.onData(index);
  }

  /** See {@link WatermarkTracker#onWatermark}. */
  long onWatermark(int index, long timestamp) {
    return watermarks.onWatermark(index, timestamp);
  }

  /** See {@link WatermarkTracker#onIdle}. */
  long onIdle(int index) {
    return watermarks.onIdle(index);
  }

  /** See {@link WatermarkTracker#onEnd}. */
  long onEnd(int index) {
    return watermarks.onEnd(index);
  }

  /**
   * An input item was consumed: a watermark it {@code advanced} waits to be applied; when it was an
   * idleness or an end and every input is now idle, downstream learns that this task is idle.
   */
  void consumed(long advanced, boolean idleOrEnd) {
    if (advanced != NONE && advanced > current) {
      pending = advanced;
    } else if (idleOrEnd && watermarks.allIdle()) {
      output.emitIdle();
    }
  }

  /**
   * Raises peer channel {@code index} to {@code watermark} (step 2a: until its hand-over brings the
   * sender's watermark, a peer channel caps this task's event time there).
   */
  void raise(int index, long watermark) {
    long advanced = watermarks.onWatermark(index, watermark);
    if (advanced != NONE) {
      pending = Math.max(pending, advanced);
    }
  }

  /** A source's watermark advanced to {@code watermark}: it waits to be applied. */
  void advanceTo(long watermark) {
    pending = watermark;
  }

  boolean hasPending() {
    return pending != NONE;
  }

  /**
   * Applies the pending watermark: fires due event-time timers, tells the operators, forwards it
   * downstream.
   *
   * @return false when the output became backpressured with timers still due (resume later)
   */
  boolean apply() {
    long w = pending;
    current = w;
    if (timers != null) {
      if (!fireTimers(TimeDomain.EVENT_TIME, w)) {
        return false;
      }
      scheduleProcessingTimers(); // event-time callbacks may have registered some
    }
    chain.processWatermark(w);
    pending = NONE;
    if (w != Long.MAX_VALUE) {
      output.forwardWatermark(w);
    }
    return true;
  }

  // ---------------------------------------------------------------- processing time

  /** The wake-up for processing-time timers came. */
  void processingTimerDue() {
    processingTimerAt = Long.MAX_VALUE;
    processingTimersDue = true;
  }

  boolean processingTimersDue() {
    return processingTimersDue;
  }

  /**
   * Fires the processing-time timers that are due.
   *
   * @return false when the output became backpressured with timers still due (resume later)
   */
  boolean fireProcessingTimers() {
    if (!fireTimers(TimeDomain.PROCESSING_TIME, host.currentTimeMillis())) {
      return false;
    }
    processingTimersDue = false;
    scheduleProcessingTimers();
    return true;
  }

  /**
   * Asks to be woken for the next processing-time timer, if it is earlier than asked for; not while
   * the timers due are being fired (that ends by asking for the next).
   */
  void scheduleProcessingTimers() {
    if (timers == null || processingTimersDue) {
      return;
    }
    long next = timers.next(TimeDomain.PROCESSING_TIME);
    if (next < processingTimerAt) {
      processingTimerAt = next;
      host.schedule(TaskTimer.PROCESSING_TIME, Math.max(0, next - host.currentTimeMillis()));
    }
  }

  /**
   * Fires the timers of {@code domain} due at {@code upTo}, a chunk per write transaction; a
   * callback whose key's state is elsewhere waits for it like a record (§6.4).
   *
   * @return false when it stopped with timers still due because the output is backpressured
   */
  private boolean fireTimers(TimeDomain domain, long upTo) {
    int chunk = setup.settings().maxBatchRecords();
    while (true) {
      if (timers.next(domain) > upTo) {
        return true;
      }
      long t0 = host.nanoTime();
      keyedBatch.begin();
      List<KeyedTimers.Due> due = timers.due(domain, upTo, chunk);
      for (KeyedTimers.Due t : due) {
        timers.remove(t);
        keyed.runTimer(t, domain);
      }
      if (due.size() < chunk) {
        // exact again; includes timers the callbacks registered at or before upTo, which the
        // next round fires
        timers.refresh(domain);
      }
      keyedBatch.end();
      if (due.isEmpty()) {
        return true;
      }
      metrics.timers(host.nanoTime() - t0, due.size());
      if (output.blocked()) {
        return false;
      }
    }
  }
}
