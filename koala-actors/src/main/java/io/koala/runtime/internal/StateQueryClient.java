package io.koala.runtime.internal;

import io.koala.KoalaException;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.coordinator.TaskAddress;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.QueryMessage;
import io.koala.protocol.TaskMessage;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.state.Codec;
import io.koala.task.state.KeyedStateBackend;
import io.koala.time.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The service's end of state queries (what {@code JobHandle.query} calls): an actor that keeps each
 * queried operator's routing table as the coordinator last gave it, sends each read to the task
 * owning the key's bucket, and, when that task does not process the bucket (a reconfiguration is
 * moving it, or the table is out of date), asks again: at once at the task it was handed to, else
 * after a short pause with the table fetched anew. A read that gets no answer is sent again; one
 * that gets none within the timeout fails. Answers are decoded on the actor, with its own serde.
 */
public final class StateQueryClient {
  /** Caller → self: read {@code id}, waiting in {@link #pending}. */
  record Submit(long id) implements KoalaMessage {}

  /** Self: ask read {@code id} again (after a pause). */
  record Retry(long id) implements KoalaMessage {}

  /** Self: time out reads that waited too long for an answer. */
  enum Tick implements KoalaMessage {
    INSTANCE
  }

  private static final AtomicLong NAMES = new AtomicLong();
  private static final Duration TICK = Duration.ofMillis(100);
  private static final long RESEND_AFTER_NANOS = Duration.ofSeconds(1).toNanos();
  private static final long MAX_PAUSE_MILLIS = 50;

  /** What a read's answer becomes: decoded with the client's serde. */
  public interface Decoder<R> extends BiFunction<KryoSerde, QueryMessage.Found, R> {}

  /** The value state in {@code found}, decoded with {@code values}: empty when there is none. */
  public static <V> java.util.Optional<V> value(QueryMessage.Found found, Codec<V> values) {
    return found.values().isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(values.decode(found.values().get(0)));
  }

  /** The list state in {@code found}, its elements decoded with {@code elements}. */
  public static <E> List<E> list(QueryMessage.Found found, Codec<E> elements) {
    return found.values().isEmpty()
        ? List.of()
        : List.copyOf(KeyedStateBackend.listOf(found.values().get(0), elements));
  }

