package io.koala.kafka;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The bookkeeping of one exactly-once {@link KafkaSink} task, without Kafka (the writer carries out
 * what it decides): the write-ahead log of every checkpoint interval whose transaction is not known
 * committed, which producer of the task's pool holds which interval's transaction, and which
 * producers are free.
 *
 * <pre>
 *   append(r)       r joins the current interval (sent at once if it holds a producer)
 *   assignFree()    a free producer goes to the oldest pending interval without one, else to the
 *                   current interval if it has records (its transaction begins lazily)
 *   prepare(c)      current interval --&gt; pending[c], with its producer or none (all were busy)
 *   committed(c)    pending[c] dropped, its log with it; its producer is free again
 * </pre>
 *
 * An interval without records makes no transaction. Pending intervals are committed in checkpoint
 * order, and a producer is never given to a later interval while an earlier one waits for one, so
 * the committed checkpoints of a task always form a prefix of its prepared ones: the highest
 * committed marker tells a restored writer everything. Not thread-safe: the task's thread drives
 * it.
 */
final class TransactionLog {
  /** No producer. */
  static final int NONE = -1;

  /** The current interval in an {@link Assignment}. */
  static final long CURRENT = -1;

  private static final int FORMAT = 1;

  /**
   * An interval sealed at checkpoint {@code checkpointId}'s barrier, not known committed.
   *
   * @param producer the pool index of the producer whose transaction holds it, or {@link #NONE}
   */
  record Pending(long checkpointId, List<WalRecord> records, int producer) {
    Pending {
      records = List.copyOf(records);
    }

    Pending withProducer(int p) {
      return new Pending(checkpointId, records, p);
    }
  }

  /**
   * Producer {@code producer} now holds interval {@code checkpointId} ({@link #CURRENT}: the
   * current one): the writer begins its transaction and sends the interval's records so far (and,
   * for a pending interval, its marker, then flushes).
   */
  record Assignment(int producer, long checkpointId, List<WalRecord> records) {}

  /**
   * What a writer saved in a checkpoint ({@link #encode}).
   *
   * @param run the identity of the job run whose markers count (a fresh start makes a new one)
   * @param parallelism the sink's parallelism when it was saved
   * @param poolSize the size of the producer pool then
   * @param pending the intervals not known committed, in checkpoint order
   */
  record Saved(UUID run, int parallelism, int poolSize, List<Pending> pending) {
    Saved {
      pending = List.copyOf(pending);
    }
  }

  private final ArrayDeque<Integer> free = new ArrayDeque<>();
  private final TreeMap<Long, Pending> pending = new TreeMap<>();
  private List<WalRecord> current = new ArrayList<>();
  private int currentProducer = NONE;
  private long lastPrepared;
  private long walBytes;
  private long currentBytes;

  /** A log with {@code poolSize} free producers, resuming after checkpoint {@code lastPrepared}. */
  TransactionLog(int poolSize, long lastPrepared) {
    if (poolSize < 1) {
      throw new IllegalArgumentException("a producer pool needs at least one producer");
    }
    for (int i = 0; i < poolSize; i++) {
      free.add(i);
    }
    this.lastPrepared = lastPrepared;
  }

  /**
   * Adds {@code r} to the current interval; returns the producer to send it with now, or {@link
   * #NONE} when the interval holds none yet (it is sent when one is assigned).
   */
  int append(WalRecord r) {
    current.add(r);
    walBytes += r.size();
    currentBytes += r.size();
    return currentProducer;
  }

  /** The next free producer's assignment, or null when none is free or nothing needs one. */
  Assignment assignFree() {
    if (free.isEmpty()) {
      return null;
    }
    for (Pending p : pending.values()) {
      if (p.producer() == NONE) {
        int producer = free.poll();
        pending.put(p.checkpointId(), p.withProducer(producer));
        return new Assignment(producer, p.checkpointId(), p.records());
      }
    }
    if (currentProducer == NONE && !current.isEmpty()) {
      currentProducer = free.poll();
      return new Assignment(currentProducer, CURRENT, List.copyOf(current));
    }
    return null;
  }

  /**
   * Whether the writer takes records without buffering them beyond its pool: the current interval
   * holds a producer, or one is free.
   */
  boolean takesRecords() {
    return currentProducer != NONE || !free.isEmpty();
  }

