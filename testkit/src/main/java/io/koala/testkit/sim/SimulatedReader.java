package io.koala.testkit.sim;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.QueryMessage;
import io.koala.routing.Buckets;
import io.koala.serialization.Codecs;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.state.Codec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A service reading a value state of a keyed operator while the simulated job runs and moves, as
 * {@code JobHandle.query} does: each read goes to the task the job's routing table names for the
 * key's bucket, follows a task's "not here" to the task it handed the bucket to (else asks the
 * routing table again), and is sent again when no answer comes within {@link #RESEND_MILLIS} (what
 * was in flight to a task of a rolled-back attempt is lost). The state read must only grow (a
 * count, a sum): an answer below the value the key had when the read was made — "no state" below
 * any — breaks the guarantee that a key's reads never go backwards, and fails the run.
 */
final class SimulatedReader {
  static final String READER = "reader";
  private static final long RESEND_MILLIS = 1_000;
  private static final QueryMessage.Types TYPES =
      new QueryMessage.Types(null, Long.class.getName(), null);

  /** A read in flight. */
  private static final class Read {
    final Object key;
    final byte[] keyBytes;
    final int bucket;
    final Long floor; // the least the read may answer: what the key had when it was made, or null
    final int attempt; // the job's attempt when it was made: a rollback may lower the value
    long sentAt;
    int hops;

    Read(Object key, byte[] keyBytes, int bucket, Long floor, int attempt) {
      this.key = key;
      this.keyBytes = keyBytes;
      this.bucket = bucket;
      this.floor = floor;
      this.attempt = attempt;
    }
  }

  private final Simulation sim;
  private final SimulatedState keyedState;
  private final Random random; // its own: reads leave the simulation's interleavings as they were
  private final OperatorId operator;
  private final String state;
  private final List<?> keys;
  private final long everyMillis;
  private final KeyEncoder encoder;
  private final Codec<Long> values;
  private final Map<Long, Read> inFlight = new LinkedHashMap<>();
  private final Map<Object, Long> answered = new HashMap<>(); // per key: the highest answer
  private int answeredAttempt;
  private long nextRead;
  private long ids;
  long reads;
  long byHolder;

  SimulatedReader(
      Simulation sim,
      SimulatedState keyedState,
      Random random,
      KryoSerde serde,
      String operator,
      String state,
      List<?> keys,
      long everyMillis) {
    this.sim = sim;
    this.keyedState = keyedState;
    this.random = random;
    this.operator = new OperatorId(operator);
    this.state = state;
    this.keys = List.copyOf(keys);
    this.everyMillis = everyMillis;
    this.encoder = new KeyEncoder(serde);
    this.values = Codecs.forClass(Long.class, serde);
  }

  /** When the reader next has something to do: a new read, or one to send again. */
  long nextDue(boolean jobRunning) {
    long next = jobRunning ? nextRead : Long.MAX_VALUE;
    for (Read r : inFlight.values()) {
      next = Math.min(next, r.sentAt + RESEND_MILLIS);
    }
    return next;
  }

  /** Makes a new read if one is due, and sends again the reads that got no answer. */
  void act(long now, boolean jobRunning, int attempt) {
    if (jobRunning && now >= nextRead) {
      nextRead = now + everyMillis;
      Object key = nextKey();
      byte[] keyBytes = encoder.encode(key);
      int bucket = Buckets.bucketOf(keyBytes, sim.plan().logical().buckets());
      if (attempt != answeredAttempt) {
        answered.clear(); // a rollback took the state back to a checkpoint
        answeredAttempt = attempt;
      }
      // a read made now sees at least what the key has now, and what reads of it answered
      Long floor =
          max(keyedState.valueIfOwned(operator, key, state, Long.class), answered.get(key));
      Read r = new Read(key, keyBytes, bucket, floor, attempt);
      long id = ++ids;
      inFlight.put(id, r);
      send(id, r, -1, now);
    }
    for (Map.Entry<Long, Read> e : inFlight.entrySet()) {
      Read r = e.getValue();
      if (now - r.sentAt >= RESEND_MILLIS) {
        send(e.getKey(), r, -1, now);
      }
    }
  }

  /**
   * A random key; every other read, one whose state a reconfiguration left at a holder, if there is
   * one: those reads take the path through the holder that races with the key's move.
   */
  private Object nextKey() {
    if (random.nextBoolean()) {
      List<Object> atHolders = new ArrayList<>();
      for (Object k : keys) {
        if (keyedState.atHolder(operator, k)) {
          atHolders.add(k);
        }
      }
      if (!atHolders.isEmpty()) {
        return atHolders.get(random.nextInt(atHolders.size()));
      }
    }
    return keys.get(random.nextInt(keys.size()));
  }

  private void send(long id, Read r, int target, long now) {
    int task = target >= 0 ? target : sim.deployment().routing(operator).owner(r.bucket);
    r.sentAt = now;
    sim.send(
        READER,
        new TaskId(operator, task),
        new QueryMessage.Read(
            id, state, QueryMessage.Kind.VALUE, TYPES, r.bucket, r.keyBytes, READER));
  }

  /** An answer arrived. */
  void onAnswer(QueryMessage.Answer a, long now, int attempt) {
    Read r = inFlight.get(a.id());
    if (r == null) {
      return; // answered already: this one was sent again
    }
    if (a instanceof QueryMessage.NotHere n) {
      boolean redirect = n.handedTo() >= 0 && r.hops < 4;
      r.hops = redirect ? r.hops + 1 : 0;
      send(a.id(), r, redirect ? n.handedTo() : -1, now);
      return;
    }
    inFlight.remove(a.id());
    if (a instanceof QueryMessage.Refused refused) {
      sim.readFailed("a read of key " + r.key + " was refused: " + refused.error());
      return;
    }
    QueryMessage.Found f = (QueryMessage.Found) a;
    reads++;
    if (f.byHolder()) {
      byHolder++;
    }
    Long got = f.values().isEmpty() ? null : values.decode(f.values().get(0));
    if (r.attempt != attempt) {
      return; // made before a rollback: the state it saw may have been undone since
    }
    Long floor = r.floor;
    if (floor != null && (got == null || got < floor)) {
      sim.readFailed(
          "a read of state '"
              + state
              + "' of key "
              + r.key
              + " at '"
              + operator
              + "' answered "
              + (got == null ? "no state" : got)
              + ", but the key had "
              + floor
              + " when the read was made (served by task "
              + f.servedBy()
              + (f.byHolder() ? " as the holder its owner named)" : ", its owner)"));
      return;
    }
    if (got != null) {
      answered.merge(r.key, got, Math::max);
    }
  }

  private static Long max(Long a, Long b) {
    return a == null ? b : b == null ? a : Long.valueOf(Math.max(a, b));
  }
}
