package io.koala.kafka;

import io.koala.connector.Backlog;
import io.koala.connector.ReadResult;
import io.koala.connector.SourceContext;
import io.koala.connector.SourceOutput;
import io.koala.connector.SourceReader;
import io.koala.connector.SplitOutput;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reader of one Kafka source task, on the task's thread: takes what its {@link KafkaFetcher}
 * handed over, emits at most {@code max} records per partition per read, and keeps each partition's
 * position — the offset after the last record it <em>emitted</em> (records fetched but not emitted
 * yet are not covered), or the fetcher's position after a batch once all of it is emitted (past
 * transaction markers). It never waits for Kafka: with nothing to emit it asks to be called again
 * later, and the fetcher's first hand-off wakes it sooner.
 *
 * <p>Why a fetch thread rather than {@code poll(0)} on the task's thread: the consumer's metadata
 * and offset look-ups ({@code partitionsFor}, {@code position}, {@code endOffsets}) block, and a
 * poll loop that only runs when the task asks cannot overlap fetching with processing.
 * Deserializing there too takes that work off the task's thread.
 */
final class KafkaReader<T> implements SourceReader<T> {
  /** Read again after this long when nothing was handed over (the waker comes first, usually). */
  private static final long IDLE_RECHECK_MILLIS = 200;

  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

  private final KafkaSource<T> source;
  private final SourceContext ctx;
  private final Map<Integer, Partition> partitions = new TreeMap<>();
  private SourceOutput<T> output;
  private Handoff handoff;
  private KafkaFetcher<T> fetcher;
  private boolean ready; // the fetcher assigned every partition it had at start

  /** One partition this task reads. */
  private final class Partition {
    final int number;
    final String split;
    final SplitOutput<T> out;
    final ArrayDeque<Fetched.Batch> pending = new ArrayDeque<>();
    int next; // index in pending's head batch
    long position;
    long end = Long.MAX_VALUE;
    boolean known; // the fetcher assigned it (its end is known)
    boolean ended;

    Partition(int number, long position) {
      this.number = number;
      this.split = source.splitId(number);
      this.out = output.split(split);
      this.position = position;
    }

    /** Emits at most {@code max} records; returns how many. */
    @SuppressWarnings("unchecked")
    int emit(int max) {
      int emitted = 0;
      while (emitted < max && !pending.isEmpty()) {
        Fetched.Batch b = pending.peek();
        int n = Math.min(b.size() - next, max - emitted);
        for (int i = next; i < next + n; i++) {
          out.emit((T) b.values()[i], b.timestamps()[i]);
        }
        if (n > 0) {
          position = b.offsets()[next + n - 1] + 1;
          next += n;
          emitted += n;
        }
        if (next == b.size()) {
          pending.poll();
          next = 0;
          if (b.failure() != null) {
            handoff.release(emitted);
            throw b.failure();
          }
          position = Math.max(position, b.next());
        }
      }
      return emitted;
    }

    boolean reachedEnd() {
      return known && position >= end;
    }
  }

  KafkaReader(KafkaSource<T> source, SourceContext ctx) {
    this.source = source;
    this.ctx = ctx;
  }

  @Override
  public void start(Map<String, Long> restored, SourceOutput<T> output) {
    this.output = output;
    Map<Integer, Long> offsets = new TreeMap<>();
    restored.forEach(
        (split, offset) -> {
          int p = source.partitionOf(split);
          if (p < 0 || source.slotOf(split, ctx.parallelism()) != ctx.taskIndex()) {
            throw new IllegalStateException(
                source.describe()
                    + ": task "
                    + ctx.taskIndex()
                    + " of "
                    + ctx.parallelism()
                    + " restores split '"
                    + split
                    + "', which it does not read (its splits: partitions p of topic '"
                    + source.topic()
                    + "' with p % "
                    + ctx.parallelism()
                    + " == "
                    + ctx.taskIndex()
                    + ")");
          }
          offsets.put(p, offset);
          partitions.put(p, new Partition(p, offset));
        });
    long capacity = 4L * maxPollRecords();
    handoff = new Handoff(capacity, ctx.waker());
    fetcher =
        new KafkaFetcher<>(
            source, ctx.taskIndex(), ctx.parallelism(), offsets, handoff, ctx::skipRecord);
    fetcher.start();
  }

  private int maxPollRecords() {
    Object v = source.consumerConfig(ctx.taskIndex()).get("max.poll.records");
    try {
      return Math.max(1, Integer.parseInt(String.valueOf(v)));
    } catch (NumberFormatException e) {
      return 2000; // the consumer itself rejects it, naming the property
    }
  }

  @Override
  public ReadResult read(int max) {
    for (Fetched item = handoff.poll(); item != null; item = handoff.poll()) {
      take(item);
    }
    boolean more = false;
    boolean allEnded = true;
    for (Partition p : partitions.values()) {
      if (p.ended) {
        continue;
      }
      handoff.release(p.emit(max));
      if (p.reachedEnd()) {
        p.ended = true;
        p.out.end();
        continue;
      }
      allEnded = false;
      more |= !p.pending.isEmpty();
    }
    if (more) {
      return ReadResult.MORE;
    }
    if (source.bounded() && ready && allEnded) {
      return ReadResult.END;
    }
    return ReadResult.waitUntil(ctx.currentTimeMillis() + IDLE_RECHECK_MILLIS);
  }

  private void take(Fetched item) {
    if (item instanceof Fetched.Batch b) {
      partition(b.partition()).pending.add(b);
    } else if (item instanceof Fetched.Assigned a) {
      Partition p = partitions.computeIfAbsent(a.partition(), n -> new Partition(n, a.start()));
      p.end = a.end();
      p.known = true;
    } else if (item instanceof Fetched.Ready) {
      ready = true;
    } else if (item instanceof Fetched.Failed f) {
      throw f.error();
    } else {
      throw new IllegalStateException("unhandled " + item);
    }
  }

  private Partition partition(int number) {
    Partition p = partitions.get(number);
    if (p == null) {
      throw new IllegalStateException(
          source.describe() + ": records of partition " + number + " before its assignment");
    }
    return p;
  }

  @Override
  public Map<String, Long> positions() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (Partition p : partitions.values()) {
      out.put(p.split, p.position);
    }
    return out;
  }

  @Override
  public void checkpointCompleted(long checkpointId, Map<String, Long> positions) {
    if (!source.commitOffsetsOnCheckpoint()) {
      return;
    }
    Map<Integer, Long> offsets = new TreeMap<>();
    positions.forEach(
        (split, offset) -> {
          int p = source.partitionOf(split);
          if (p >= 0) {
            offsets.put(p, offset);
          }
        });
    fetcher.requestCommit(offsets);
  }

  @Override
  public Backlog backlog(long nowMillis) {
    Map<Integer, Long> ends = fetcher == null ? Map.of() : fetcher.logEnds();
    long records = 0;
    double seconds = 0;
    for (Partition p : partitions.values()) {
      Long end = ends.get(p.number);
      if (p.ended || end == null || end <= p.position) {
        continue;
      }
      records += end - p.position;
      Fetched.Batch head = p.pending.peek();
      if (head != null && p.next < head.size() && head.timestamps()[p.next] != Long.MIN_VALUE) {
        seconds = Math.max(seconds, (nowMillis - head.timestamps()[p.next]) / 1000.0);
      }
    }
    return new Backlog(records, Math.max(0, seconds));
  }

  @Override
  public void close() throws InterruptedException {
    if (fetcher != null) {
      fetcher.close(CLOSE_TIMEOUT);
    }
  }
}
