package io.koala.runtime.internal;

import io.koala.KoalaException;
import io.koala.channel.SizeEstimate;
import io.koala.connector.IngestSource;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.ingest.IngestLedger;
import io.koala.protocol.IngestMessage;
import io.koala.protocol.KoalaMessage;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The service's end of an ingest source (what {@code Ingest} calls): an {@link IngestLedger} shared
 * by the service's threads, which offer records, and an actor, which talks to the source's tasks
 * and alone sends them batches. Offers that find no room wait in order (at most the source's
 * capacity of them); they are admitted as completed checkpoints (or, without checkpoints, the
 * tasks' reading) free room, and fail once the job has ended.
 */
public final class IngestClient {
  /** Self: send what the ledger allows. */
  enum Flush implements KoalaMessage {
    INSTANCE
  }

  private static final AtomicLong NAMES = new AtomicLong();
  private static final int MAX_BATCH = 1024;

  private final String jobId;
  private final IngestSource<?> source;
  private final IngestLedger ledger; // guarded by this
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>(); // guarded by this
  private final CompletableFuture<Long> started = new CompletableFuture<>();
  private final ActorRef<Object> self;
  private final TypeRegistry types;
  private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet(); // registered classes seen
  private boolean flushAsked; // guarded by this
  private boolean completeAsked; // guarded by this
  private String closed; // guarded by this: why no more records are taken, or null

  private record Waiting(Object value, CompletableFuture<Long> accepted) {}

  private IngestClient(JobClient job, IngestSource<?> source) {
    this.jobId = job.jobId();
    this.source = source;
    this.ledger = new IngestLedger(source.name(), source.capacity(), MAX_BATCH);
    this.types = KoalaSerialization.registry(job.system());
    this.self =
        job.system()
            .systemActorOf(
                behavior(),
                "ingest-" + job.jobId() + "-" + source.name() + "-" + NAMES.incrementAndGet(),
                Props.empty());
  }

  /**
   * A client of {@code source} in {@code job}, attached through the job's coordinator; it fails its
   * offers once the job ends.
   */
  public static IngestClient attach(JobClient job, IngestSource<?> source) {
    IngestClient c = new IngestClient(job, source);
    job.coordinator()
        .tell(
            new JobInput.AttachIngest(
                source.name(),
                new ActorReply<>(c.self),
                new ActorReply<>(c.self.<JobReply.IngestAttached>narrow())));
    job.completion()
        .whenComplete(
            (status, error) ->
                c.close(
                    "job "
                        + c.jobId
                        + (error == null ? " has ended (" + status + ")" : " failed: " + error)));
    return c;
  }

  private Behavior<Object> behavior() {
    return Behaviors.receive(Object.class)
        .onMessage(Flush.class, f -> onFlush())
        .onMessage(IngestMessage.ToClient.class, this::onTask)
        .onMessage(JobReply.IngestAttached.class, this::onAttached)
        .build();
  }

  private Behavior<Object> onAttached(JobReply.IngestAttached a) {
    if (a.error() != null) {
      close(a.error());
    } else {
      synchronized (this) {
        ledger.attached(a.parallelism());
      }
    }
    return Behaviors.same();
  }

  private Behavior<Object> onTask(IngestMessage.ToClient m) {
    List<Runnable> completions = new ArrayList<>();
    String failure;
    synchronized (this) {
      ledger.on(m);
      failure = ledger.failure();
      if (failure == null) {
        admit(completions);
        send();
      }
    }
    if (failure != null) {
      close(failure);
    }
    if (ledger.started()) {
      started.complete(committed());
    }
    completions.forEach(Runnable::run);
    return Behaviors.same();
  }

  private Behavior<Object> onFlush() {
    synchronized (this) {
      if (closed != null) {
        return Behaviors.stopped();
      }
      flushAsked = false;
      send();
    }
    return Behaviors.same();
  }

  /** Admits waiting offers while there is room, then completes the input if it was asked. */
  private void admit(List<Runnable> completions) {
    while (!waiting.isEmpty() && ledger.hasRoom()) {
      Waiting w = waiting.poll();
      long n = ledger.offer(w.value());
      completions.add(() -> w.accepted().complete(n));
    }
    if (completeAsked && waiting.isEmpty() && !ledger.isComplete()) {
      ledger.complete();
    }
  }

  private void send() {
    for (IngestLedger.Send s : ledger.sendable()) {
      @SuppressWarnings("unchecked")
      ActorReply<Object> task = (ActorReply<Object>) s.address();
      task.tell(s.message());
    }
  }

  private void askFlush() {
    if (!flushAsked) {
      flushAsked = true;
      self.tell(Flush.INSTANCE);
    }
  }

  /**
   * Refuses, before it is taken, a record the job could not send to its tasks: null, of a class not
   * registered with Koala's serializer, or larger than a record may be.
   */
  private void check(Object value) {
    if (value == null) {
      throw new NullPointerException("ingest source '" + source.name() + "': a null record");
    }
    Class<?> type = value.getClass();
    String oversized = SizeEstimate.oversized(type, SizeEstimate.of(value));
    if (oversized != null) {
      throw new IllegalArgumentException("ingest source '" + source.name() + "': " + oversized);
    }
    if (!checked.contains(type)) {
      if (!types.isRegistered(type)) {
        throw new IllegalArgumentException(
            "ingest source '"
                + source.name()
                + "': "
                + KryoSerde.unregistered(type.getName(), null).getMessage());
      }
      checked.add(type);
    }
  }

  /** See {@code Ingest#offer}. */
  public CompletionStage<Long> offer(Object value) {
    check(value);
    synchronized (this) {
      if (closed != null) {
        return CompletableFuture.failedFuture(closedError());
      }
      if (completeAsked) {
        return CompletableFuture.failedFuture(
            new IllegalStateException(
                "ingest source '" + source.name() + "' of job " + jobId + " is complete"));
      }
      if (waiting.isEmpty() && ledger.hasRoom()) {
        long n = ledger.offer(value);
        askFlush();
        return CompletableFuture.completedFuture(n);
      }
      if (waiting.size() >= source.capacity()) {
        return CompletableFuture.failedFuture(
            new IllegalStateException(
                "ingest source '"
                    + source.name()
                    + "' of job "
                    + jobId
                    + ": "
                    + waiting.size()
                    + " offers already wait for room (its capacity); wait for some to complete"));
      }
      CompletableFuture<Long> accepted = new CompletableFuture<>();
      waiting.add(new Waiting(value, accepted));
      return accepted;
    }
  }

  /** See {@code Ingest#tryOffer}: the record's number, or -1 when there is no room now. */
  public long tryOffer(Object value) {
    check(value);
    synchronized (this) {
      return tryAccept(value);
    }
  }

  private long tryAccept(Object value) {
    if (closed != null) {
      throw closedError();
    }
    if (completeAsked || !waiting.isEmpty() || !ledger.hasRoom()) {
      return -1;
    }
    long n = ledger.offer(value);
    askFlush();
    return n;
  }

  /** See {@code Ingest#complete}. */
  public synchronized void complete() {
    completeAsked = true;
    if (waiting.isEmpty()) {
      ledger.complete();
      askFlush();
    }
  }

  public synchronized long committed() {
    return ledger.committed();
  }

  public synchronized long last() {
    return ledger.last();
  }

  /** Completes with where the job's input is once every task of the source has said so. */
  public CompletionStage<Long> started() {
    return started;
  }

  /** No more records are taken: waiting offers fail with {@code reason}. */
  void close(String reason) {
    List<Waiting> failed;
    synchronized (this) {
      if (closed != null) {
        return;
      }
      closed = reason;
      failed = new ArrayList<>(waiting);
      waiting.clear();
    }
    KoalaException error = closedError();
    failed.forEach(w -> w.accepted().completeExceptionally(error));
    started.completeExceptionally(error);
    self.tell(Flush.INSTANCE); // the actor stops
  }

  private synchronized KoalaException closedError() {
    return new KoalaException(
        "ingest source '" + source.name() + "' takes no more records: " + closed);
  }
}
