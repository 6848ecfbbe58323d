package io.koala.ingest;

import io.koala.protocol.IngestMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The service side of push ingestion, pure: numbers the records offered, stripes them over the
 * source's tasks ({@link IngestMessage}), sends each task what its window allows, keeps every
 * record the job may still need (not yet covered by a completed checkpoint, or, without
 * checkpoints, not yet read by its task), sends them again to a task that says it is behind (a
 * restored task), and ends each task's stripe once the input is complete. Not thread-safe: the
 * handle serialises calls.
 *
 * <pre>
 *   offers wait until every task has said hello (the start position is then known);
 *   record s (from 1) -> task (s-1) mod P, its stripe index (s-1) / P;
 *   committed = min over tasks i of (committed_i * P + i)  (records up to it are all in the job);
 *   held = last - committed &lt;= capacity.
 * </pre>
 */
public final class IngestLedger {
  /** A message to send, and where. */
  public record Send(Object address, IngestMessage.ToTask message) {}

  private final String source;
  private final int capacity;
  private final int maxBatch;
  private final Object[] ring; // record s at (s - 1) mod capacity, for committed < s <= last
  private Task[] tasks; // null until the attachment is accepted
  private int helloed;
  private boolean started; // every task said hello once: numbering has begun
  private long committed; // every record up to it is in the job for good
  private long last; // the number of the last record accepted
  private boolean complete; // no more records will be offered
  private String failure; // why the handle cannot go on, or null

  private static final class Task {
    Object address;
    long attachment = -1;
    boolean checkpointing;
    int window;
    long sent; // stripe records sent (to the current address)
    long consumed; // stripe records the task has emitted
    long committed; // stripe records a completed checkpoint holds (= consumed without checkpoints)
    long endSent = -1; // the attachment its End was sent on

    @Override
    public String toString() {
      return "{sent " + sent + ", consumed " + consumed + ", committed " + committed + "}";
    }
  }

  /** A ledger for ingest source {@code source}, holding at most {@code capacity} records. */
  public IngestLedger(String source, int capacity, int maxBatch) {
    if (capacity < 1 || maxBatch < 1) {
      throw new IllegalArgumentException("capacity and batch must be positive");
    }
    this.source = source;
    this.capacity = capacity;
    this.maxBatch = maxBatch;
    this.ring = new Object[capacity];
  }

  /** The coordinator accepted the attachment: the source has {@code parallelism} tasks. */
  public void attached(int parallelism) {
    if (tasks == null) {
      tasks = new Task[parallelism];
      for (int i = 0; i < parallelism; i++) {
        tasks[i] = new Task();
      }
    }
  }

  /** Whether numbering has begun (every task said where it is). */
  public boolean started() {
    return started;
  }

  /** Why the handle cannot go on, or null. */
  public String failure() {
    return failure;
  }

  /** Records accepted and possibly still needed by the job. */
  public long held() {
    return last - committed;
  }

  /** Whether {@link #offer} would accept a record now. */
  public boolean hasRoom() {
    return started && !complete && failure == null && last - committed < capacity;
  }

  /** Accepts {@code value} as the next record (only when {@link #hasRoom}); returns its number. */
  public long offer(Object value) {
    if (!hasRoom()) {
      throw new IllegalStateException("ingest source '" + source + "' has no room now");
    }
    last++;
    ring[slot(last)] = value;
    return last;
  }

  /** The number of the last record accepted. */
  public long last() {
    return last;
  }

  /** Every record up to this number is in the job: a completed checkpoint holds it. */
  public long committed() {
    return Math.min(committed, last);
  }

  /** No more records: each task's stripe ends once it has them all. */
  public void complete() {
    complete = true;
  }

  public boolean isComplete() {
    return complete;
  }

