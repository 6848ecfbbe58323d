package io.koala.task;

/**
 * The envelope of a unit of keyed work — a batch from upstream, records a sender forwarded, records
 * held for a sender's peer marker, a chunk of timer callbacks: it runs in one write transaction;
 * each record runs now or parks behind its key (§6.4); at its end the chain flushes what it
 * emitted, the transaction commits, the processing-time timers the work registered ask for a
 * wake-up, and the fetches it needs go out. Its one copy: two of the places that ran records had
 * lost the timer wake-up, so a processing-time timer a forwarded or held record registered waited
 * for the next batch from upstream (issue 41). The reply to a fetch runs its parked records inside
 * its own envelope ({@link StatePlane#onStateReply}), which also installs the state and releases
 * the holders' copies.
 */
final class KeyedBatch {
  private final StatePlane keyed;
  private final OperatorChain chain;
  private final Runnable wakeTimers;

  KeyedBatch(StatePlane keyed, OperatorChain chain, Runnable wakeTimers) {
    this.keyed = keyed;
    this.chain = chain;
    this.wakeTimers = wakeTimers;
  }

  /** Opens the unit's write transaction. */
  void begin() {
    keyed.begin();
  }

  /**
   * Runs {@code value}, of input edge {@code edge}, from the item of arrival number {@code
   * arrival}, whose key (of {@code bucket}) is the current one: now, or parked when its state is
   * elsewhere or earlier items of its key wait.
   */
  void run(int bucket, Object value, long timestamp, int edge, long arrival) {
    if (!keyed.parked(bucket, value, timestamp, edge, arrival)) {
      chain.processHead(value, timestamp, edge);
    }
  }

  /** Ends the unit: flushes the chain, commits, wakes the timers, sends the fetches. */
  void end() {
    chain.endBatch();
    keyed.commit();
    chain.recordKey(null);
    wakeTimers.run();
    keyed.sendFetches();
  }
}