  /**
   * The map state in {@code found}, in store order: its keys decoded as keys are ({@link
   * KeyEncoder} on {@code serde}), its values with {@code values}.
   */
  public static <V> Map<Object, V> map(QueryMessage.Found found, KryoSerde serde, Codec<V> values) {
    KeyEncoder keys = new KeyEncoder(serde);
    Map<Object, V> out = new java.util.LinkedHashMap<>();
    for (int i = 0; i < found.values().size(); i++) {
      out.put(keys.decode(found.namespaces().get(i)), values.decode(found.values().get(i)));
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  /**
   * A page of a scan of one bucket: its keys with their decoded states, in store order; the scan of
   * the bucket goes on after {@code next} (null: the bucket is done). {@code buckets}: how many
   * buckets the operator's keys are spread over.
   */
  public record ScanChunk<R>(int buckets, List<Map.Entry<Object, R>> entries, byte[] next) {}

  /** Counts of a client's reads. */
  public record Stats(long reads, long byOwner, long byHolder, long redirects, long resends) {}

  private final JobClient job;
  private final ActorRef<Object> self;
  private final Map<Long, Pending<?>> pending = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final AtomicLong byOwner = new AtomicLong();
  private final AtomicLong byHolder = new AtomicLong();
  private final AtomicLong redirects = new AtomicLong();
  private final AtomicLong resends = new AtomicLong();
  private volatile String closed; // why no more reads are taken, or null

  /** A read, until it is answered; fields other than the arguments are the actor's. */
  private static final class Pending<R> {
    final String operator;
    final String state;
    final QueryMessage.Kind kind;
    final QueryMessage.Types types;
    final Object key; // null for a scan
    final BiFunction<KryoSerde, QueryMessage.Answer, R> decoder;
    int scanBucket = -1; // a scan's bucket
    byte[] after; // a scan's cursor
    int limit; // a scan's most keys
    final CompletableFuture<R> result = new CompletableFuture<>();
    final long deadline;
    byte[] keyBytes; // encoded once routes are known
    int bucket = -1;
    int target = -1; // the task to ask next; -1: the routing table's owner
    int hops; // redirects followed at once since the last pause
    long sentAt;
    String last = "no answer yet";

    Pending(
        String operator,
        String state,
        QueryMessage.Kind kind,
        QueryMessage.Types types,
        Object key,
        BiFunction<KryoSerde, QueryMessage.Answer, R> decoder,
        long deadline) {
      this.operator = operator;
      this.state = state;
      this.kind = kind;
      this.types = types;
      this.key = key;
      this.decoder = decoder;
      this.deadline = deadline;
    }
  }

  /** An operator's routing as the coordinator last gave it. */
  private record Routes(int[] owners, Map<Integer, ActorRef<TaskMessage>> tasks) {}

  /** How many buckets each operator has, as its routes said: set on the actor, read on decode. */
  private final Map<String, Integer> bucketsOf = new ConcurrentHashMap<>();

  private StateQueryClient(JobClient job) {
    this.job = job;
    this.self =
        job.system()
            .systemActorOf(
                Behaviors.setup(
                    ctx ->
                        Behaviors.withTimers(
                            timers -> {
                              timers.startTimerWithFixedDelay(Tick.INSTANCE, TICK);
                              return new Actor(
                                      timers,
                                      new KryoSerde(KoalaSerialization.registry(job.system())))
                                  .behavior();
                            })),
                "state-queries-" + job.jobId() + "-" + NAMES.incrementAndGet(),
                Props.empty());
  }

  /** A query client of {@code job}; it fails its reads once the job ends. */
  public static StateQueryClient start(JobClient job) {
    StateQueryClient c = new StateQueryClient(job);
    job.completion()
        .whenComplete(
            (status, error) ->
                c.close(
                    "job "
                        + job.jobId()
                        + (error == null ? " has ended (" + status + ")" : " failed: " + error)));
    return c;
  }

  /**
   * Reads state {@code state} ({@code kind}, with {@code types}) of {@code key} at keyed operator
   * {@code operator}. Completes with the decoded answer, or exceptionally with a {@link
   * KoalaException}.
   */
  public <R> CompletionStage<R> read(
      String operator,
      String state,
      QueryMessage.Kind kind,
      QueryMessage.Types types,
      Object key,
      Decoder<R> decoder) {
    return submit(
        new Pending<R>(
            operator,
            state,
            kind,
            types,
            key,
            (serde, answer) -> decoder.apply(serde, (QueryMessage.Found) answer),
            System.nanoTime() + job.askTimeout().toNanos()));
  }

  /**
   * Reads state {@code state} ({@code kind}, with {@code types}) of the keys of {@code bucket}
   * after the key with bytes {@code after} (null: from the first), at most {@code limit} of them,
   * from wherever each key's state is; completes with a {@link ScanChunk} whose states {@code
   * decoder} decoded.
   */
  public <R> CompletionStage<ScanChunk<R>> scan(
      String operator,
      String state,
      QueryMessage.Kind kind,
      QueryMessage.Types types,
      int bucket,
      byte[] after,
      int limit,
      Decoder<R> decoder) {
    Pending<ScanChunk<R>> p =
        new Pending<>(
            operator,
            state,
            kind,
            types,
            null,
            (serde, answer) -> {
              QueryMessage.Page page = (QueryMessage.Page) answer;
              KeyEncoder keys = new KeyEncoder(serde);
              List<Map.Entry<Object, R>> entries = new ArrayList<>(page.keys().size());
              for (QueryMessage.KeyEntries k : page.keys()) {
                QueryMessage.Found f =
                    new QueryMessage.Found(
                        page.id(), page.servedBy(), false, k.namespaces(), k.values(), null);
                entries.add(Map.entry(keys.decode(k.key()), decoder.apply(serde, f)));
              }
              return new ScanChunk<>(bucketsOf.get(operator), entries, page.next());
            },
            System.nanoTime() + job.askTimeout().toNanos());
    p.scanBucket = bucket;
    p.after = after;
    p.limit = limit;
    return submit(p);
  }

  private <R> CompletionStage<R> submit(Pending<R> p) {
    String why = closed;
    if (why != null) {
      return CompletableFuture.failedFuture(new KoalaException(why));
    }
    long id = ids.incrementAndGet();
    pending.put(id, p);
    self.tell(new Submit(id));
    return p.result;
  }

  /** How this client's reads went so far. */
  public Stats stats() {
    long owner = byOwner.get();
    long holder = byHolder.get();
    return new Stats(owner + holder, owner, holder, redirects.get(), resends.get());
  }

  /** Fails every waiting read with {@code reason}, and every later one; stops the actor. */
  public void close(String reason) {
    closed = reason;
    for (Long id : new ArrayList<>(pending.keySet())) {
      Pending<?> p = pending.remove(id);
      if (p != null) {
        p.result.completeExceptionally(new KoalaException(reason));
      }
    }
    self.tell(Tick.INSTANCE); // the actor stops at its next message once closed
  }

  /** The actor: all routing and retrying happens on it. */
  private final class Actor {
    private final TimerScheduler<Object> timers;
    private final KryoSerde serde;
    private final KeyEncoder keys;
    private final Map<String, Routes> routes = new HashMap<>();
    private final Map<String, List<Long>> awaitingRoutes = new HashMap<>();

    Actor(TimerScheduler<Object> timers, KryoSerde serde) {
      this.timers = timers;
      this.serde = serde;
      this.keys = new KeyEncoder(serde);
    }

    Behavior<Object> behavior() {
      return Behaviors.receive(Object.class)
          .onMessage(Submit.class, s -> onSubmit(s.id()))
          .onMessage(Retry.class, r -> onSubmit(r.id()))
          .onMessage(QueryMessage.Answer.class, this::onAnswer)
          .onMessage(JobReply.StateRoutes.class, this::onRoutes)
          .onMessage(Tick.class, t -> onTick())
          .build();
    }

    private Behavior<Object> onSubmit(long id) {
      Pending<?> p = pending.get(id);
      if (p != null) {
        send(id, p);
      }
      return closed == null ? Behaviors.same() : Behaviors.stopped();
    }

    /** Sends read {@code id} to its target, or waits for the operator's routes first. */
    private void send(long id, Pending<?> p) {
      Routes r = routes.get(p.operator);
      if (r == null) {
        awaitRoutes(id, p.operator);
        return;
      }
      if (p.key == null) {
        if (p.scanBucket >= r.owners().length) {
          fail(
              id,
              "operator '"
                  + p.operator
                  + "' spreads its keys over "
                  + r.owners().length
                  + " buckets; there is no bucket "
                  + p.scanBucket,
              null);
          return;
        }
        p.bucket = p.scanBucket;
      } else if (p.keyBytes == null) {
        try {
          p.keyBytes = keys.encode(p.key);
        } catch (RuntimeException e) {
          fail(id, "cannot encode key " + p.key + " of a query of '" + p.operator + "': " + e, e);
          return;
        }
        p.bucket = Buckets.bucketOf(p.keyBytes, r.owners().length);
      }
      int task = p.target >= 0 ? p.target : r.owners()[p.bucket];
      ActorRef<TaskMessage> ref = r.tasks().get(task);
      if (ref == null) { // a task the table does not know (yet): ask the coordinator again
        p.target = -1;
        routes.remove(p.operator);
        timers.startSingleTimer(new Retry(id), new Retry(id), Duration.ofMillis(MAX_PAUSE_MILLIS));
        return;
      }
      p.sentAt = System.nanoTime();
      ActorReply<Object> replyTo = new ActorReply<>(self);
      ref.tell(
          new TaskActor.Query(
              p.key == null
                  ? new QueryMessage.Scan(
                      id, p.state, p.kind, p.types, p.bucket, p.after, p.limit, replyTo)
                  : new QueryMessage.Read(
                      id, p.state, p.kind, p.types, p.bucket, p.keyBytes, replyTo)));
    }

    private void awaitRoutes(long id, String operator) {
      List<Long> waiting = awaitingRoutes.get(operator);
      if (waiting != null) {
        waiting.add(id);
        return;
      }
      waiting = new ArrayList<>();
      waiting.add(id);
      awaitingRoutes.put(operator, waiting);
      routes.remove(operator);
      job.coordinator()
          .tell(
              new JobInput.GetStateRoutes(
                  operator, new ActorReply<>(self.<JobReply.StateRoutes>narrow())));
    }

    private Behavior<Object> onRoutes(JobReply.StateRoutes m) {
      List<Long> waiting = awaitingRoutes.remove(m.operator());
      if (waiting == null) {
        return Behaviors.same();
      }
      if (m.error() != null) {
        waiting.forEach(id -> fail(id, m.error(), null));
        return Behaviors.same();
      }
      Map<Integer, ActorRef<TaskMessage>> tasks = new HashMap<>();
      for (TaskAddress t : m.tasks()) {
        tasks.put(t.task().index(), ((TaskActor.TaskRef) t).ref());
      }
      routes.put(m.operator(), new Routes(m.owners(), tasks));
      bucketsOf.put(m.operator(), m.owners().length);
      for (long id : waiting) {
        Pending<?> p = pending.get(id);
        if (p != null) {
          send(id, p);
        }
      }
      return Behaviors.same();
    }

    private Behavior<Object> onAnswer(QueryMessage.Answer a) {
      Pending<?> p = pending.get(a.id());
      if (p == null) {
        return Behaviors.same(); // answered already (a read sent again), or failed
      }
      if (a instanceof QueryMessage.Found || a instanceof QueryMessage.Page) {
        complete(a.id(), p, a);
      } else if (a instanceof QueryMessage.Refused r) {
        fail(a.id(), r.error(), null);
      } else if (a instanceof QueryMessage.NotHere n) {
        redirects.incrementAndGet();
        p.last = "task " + n.task() + " of '" + p.operator + "' does not process the key's bucket";
        if (n.handedTo() >= 0 && p.hops < 4) {
          p.hops++;
          p.target = n.handedTo();
          send(a.id(), p);
        } else {
          long pause = Math.min(MAX_PAUSE_MILLIS, 1L << Math.min(p.hops, 6));
          p.hops = 0;
          p.target = -1;
          routes.remove(p.operator);
          timers.startSingleTimer(new Retry(a.id()), new Retry(a.id()), Duration.ofMillis(pause));
        }
      }
      return Behaviors.same();
    }

    private <R> void complete(long id, Pending<R> p, QueryMessage.Answer a) {
      R value;
      try {
        value = p.decoder.apply(serde, a);
      } catch (RuntimeException e) {
        fail(
            id,
            "cannot decode state '"
                + p.state
                + "' of "
                + (p.key == null ? "bucket " + p.scanBucket : "key " + p.key)
                + " of '"
                + p.operator
                + "': "
                + e.getMessage(),
            e);
        return;
      }
      pending.remove(id);
      if (a instanceof QueryMessage.Found f) {
        (f.byHolder() ? byHolder : byOwner).incrementAndGet();
      }
      p.result.complete(value);
    }

    private void fail(long id, String error, Throwable cause) {
      Pending<?> p = pending.remove(id);
      if (p != null) {
        p.result.completeExceptionally(new KoalaException(error, cause));
      }
    }

    private Behavior<Object> onTick() {
      if (closed != null) {
        return Behaviors.stopped();
      }
      long now = System.nanoTime();
      for (Map.Entry<Long, Pending<?>> e : pending.entrySet()) {
        Pending<?> p = e.getValue();
        if (now - p.deadline > 0) {
          fail(
              e.getKey(),
              "state query of "
                  + (p.key == null ? "bucket " + p.scanBucket : "key " + p.key)
                  + " at '"
                  + p.operator
                  + "' got no answer within "
                  + DurationText.of(job.askTimeout())
                  + " ("
                  + p.last
                  + ")",
              null);
        } else if (p.sentAt != 0 && now - p.sentAt > RESEND_AFTER_NANOS) {
          resends.incrementAndGet();
          p.target = -1;
          routes.remove(p.operator);
          send(e.getKey(), p);
        }
      }
      return Behaviors.same();
    }
  }
}
