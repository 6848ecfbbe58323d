package io.koala.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which journaled reconfiguration requests are still open (DESIGN §6.1, §8), pure: a request is
 * recorded open before it starts, and is done once a committed checkpoint covers its completion —
 * that checkpoint was triggered after the request completed — or at once when it ends without
 * changing the job (rejected, or nothing to do). On a rollback every completed request not yet
 * covered runs again, so its completion is forgotten until it completes again.
 *
 * <p>The coordinator sends {@code RequestDone} for every sequence number a method returns.
 */
public final class RequestLedger {
  private long lastSeq;
  private final TreeSet<Long> open = new TreeSet<>();
  private final TreeSet<Long> completed = new TreeSet<>(); // open, completed, not yet in a trigger
  private final TreeMap<Long, List<Long>> covered = new TreeMap<>(); // checkpoint → completed

  /** A ledger whose sequence numbers continue above {@code lastSeq} (the journal's). */
  public RequestLedger(long lastSeq) {
    if (lastSeq < 0) {
      throw new IllegalArgumentException("lastSeq must be >= 0: " + lastSeq);
    }
    this.lastSeq = lastSeq;
  }

  /** The journal recovered: sequence numbers continue above {@code lastSeq}. */
  public void recovered(long lastSeq, List<Long> stillOpen) {
    this.lastSeq = Math.max(this.lastSeq, lastSeq);
    for (long s : stillOpen) {
      this.lastSeq = Math.max(this.lastSeq, s);
      open.add(s);
    }
  }

  /** A new request: its sequence number, now open. */
  public long accept() {
    long seq = ++lastSeq;
    open.add(seq);
    return seq;
  }

  /** The open requests, ascending. */
  public List<Long> open() {
    return List.copyOf(open);
  }

  /** Request {@code seq} completed (its epoch ended): done once a later checkpoint commits. */
  public void completed(long seq) {
    if (open.contains(seq)) {
      completed.add(seq);
    }
  }

  /**
   * Request {@code seq} ended without changing the job (rejected, a no-op, or replaced by a later
   * request that took its place): done now. Returns what to mark done.
   */
  public List<Long> ended(long seq) {
    if (!open.remove(seq)) {
      return List.of();
    }
    completed.remove(seq);
    return List.of(seq);
  }

  /** Checkpoint {@code id} is triggered: it covers every request completed so far. */
  public void triggered(long id) {
    if (!completed.isEmpty()) {
      covered.put(id, new ArrayList<>(completed));
      completed.clear();
    }
  }

  /** Checkpoint {@code id} is committed: the requests it (or an older one) covers are done. */
  public List<Long> committed(long id) {
    List<Long> done = new ArrayList<>();
    Map<Long, List<Long>> upTo = covered.headMap(id, true);
    upTo.values().forEach(done::addAll);
    upTo.clear();
    done.removeIf(s -> !open.remove(s));
    done.sort(null);
    return done;
  }

  /**
   * The job rolled back to its latest committed checkpoint: every completed request not covered by
   * it runs again, and the checkpoint in progress is abandoned.
   */
  public void rolledBack() {
    completed.clear();
    covered.clear();
  }

  /** The job finished: nothing is left to run again. Returns what to mark done. */
  public List<Long> finished() {
    List<Long> done = List.copyOf(open);
    open.clear();
    completed.clear();
    covered.clear();
    return done;
  }
}
