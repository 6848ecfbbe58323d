package io.koala.connector;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A sink whose records the service takes from a bounded queue ({@link SinkSpec#queue}): {@link
 * #take}, {@link #poll(Duration)} or {@link #drainTo} from any thread. When the queue is full the
 * sink's tasks take no more input (stall reason {@code sink_busy}) until the service has taken
 * some, so a slow consumer slows the job down instead of growing a buffer: the records held are at
 * most the queue's capacity, plus, per sink task, the rest of the input batch that found it full.
 *
 * <p>Every node defines the dataflow, so each node's queue receives the records of the sink tasks
 * it hosts (in an embedded runtime: all of them). A task puts its records in the order it writes
 * them; no order across tasks. Delivery is at least once: a rollback to a checkpoint replays the
 * records after it, which this queue may already have handed out. A job does not finish while
 * records of its sink wait for room in the queue.
 *
 * <pre>{@code
 * QueueSink<KeyValue<String, Long>> counts = SinkSpec.queue("counts", 10_000);
 * words.keyBy(w -> w).count("count").sink(counts);
 * JobHandle job = runtime.submit(b.build());
 * while (...) {
 *   KeyValue<String, Long> kv = counts.take(); // blocks until a record is there
 * }
 * }</pre>
 */
public final class QueueSink<T> implements SinkSpec<T> {
  private final String name;
  private final int capacity;
  private final BlockingQueue<T> queue;
  private final Set<Runnable> waiting = ConcurrentHashMap.newKeySet(); // wakers of full writers

  QueueSink(String name, int capacity) {
    this.name = Objects.requireNonNull(name, "name");
    if (capacity < 1) {
      throw new IllegalArgumentException(
          "queue sink '" + name + "': capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.queue = new ArrayBlockingQueue<>(capacity);
  }

  @Override
  public String name() {
    return name;
  }

  /** How many records the queue holds at most. */
  public int capacity() {
    return capacity;
  }

  /** Records in the queue now. */
  public int size() {
    return queue.size();
  }

  /** The oldest record, waiting until there is one. */
  public T take() throws InterruptedException {
    T value = queue.take();
    wakeWriters();
    return value;
  }

  /** The oldest record, or null if none came within {@code timeout}. */
  public T poll(Duration timeout) throws InterruptedException {
    T value = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    if (value != null) {
      wakeWriters();
    }
    return value;
  }

  /** Moves at most {@code max} records, oldest first, to {@code to}; returns how many. */
  public int drainTo(Collection<? super T> to, int max) {
    int n = queue.drainTo(to, max);
    if (n > 0) {
      wakeWriters();
    }
    return n;
  }

  private void wakeWriters() {
    if (waiting.isEmpty()) {
      return;
    }
    for (Iterator<Runnable> it = waiting.iterator(); it.hasNext(); ) {
      Runnable waker = it.next();
      it.remove();
      waker.run();
    }
  }

  @Override
  public SinkWriter<T> open(SinkContext ctx) {
    Runnable waker = ctx.waker();
    return new SinkWriter<>() {
      private final ArrayDeque<T> pending = new ArrayDeque<>(); // found the queue full

      @Override
      public void write(T value, long timestamp) {
        if (pending.isEmpty() && queue.offer(value)) {
          return;
        }
        pending.add(value);
      }

      @Override
      public boolean ready() {
        if (moved()) {
          return true;
        }
        waiting.add(waker);
        // the service may have made room between the offer and the registration
        return moved();
      }

      /** Moves pending records into the queue while it has room; whether none is left. */
      private boolean moved() {
        while (!pending.isEmpty() && queue.offer(pending.peekFirst())) {
          pending.pollFirst();
        }
        return pending.isEmpty();
      }
    };
  }
}
