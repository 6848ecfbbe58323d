package io.koala.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiPredicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetch thread of one Kafka source task: owns the task's {@link KafkaConsumer} (which is not
 * thread-safe: every call to it happens here), assigns the task's partitions, seeks them to the
 * restored or starting offsets, polls, deserializes, and {@link Handoff}s batches to the task. It
 * also finds partitions added to the topic, commits completed checkpoints' offsets when asked, and
 * publishes each partition's log end for the backlog metric.
 *
 * <pre>
 *   start ── partitionsFor (connect timeout) ──► assign + seek ──► Ready ──► poll loop ──► closed
 *              │ no answer / no topic                                  │ consumer or
 *              └──────────────► Failed ◄────────────────────────────────┘ deserializer error
 * </pre>
 */
final class KafkaFetcher<T> implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(KafkaFetcher.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration DISCOVERY_TIMEOUT = Duration.ofSeconds(5);
  private static final long LOG_END_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final KafkaSource<T> source;
  private final int taskIndex;
  private final int parallelism;
  private final Map<Integer, Long> restored;
  private final Handoff handoff;
  private final BiPredicate<String, Exception> skipUnreadable; // by the job's record policy
  private final Map<Integer, Long> logEnds = new ConcurrentHashMap<>();
  private final AtomicReference<Map<Integer, Long>> commitRequest = new AtomicReference<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean running = true;
  private volatile KafkaConsumer<byte[], byte[]> consumer;

  // fetch thread only
  private final Set<Integer> assigned = new TreeSet<>();
  private final Map<Integer, Long> ends = new HashMap<>();
  private final Set<Integer> paused = new TreeSet<>();
  private long lastLogEnds;

  KafkaFetcher(
      KafkaSource<T> source,
      int taskIndex,
      int parallelism,
      Map<Integer, Long> restored,
      Handoff handoff,
      BiPredicate<String, Exception> skipUnreadable) {
    this.source = source;
    this.skipUnreadable = skipUnreadable;
    this.taskIndex = taskIndex;
    this.parallelism = parallelism;
    this.restored = Map.copyOf(restored);
    this.handoff = handoff;
    this.thread = new Thread(this, "koala-kafka-" + source.name() + "-" + taskIndex);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** The log end offset of each partition, as last seen (thread-safe). */
  Map<Integer, Long> logEnds() {
    return logEnds;
  }

  /** Asks the fetch thread to commit {@code offsets} (partition → next offset) to the group. */
  void requestCommit(Map<Integer, Long> offsets) {
    commitRequest.set(Map.copyOf(offsets));
  }

  /** Stops the thread, closing its consumer; waits for it at most {@code timeout}. */
  void close(Duration timeout) throws InterruptedException {
    running = false;
    stopped.countDown();
    handoff.close();
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    thread.join(timeout.toMillis());
    if (thread.isAlive()) {
      log.warn("{}: fetch thread {} did not stop within {}", source, thread.getName(), timeout);
    }
  }

  @Override
  public void run() {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            source.consumerConfig(taskIndex),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      consumer = c;
      if (!running) {
        return;
      }
      assign(c, firstPartitions(c), true);
      handoff.put(Fetched.Ready.INSTANCE, 0);
      long interval = source.partitionDiscoveryInterval().toNanos();
      boolean discover = !source.bounded() && interval > 0;
      long nextDiscovery = System.nanoTime() + interval;
      while (running) {
        if (discover && System.nanoTime() - nextDiscovery >= 0) {
          discoverNew(c);
          nextDiscovery = System.nanoTime() + interval;
        }
        commitIfAsked(c);
        if (source.bounded()) {
          pauseEnded(c);
        }
        if (assigned.isEmpty() || paused.size() == assigned.size()) {
          stopped.await(POLL.toMillis(), TimeUnit.MILLISECONDS); // nothing to poll
          continue;
        }
        if (!handOver(c.poll(POLL))) {
          return;
        }
        publishLogEnds(c);
      }
    } catch (WakeupException | InterruptException e) {
      if (running) {
        fail(new KafkaSourceException(source.describe() + ": the consumer was interrupted", e));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (KafkaSourceException e) {
      fail(e);
    } catch (RuntimeException e) {
      fail(new KafkaSourceException(source.describe() + ": the consumer failed: " + e, e));
    }
  }

  private void fail(KafkaSourceException e) {
    if (!running) {
      return; // closing: nobody reads it
    }
    try {
      handoff.put(new Fetched.Failed(e), 0);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The topic's partitions at start, within the connect timeout; fails naming what is wrong. */
  private List<Integer> firstPartitions(KafkaConsumer<byte[], byte[]> c) {
    List<PartitionInfo> infos;
    try {
      infos = c.partitionsFor(source.topic(), source.connectTimeout());
    } catch (TimeoutException e) {
      throw new KafkaSourceException(
          source.describe()
              + ": no answer from the brokers within "
              + source.connectTimeout().toMillis()
              + " ms (are the bootstrap servers reachable?)",
          e);
    }
    if (infos == null || infos.isEmpty()) {
      throw new KafkaSourceException(source.describe() + ": the topic does not exist");
    }
    List<Integer> all = new ArrayList<>();
    for (PartitionInfo info : infos) {
      all.add(info.partition());
    }
    for (int p : restored.keySet()) {
      if (!all.contains(p)) {
        throw new KafkaSourceException(
            source.describe()
                + ": the checkpoint has a position for partition "
                + p
                + ", which the topic no longer has (its partitions: "
                + new TreeSet<>(all)
                + ")");
      }
    }
    return all;
  }

  /**
   * Assigns the partitions the consumer's metadata knows and this task does not read yet. That
   * metadata is at most {@code metadata.max.age.ms} old (the discovery interval, by default).
   */
  private void discoverNew(KafkaConsumer<byte[], byte[]> c) throws InterruptedException {
    List<PartitionInfo> infos;
    try {
      infos = c.partitionsFor(source.topic(), DISCOVERY_TIMEOUT);
    } catch (TimeoutException e) {
      log.warn("{}: partition discovery got no answer within {}", source, DISCOVERY_TIMEOUT);
      return;
    }
    List<Integer> found = new ArrayList<>();
    for (PartitionInfo info : infos == null ? List.<PartitionInfo>of() : infos) {
      found.add(info.partition());
    }
    assign(c, found, false);
  }

  /**
   * Assigns this task's partitions among {@code partitions} that it does not read yet, seeks them
   * (restored offset, else the starting offsets on a fresh start, else the earliest) and announces
   * each with its start (and end, for a bounded source).
   */
  private void assign(KafkaConsumer<byte[], byte[]> c, List<Integer> partitions, boolean first)
      throws InterruptedException {
    List<Integer> fresh = new ArrayList<>();
    for (int p : partitions) {
      if (p % parallelism == taskIndex && !assigned.contains(p)) {
        fresh.add(p);
      }
    }
    if (fresh.isEmpty()) {
      return;
    }
    assigned.addAll(fresh);
    List<TopicPartition> all = new ArrayList<>();
    for (int p : assigned) {
      all.add(tp(p));
    }
    c.assign(all);
    List<TopicPartition> toStart = new ArrayList<>();
    for (int p : fresh) {
      Long offset = restored.get(p);
      if (offset != null) {
        c.seek(tp(p), offset);
      } else {
        toStart.add(tp(p));
      }
    }
    // the starting offsets apply to a fresh start only: after a restore, a partition without a
    // position appeared after the checkpoint, and all of it is new
    boolean freshStart = first && restored.isEmpty();
    StartingOffsets from = freshStart ? source.startingOffsets() : StartingOffsets.EARLIEST;
    seekToStart(c, toStart, from);
    Map<TopicPartition, Long> endOffsets = Map.of();
    if (source.bounded()) {
      List<TopicPartition> tps = new ArrayList<>();
      fresh.forEach(p -> tps.add(tp(p)));
      endOffsets = c.endOffsets(tps, source.connectTimeout());
    }
    for (int p : fresh) {
      long start = c.position(tp(p), source.connectTimeout());
      long end = source.bounded() ? endOffsets.get(tp(p)) : Long.MAX_VALUE;
      ends.put(p, end);
      if (!first) {
        log.info("{}: task {} reads new partition {} from offset {}", source, taskIndex, p, start);
      }
      handoff.put(new Fetched.Assigned(p, start, end), 0);
    }
  }

  private void seekToStart(
      KafkaConsumer<byte[], byte[]> c, List<TopicPartition> tps, StartingOffsets from) {
    if (tps.isEmpty()) {
      return;
    }
    switch (from) {
      case EARLIEST -> c.seekToBeginning(tps);
      case LATEST -> c.seekToEnd(tps);
      case COMMITTED -> {
        Map<TopicPartition, OffsetAndMetadata> committed =
            c.committed(new java.util.HashSet<>(tps), source.connectTimeout());
        List<TopicPartition> none = new ArrayList<>();
        for (TopicPartition tp : tps) {
          OffsetAndMetadata o = committed.get(tp);
          if (o == null) {
            none.add(tp);
          } else {
            c.seek(tp, o.offset());
          }
        }
        c.seekToBeginning(none);
      }
      default -> throw new IllegalStateException("unhandled " + from);
    }
  }

  /** A bounded source stops fetching the partitions that reached their end. */
  private void pauseEnded(KafkaConsumer<byte[], byte[]> c) {
    List<TopicPartition> done = new ArrayList<>();
    for (int p : assigned) {
      if (!paused.contains(p) && c.position(tp(p)) >= ends.get(p)) {
        paused.add(p);
        done.add(tp(p));
      }
    }
    if (!done.isEmpty()) {
      c.pause(done);
    }
  }

  private void commitIfAsked(KafkaConsumer<byte[], byte[]> c) {
    Map<Integer, Long> offsets = commitRequest.getAndSet(null);
    if (offsets == null) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    offsets.forEach((p, o) -> commit.put(tp(p), new OffsetAndMetadata(o)));
    c.commitAsync(
        commit,
        (done, e) -> {
          if (e != null) {
            log.warn("{}: committing offsets {} failed (monitoring only): {}", source, offsets, e);
          }
        });
  }

  /** Deserializes and hands over one poll; false when the fetcher must stop. */
  private boolean handOver(ConsumerRecords<byte[], byte[]> records) throws InterruptedException {
    Map<TopicPartition, OffsetAndMetadata> next = records.nextOffsets();
    for (TopicPartition tp : records.partitions()) {
      List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
      int size = list.size();
      Object[] values = new Object[size];
      long[] timestamps = new long[size];
      long[] offsets = new long[size];
      int n = 0;
      KafkaSourceException failure = null;
      for (ConsumerRecord<byte[], byte[]> r : list) {
        try {
          Object v = source.deserializer().deserialize(r);
          if (v == null) {
            throw new NullPointerException("the deserializer returned null");
          }
          values[n] = v;
        } catch (Exception e) {
          String where = "partition " + tp.partition() + ", offset " + r.offset();
          if (skipUnreadable.test(where, e)) {
            continue; // the job's policy skips it: the partition's position passes it all the same
          }
          failure =
              new KafkaSourceException(
                  source.describe() + ": the deserializer failed on " + where + ": " + e, e);
          break;
        }
        timestamps[n] = r.timestamp() < 0 ? Long.MIN_VALUE : r.timestamp();
        offsets[n] = r.offset();
        n++;
      }
      OffsetAndMetadata o = next.get(tp);
      long position = o != null ? o.offset() : n > 0 ? offsets[n - 1] + 1 : -1;
      Fetched.Batch batch =
          new Fetched.Batch(tp.partition(), values, timestamps, offsets, n, position, failure);
      if (!handoff.put(batch, n) || failure != null) {
        return false;
      }
    }
    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : next.entrySet()) {
      if (!records.partitions().contains(e.getKey())) { // only markers or aborted records
        Fetched.Batch moved =
            new Fetched.Batch(
                e.getKey().partition(),
                new Object[0],
                new long[0],
                new long[0],
                0,
                e.getValue().offset(),
                null);
        if (!handoff.put(moved, 0)) {
          return false;
        }
      }
    }
    return true;
  }

  private void publishLogEnds(KafkaConsumer<byte[], byte[]> c) {
    long now = System.nanoTime();
    if (now - lastLogEnds < LOG_END_INTERVAL_NANOS) {
      return;
    }
    lastLogEnds = now;
    Map<Integer, Long> seen = new TreeMap<>();
    for (int p : assigned) {
      var lag = c.currentLag(tp(p));
      if (lag.isPresent()) {
        seen.put(p, c.position(tp(p)) + lag.getAsLong());
      }
    }
    logEnds.putAll(seen);
  }

  private TopicPartition tp(int partition) {
    return new TopicPartition(source.topic(), partition);
  }
}
