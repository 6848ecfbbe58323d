package io.koala.kafka;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded queue between a fetch thread and its source task. The bound counts records handed
 * over and not yet <em>emitted</em> (the task {@link #release}s them as it emits), so what a slow
 * task holds, queued or taken, stays under the bound plus one poll. The fetch thread blocks when
 * the bound is reached; the task never blocks. The first item put into an empty queue runs the
 * task's waker, so a task that found nothing is woken without polling.
 */
final class Handoff {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition space = lock.newCondition();
  private final ArrayDeque<Fetched> items = new ArrayDeque<>();
  private final long capacity;
  private final Runnable waker;
  private long held; // records put and not released
  private boolean closed;

  Handoff(long capacity, Runnable waker) {
    this.capacity = capacity;
    this.waker = waker;
  }

  /**
   * Fetch thread: adds {@code item} carrying {@code records} records, waiting while the bound is
   * reached. Returns false, dropping it, once closed.
   */
  boolean put(Fetched item, int records) throws InterruptedException {
    boolean wake;
    lock.lock();
    try {
      while (!closed && records > 0 && held >= capacity) {
        space.await(100, TimeUnit.MILLISECONDS);
      }
      if (closed) {
        return false;
      }
      wake = items.isEmpty();
      items.add(item);
      held += records;
    } finally {
      lock.unlock();
    }
    if (wake) {
      waker.run();
    }
    return true;
  }

  /** Task: the next item, or null. */
  Fetched poll() {
    lock.lock();
    try {
      return items.poll();
    } finally {
      lock.unlock();
    }
  }

  /** Task: {@code records} taken records were emitted (or dropped): room for as many. */
  void release(int records) {
    if (records == 0) {
      return;
    }
    lock.lock();
    try {
      held -= records;
      space.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Unblocks the fetch thread for good; later puts drop their items. */
  void close() {
    lock.lock();
    try {
      closed = true;
      space.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