  /** A task's message. */
  public void on(IngestMessage.ToClient m) {
    if (tasks == null) {
      return; // not attached (a task of an earlier attachment of another handle)
    }
    if (m instanceof IngestMessage.Hello h) {
      onHello(h);
    } else if (m instanceof IngestMessage.Consumed c) {
      Task t = task(c.task());
      if (t != null && c.attachment() == t.attachment) {
        t.consumed = Math.max(t.consumed, c.position());
        if (!t.checkpointing) {
          t.committed = Math.max(t.committed, t.consumed);
        }
      }
    } else if (m instanceof IngestMessage.Committed c) {
      Task t = task(c.task());
      if (t != null) {
        t.committed = Math.max(t.committed, c.position()); // true whichever incarnation says it
      }
    }
    advance();
  }

  private Task task(int index) {
    return index >= 0 && index < tasks.length ? tasks[index] : null;
  }

  private void onHello(IngestMessage.Hello h) {
    if (h.parallelism() != tasks.length) {
      failure =
          "ingest source '"
              + source
              + "': task "
              + h.task()
              + " says the source has "
              + h.parallelism()
              + " tasks, the handle was attached to "
              + tasks.length;
      return;
    }
    Task t = tasks[h.task()];
    if (h.attachment() < t.attachment) {
      return; // an older incarnation's
    }
    if (t.attachment < 0) {
      helloed++;
    }
    t.attachment = h.attachment();
    t.address = h.address();
    t.window = h.window();
    t.checkpointing = h.checkpointing();
    t.consumed = h.position();
    t.sent = h.position();
    if (started && h.position() < t.committed) {
      // restored to a checkpoint older than one it reported complete: those records are gone here
      long first = h.position() * tasks.length + h.task() + 1;
      if (first <= committed) {
        failure =
            "ingest source '"
                + source
                + "': task "
                + h.task()
                + " restarted at record "
                + first
                + ", which the handle released after a completed checkpoint held it";
        return;
      }
    }
    t.committed = Math.max(t.committed, h.position()); // a checkpoint being restored holds it
    if (!started && helloed == tasks.length) {
      started = true;
      committed = startPosition();
      last = committed;
    }
  }

  /** Where the job is: min over tasks of the number of the first record it lacks, minus one. */
  private long startPosition() {
    long n = Long.MAX_VALUE;
    for (int i = 0; i < tasks.length; i++) {
      n = Math.min(n, tasks[i].committed * tasks.length + i);
    }
    return n;
  }

  private void advance() {
    if (!started) {
      return;
    }
    long next = Math.min(startPosition(), last);
    for (long s = committed + 1; s <= next; s++) {
      ring[slot(s)] = null;
    }
    committed = Math.max(committed, next);
  }

  /**
   * The batches (and ends) every task's window allows now; records are taken as sent. Each batch
   * carries at most the ledger's batch size.
   */
  public List<Send> sendable() {
    List<Send> out = new ArrayList<>();
    if (!started || failure != null) {
      return out;
    }
    int p = tasks.length;
    for (int i = 0; i < p; i++) {
      Task t = tasks[i];
      long stripeEnd = stripeCount(i); // stripe records accepted so far
      while (t.sent < stripeEnd && t.sent < t.consumed + t.window) {
        long upTo = Math.min(Math.min(stripeEnd, t.consumed + t.window), t.sent + maxBatch);
        List<Object> records = new ArrayList<>((int) (upTo - t.sent));
        for (long k = t.sent; k < upTo; k++) {
          records.add(ring[slot(k * p + i + 1)]);
        }
        out.add(new Send(t.address, new IngestMessage.Batch(t.attachment, t.sent, records)));
        t.sent = upTo;
      }
      if (complete && t.sent == stripeEnd && t.endSent != t.attachment) {
        t.endSent = t.attachment;
        out.add(new Send(t.address, new IngestMessage.End(t.attachment, stripeEnd)));
      }
    }
    return out;
  }

  /** How many of the records accepted so far belong to task {@code i}'s stripe. */
  private long stripeCount(int i) {
    return last > i ? (last - 1 - i) / tasks.length + 1 : 0;
  }

  private int slot(long s) {
    return (int) ((s - 1) % capacity);
  }

  @Override
  public String toString() {
    return "IngestLedger["
        + source
        + ", committed "
        + committed
        + ", last "
        + last
        + (tasks == null ? ", not attached" : ", tasks " + Arrays.toString(tasks))
        + "]";
  }
}
