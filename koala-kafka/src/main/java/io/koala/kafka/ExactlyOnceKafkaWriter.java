package io.koala.kafka;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of an exactly-once {@link KafkaSink} task: Kafka transactions committed on Koala's
 * checkpoints, with a write-ahead log of their records in Koala's checkpoint, because a Kafka 4.3
 * client cannot resume a transaction its predecessor prepared (no public KIP-939 API; see {@code
 * docs/decisions.md}, "Exactly-once Kafka sink without KIP-939").
 *
 * <p>Task {@code i} owns a pool of transactional producers, ids {@code <prefix>-<sink>-<i>-<k>}.
 * Each checkpoint interval's records go into one producer's transaction and into the log ({@link
 * TransactionLog}); at checkpoint {@code c}'s barrier the transaction also gets the marker of
 * {@code c} ({@link MarkerTopic}), is flushed (acknowledged, not committed), and filed as pending;
 * the log of every pending interval is the writer's {@link #pendingState}. When {@code c} is
 * durably recorded, the pending transactions up to {@code c} are committed in order and their
 * producers are free again. With every producer holding a pending transaction the writer is not
 * {@link #ready} (records that still arrive wait in the log).
 *
 * <p>On open, before anything else, every producer of the pool calls {@code initTransactions()}:
 * that aborts what a crashed predecessor left open and fences a predecessor still running. A writer
 * restored from checkpoint {@code c} then reads its marker partition to find the last committed
 * checkpoint {@code m} of its run, and publishes the logged intervals after {@code m} (up to {@code
 * c}), each in a transaction with its marker. Records after {@code c} are replayed by the job.
 */
final class ExactlyOnceKafkaWriter<T> implements SinkWriter<T> {
  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceKafkaWriter.class);

  private final KafkaSink<T> sink;
  private final SinkContext ctx;
  private final String name;
  private final int task;
  private final MarkerTopic markers;
  private final List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
  private final AtomicReference<Exception> sendError = new AtomicReference<>();
  private final Callback onSent =
      (metadata, e) -> {
        if (e != null) {
          sendError.compareAndSet(null, e);
        }
      };
  private UUID run;
  private TransactionLog log;
  private boolean checkpointAsked; // this interval asked for an early checkpoint

  private ExactlyOnceKafkaWriter(KafkaSink<T> sink, SinkContext ctx) {
    this.sink = sink;
    this.ctx = ctx;
    this.name = ctx.sinkName();
    this.task = ctx.taskIndex();
    this.markers = new MarkerTopic(sink.markerTopic(), sink.describe(), sink.timeout());
  }

  /** Opens the writer of sink task {@code ctx.taskIndex()}: fences, then publishes the log. */
  static <T> ExactlyOnceKafkaWriter<T> open(KafkaSink<T> sink, SinkContext ctx) {
    if (!ctx.checkpointing()) {
      throw new KafkaSinkException(
          sink.describe()
              + ": exactlyOnce(...) commits on checkpoints, and this job takes none: set"
              + " koala.checkpoint.interval, or use atLeastOnce()");
    }
    ExactlyOnceKafkaWriter<T> w = new ExactlyOnceKafkaWriter<>(sink, ctx);
    try {
      w.start();
    } catch (RuntimeException e) {
      w.close();
      throw e;
    }
    return w;
  }

  private void start() {
    TransactionLog.Saved saved = null;
    if (ctx.restoredState() != null) {
      try {
        saved = TransactionLog.decode(ctx.restoredState());
      } catch (IllegalArgumentException e) {
        throw new KafkaSinkException(
            sink.describe()
                + ", task "
                + task
                + ": unreadable state in checkpoint "
                + ctx.restoredCheckpoint()
                + ": "
                + e.getMessage(),
            e);
      }
      if (saved.parallelism() > ctx.parallelism()) {
        LOG.warn(
            "{}: restored at parallelism {} from a checkpoint written at parallelism {}: what"
                + " tasks {}..{} had not committed is not published by any task",
            sink.describe(),
            ctx.parallelism(),
            saved.parallelism(),
            ctx.parallelism(),
            saved.parallelism() - 1);
      }
    }
    run = saved == null ? UUID.randomUUID() : saved.run();
    try (Admin admin = Admin.create(sink.adminConfig())) {
      markers.ensure(admin, Math.max(ctx.parallelism(), task + 1));
    }
    // fence first: every id a predecessor may have used, then read the markers
    int ids = Math.max(sink.producerPool(), saved == null ? 0 : saved.poolSize());
    for (int k = 0; k < ids; k++) {
      KafkaProducer<byte[], byte[]> p = newProducer(k);
      if (k < sink.producerPool()) {
        producers.add(p);
      } else {
        p.close(Duration.ZERO); // a larger pool before the restore: fenced, not used
      }
    }
    if (saved != null && !saved.pending().isEmpty()) {
      long m = markers.lastCommitted(sink.consumerConfig(), name, task, run);
      if (m > ctx.restoredCheckpoint()) {
        LOG.warn(
            "{}, task {}: checkpoint {} is committed to Kafka but the job resumes from checkpoint"
                + " {}: the output in between may be published twice",
            sink.describe(),
            task,
            m,
            ctx.restoredCheckpoint());
      }
      int published = 0;
      for (TransactionLog.Pending p : saved.pending()) {
        if (p.checkpointId() > m) {
          publish(0, p);
          published++;
        }
      }
      LOG.info(
          "{}, task {}: restored from checkpoint {}: {} logged intervals, {} already committed"
              + " (last marker {}), {} published now",
          sink.describe(),
          task,
          ctx.restoredCheckpoint(),
          saved.pending().size(),
          saved.pending().size() - published,
          m,
          published);
    }
    log = new TransactionLog(sink.producerPool(), ctx.restoredCheckpoint());
  }

  /** A producer of transactional id {@code k} of this task's pool, initialized (fencing). */
  private KafkaProducer<byte[], byte[]> newProducer(int k) {
    String id = sink.transactionalId(name, task, k);
    KafkaProducer<byte[], byte[]> p = null;
    try {
      p =
          new KafkaProducer<>(
              sink.producerConfig(id, task), new ByteArraySerializer(), new ByteArraySerializer());
      p.initTransactions();
      return p;
    } catch (KafkaException e) {
      if (p != null) {
        p.close(Duration.ZERO);
      }
      throw new KafkaSinkException(
          sink.describe() + ": cannot initialize transactional id '" + id + "': " + e, e);
    }
  }

  /** Publishes a logged interval now, in a transaction of producer {@code k} with its marker. */
  private void publish(int k, TransactionLog.Pending p) {
    KafkaProducer<byte[], byte[]> producer = producers.get(k);
    try {
      producer.beginTransaction();
      for (WalRecord r : p.records()) {
        producer.send(r.toProducerRecord(), onSent);
      }
      producer.send(markers.marker(name, task, run, p.checkpointId()), onSent);
      producer.commitTransaction();
      checkSent();
    } catch (KafkaException e) {
      throw failure("could not publish checkpoint " + p.checkpointId(), k, e);
    }
  }

  @Override
  public void write(T value, long timestamp) {
    ProducerRecord<byte[], byte[]> r = sink.serialize(value, timestamp);
    checkSent();
    int k = log.append(WalRecord.of(r));
    if (k != TransactionLog.NONE) {
      send(k, r);
    } else {
      assignFree();
    }
    if (!checkpointAsked && log.currentBytes() >= sink.maxUncommittedBytes() / 2) {
      checkpointAsked = true;
      ctx.requestCheckpoint(
          sink.describe()
              + ", task "
              + task
              + ": "
              + log.currentBytes()
              + " bytes written since the last checkpoint, half of maxUncommittedBytes ("
              + sink.maxUncommittedBytes()
              + ")");
    }
  }

  private void send(int k, ProducerRecord<byte[], byte[]> r) {
    try {
      producers.get(k).send(r, onSent);
    } catch (KafkaException e) {
      throw failure("could not send a record", k, e);
    }
  }

  /** Gives free producers to the intervals waiting for one and begins their transactions. */
  private void assignFree() {
    TransactionLog.Assignment a;
    while ((a = log.assignFree()) != null) {
      KafkaProducer<byte[], byte[]> producer = producers.get(a.producer());
      try {
        producer.beginTransaction();
        for (WalRecord r : a.records()) {
          producer.send(r.toProducerRecord(), onSent);
        }
        if (a.checkpointId() != TransactionLog.CURRENT) {
          producer.send(markers.marker(name, task, run, a.checkpointId()), onSent);
          producer.flush();
          checkSent();
        }
      } catch (KafkaException e) {
        throw failure("could not begin a transaction", a.producer(), e);
      }
    }
  }

  /**
   * Whether a producer is there for the records, and the intervals waiting for their commit hold
   * less than {@link KafkaSink#maxUncommittedBytes} (the current one is never held back: the
   * barrier that seals it comes after its records).
   */
  @Override
  public boolean ready() {
    return log.takesRecords() && log.pendingBytes() < sink.maxUncommittedBytes();
  }

  @Override
  public void prepareCommit(long checkpointId) {
    int k = log.currentProducer();
    if (k != TransactionLog.NONE) {
      KafkaProducer<byte[], byte[]> producer = producers.get(k);
      try {
        producer.send(markers.marker(name, task, run, checkpointId), onSent);
        producer.flush();
      } catch (KafkaException e) {
        throw failure("could not prepare checkpoint " + checkpointId, k, e);
      }
      checkSent();
    }
    log.prepare(checkpointId);
    checkpointAsked = false;
  }

  @Override
  public byte[] pendingState() {
    return log.encode(run, ctx.parallelism(), sink.producerPool());
  }

  @Override
  public void commit(long checkpointId) {
    for (TransactionLog.Pending p : log.committable(checkpointId)) {
      if (p.producer() == TransactionLog.NONE) {
        assignFree(); // the producers of the intervals before it are free now
        p = log.pending(p.checkpointId());
        if (p.producer() == TransactionLog.NONE) {
          throw new IllegalStateException(
              "Kafka sink '" + name + "' task " + task + ": no producer for " + p.checkpointId());
        }
      }
      commitPending(p);
      log.committed(p.checkpointId());
    }
    assignFree();
    ctx.waker().run();
  }

  private void commitPending(TransactionLog.Pending p) {
    int k = p.producer();
    try {
      producers.get(k).commitTransaction();
    } catch (InvalidProducerEpochException
        | TransactionAbortedException
        | InvalidTxnStateException e) {
      // the broker aborted the transaction (it outlived transaction.timeout.ms): publish the log
      LOG.warn(
          "{}, task {}: the transaction of checkpoint {} (transactional id '{}') was aborted by"
              + " the broker ({}); publishing its {} logged records again",
          sink.describe(),
          task,
          p.checkpointId(),
          sink.transactionalId(name, task, k),
          e.toString(),
          p.records().size());
      producers.get(k).close(Duration.ZERO);
      producers.set(k, newProducer(k));
      publish(k, p);
    } catch (KafkaException e) {
      throw failure("could not commit checkpoint " + p.checkpointId(), k, e);
    }
  }

  @Override
  public void finish() {
    long last = log.lastPrepared() + 1; // the marker of the output after the last checkpoint
    prepareCommit(last);
    commit(last);
  }

  @Override
  public void close() {
    for (KafkaProducer<byte[], byte[]> p : producers) {
      p.close(Duration.ZERO); // an open transaction is aborted by the next writer, or times out
    }
    producers.clear();
  }

  private void checkSent() {
    Exception e = sendError.get();
    if (e != null) {
      boolean aborted =
          e instanceof InvalidProducerEpochException
              || e instanceof InvalidTxnStateException
              || e instanceof TransactionAbortedException;
      throw new KafkaSinkException(
          sink.describe()
              + ", task "
              + task
              + ": a write failed: "
              + e
              + (aborted
                  ? " (the broker aborted an open transaction: property transaction.timeout.ms"
                      + " must exceed the checkpoint interval plus the time a checkpoint takes)"
                  : ""),
          e);
    }
  }

  private KafkaSinkException failure(String what, int k, KafkaException e) {
    String id = sink.transactionalId(name, task, k);
    if (e instanceof ProducerFencedException) {
      return new KafkaSinkException(
          sink.describe()
              + ", task "
              + task
              + ": "
              + what
              + ": transactional id '"
              + id
              + "' is fenced by a newer writer of the same id (this task was replaced, or"
              + " another job uses the same transactional id prefix)",
          e);
    }
    return new KafkaSinkException(
        sink.describe() + ", task " + task + ": " + what + " (transactional id '" + id + "'): " + e,
        e);
  }
}
