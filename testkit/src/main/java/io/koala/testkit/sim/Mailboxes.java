package io.koala.testkit.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The simulated network: one FIFO queue per ordered pair of endpoints (a task, a task's state
 * server, or a role of the simulation), each message arriving after a seeded random delay of 0 to
 * {@code maxLatency} ms of virtual time but never before the one sent before it on its pair.
 */
final class Mailboxes {

  /** An ordered pair of endpoints. */
  record Pair(Object from, Object to) {}

  private final Random random;
  private final Map<Pair, ArrayDeque<Object>> queues = new LinkedHashMap<>();
  private final Map<Pair, ArrayDeque<Long>> arrivals = new HashMap<>(); // per queued message
  private final List<Pair> busy = new ArrayList<>();
  private final Map<Object, Long> stalled = new HashMap<>(); // endpoint → takes nothing before
  private int maxLatency;

  Mailboxes(Random random) {
    this.random = random;
  }

  void maxLatency(int millis) {
    this.maxLatency = millis;
  }

  /** The queue of {@code pair}, for planting a bug in what it holds. */
  ArrayDeque<Object> queue(Pair pair) {
    return queues.computeIfAbsent(pair, k -> new ArrayDeque<>());
  }

  /**
   * Endpoint {@code endpoint} takes no message before {@code untilMillis}, as a task stuck in a
   * blocking call: what is sent to it meanwhile arrives then, in order.
   */
  void stall(Object endpoint, long untilMillis) {
    stalled.merge(endpoint, untilMillis, Math::max);
  }

  /** Sends {@code message} on {@code pair} at {@code now}. */
  void send(Pair pair, Object message, long now) {
    ArrayDeque<Object> q = queue(pair);
    if (q.isEmpty()) {
      busy.add(pair);
    }
    q.add(message);
    ArrayDeque<Long> times = arrivals.computeIfAbsent(pair, k -> new ArrayDeque<>());
    long at = maxLatency == 0 ? now : now + random.nextInt(maxLatency + 1);
    at = Math.max(at, stalled.getOrDefault(pair.to(), at));
    times.add(times.isEmpty() ? at : Math.max(at, times.peekLast())); // per-pair FIFO
  }

  /**
   * Adds to {@code due} the pairs whose next message has arrived by {@code now}; returns when the
   * next of the others arrives ({@link Long#MAX_VALUE}: none).
   */
  long due(long now, List<Pair> due) {
    long next = Long.MAX_VALUE;
    for (Pair p : busy) {
      long at = arrivals.get(p).peek();
      if (at <= now) {
        due.add(p);
      } else {
        next = Math.min(next, at);
      }
    }
    return next;
  }

  /** Takes the next message of {@code pair}. */
  Object take(Pair pair) {
    ArrayDeque<Object> q = queues.get(pair);
    Object m = q.poll();
    arrivals.get(pair).poll();
    if (q.isEmpty()) {
      busy.remove(pair);
    }
    return m;
  }

  /** Whether no message is in flight. */
  boolean idle() {
    return busy.isEmpty();
  }

  /**
   * Drops what is in flight on the pairs {@code which} selects, after showing it to {@code lost}.
   */
  void drop(Predicate<Pair> which, Consumer<Object> lost) {
    for (Pair p : List.copyOf(queues.keySet())) {
      if (which.test(p)) {
        queues.remove(p).forEach(lost);
        arrivals.remove(p);
        busy.remove(p);
      }
    }
  }

  /** Shows every message in flight to {@code visitor}. */
  void forEach(Consumer<Object> visitor) {
    queues.values().forEach(q -> q.forEach(visitor));
  }
}
