package io.koala.testkit.sim;

import io.koala.coordinator.Change;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The simulated job's clients: they ask for reconfigurations, each at its virtual time and in
 * order, as {@code JobHandle} callers would, and keep how each ended.
 */
final class SimulatedClient {

  /** A reconfiguration asked for at virtual time {@code at}, and how it ended (null: not yet). */
  private static final class Request {
    final long at;
    final Change change;
    JobReply.Outcome outcome;

    Request(long at, Change change) {
      this.at = at;
      this.change = change;
    }
  }

  private final ArrayDeque<Request> pending = new ArrayDeque<>(); // not yet asked for
  private final List<Request> asked = new ArrayList<>();

  /** {@code change} is to be asked for at {@code atMillis}, after those planned before it. */
  void plan(long atMillis, Change change) {
    pending.add(new Request(atMillis, change));
  }

  /** The highest worker a migration planned so far names, or 0. */
  int highestWorker() {
    int w = 0;
    for (Request r : pending) {
      if (r.change instanceof Change.Migrate mg) {
        w = Math.max(w, mg.worker());
      }
    }
    return w;
  }

  /** When the next planned request is due, or {@link Long#MAX_VALUE} when none is planned. */
  long nextDue() {
    Request r = pending.peek();
    return r == null ? Long.MAX_VALUE : r.at;
  }

  boolean anyPending() {
    return !pending.isEmpty();
  }

  int pendingCount() {
    return pending.size();
  }

  /** The next planned request, asked for now: what the job is told. */
  JobInput.Reconfigure askNext() {
    return ask(pending.poll());
  }

  /** {@code change}, asked for now: what the job is told. */
  JobInput.Reconfigure ask(Change change, long now) {
    return ask(new Request(now, change));
  }

  private JobInput.Reconfigure ask(Request r) {
    asked.add(r);
    return new JobInput.Reconfigure(r.change, outcome -> r.outcome = outcome);
  }

  /** How the {@code n}-th request asked for ended, or null if it has not yet. */
  JobReply.Outcome outcome(int n) {
    return n < asked.size() ? asked.get(n).outcome : null;
  }

  int askedCount() {
    return asked.size();
  }

  /** How many requests asked for have ended as {@code which} says. */
  int count(Predicate<JobReply.Outcome> which) {
    return (int) asked.stream().filter(r -> r.outcome != null && which.test(r.outcome)).count();
  }
}