  /** The producer of the current interval, or {@link #NONE}. */
  int currentProducer() {
    return currentProducer;
  }

  /** Whether the current interval has records. */
  boolean hasCurrent() {
    return !current.isEmpty();
  }

  /**
   * Seals the current interval as pending for checkpoint {@code checkpointId}; returns it, or null
   * when it has no records (no transaction for it).
   */
  Pending prepare(long checkpointId) {
    if (checkpointId <= lastPrepared) {
      throw new IllegalStateException(
          "checkpoint " + checkpointId + " prepared after checkpoint " + lastPrepared);
    }
    lastPrepared = checkpointId;
    if (current.isEmpty()) {
      return null;
    }
    Pending p = new Pending(checkpointId, current, currentProducer);
    pending.put(checkpointId, p);
    current = new ArrayList<>();
    currentBytes = 0;
    currentProducer = NONE;
    return p;
  }

  /** The newest checkpoint prepared (or resumed from). */
  long lastPrepared() {
    return lastPrepared;
  }

  /** The pending intervals up to checkpoint {@code checkpointId}, oldest first. */
  List<Pending> committable(long checkpointId) {
    return new ArrayList<>(pending.headMap(checkpointId, true).values());
  }

  /** The pending interval of checkpoint {@code checkpointId}, or null. */
  Pending pending(long checkpointId) {
    return pending.get(checkpointId);
  }

  /** Interval {@code checkpointId} is committed: its log is dropped, its producer free. */
  void committed(long checkpointId) {
    Pending p = pending.remove(checkpointId);
    if (p == null) {
      throw new IllegalStateException("checkpoint " + checkpointId + " is not pending");
    }
    if (!pending.isEmpty() && pending.firstKey() < checkpointId) {
      throw new IllegalStateException(
          "checkpoint " + checkpointId + " committed before " + pending.firstKey());
    }
    for (WalRecord r : p.records()) {
      walBytes -= r.size();
    }
    if (p.producer() != NONE) {
      free.add(p.producer());
    }
  }

  /** Number of pending intervals. */
  int pendingCount() {
    return pending.size();
  }

  /** Number of free producers. */
  int freeCount() {
    return free.size();
  }

  /** Roughly the bytes the log holds (pending and current intervals). */
  long walBytes() {
    return walBytes;
  }

  /** Roughly the bytes of the current interval's records. */
  long currentBytes() {
    return currentBytes;
  }

  /** Roughly the bytes of the pending intervals' records (prepared, not known committed). */
  long pendingBytes() {
    return walBytes - currentBytes;
  }

  /** The pending intervals, encoded with the run, parallelism and pool size. */
  byte[] encode(UUID run, int parallelism, int poolSize) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(FORMAT);
      out.writeLong(run.getMostSignificantBits());
      out.writeLong(run.getLeastSignificantBits());
      out.writeInt(parallelism);
      out.writeInt(poolSize);
      out.writeInt(pending.size());
      for (Pending p : pending.values()) {
        out.writeLong(p.checkpointId());
        out.writeInt(p.records().size());
        for (WalRecord r : p.records()) {
          r.writeTo(out);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Decodes {@link #encode}'s form.
   *
   * @throws IllegalArgumentException when the bytes are not a saved log of a known format
   */
  static Saved decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int format = in.readInt();
      if (format != FORMAT) {
        throw new IllegalArgumentException(
            "Kafka sink state format " + format + ", this version reads " + FORMAT);
      }
      UUID run = new UUID(in.readLong(), in.readLong());
      int parallelism = in.readInt();
      int poolSize = in.readInt();
      int n = in.readInt();
      List<Pending> pending = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        long checkpointId = in.readLong();
        int records = in.readInt();
        List<WalRecord> log = new ArrayList<>(records);
        for (int j = 0; j < records; j++) {
          log.add(WalRecord.readFrom(in));
        }
        pending.add(new Pending(checkpointId, log, NONE));
      }
      if (in.available() > 0) {
        throw new IllegalArgumentException(in.available() + " bytes after a Kafka sink state");
      }
      return new Saved(run, parallelism, poolSize, pending);
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated Kafka sink state", e);
    }
  }
}
