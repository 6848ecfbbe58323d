package io.koala.coordinator;

import static io.koala.job.ReconfigurationException.Reason.INVALID_REQUEST;
import static io.koala.job.ReconfigurationException.Reason.JOB_ENDING;

import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.plan.OperatorId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The reconfiguration requests (DESIGN §6.1): queued in FIFO order, a queued rescale or rebalance
 * of an operator replaced by a newer one for the same operator (both callers get its report),
 * journaled before they may start so that a restart runs them again, and answered once they
 * complete or are rejected. The requests taken since the latest checkpoint are queued again after a
 * rollback, so a rollback never silently undoes a user's rescale.
 */
final class RequestQueue {

  /** A reconfiguration waiting for its epoch, and who waits for its outcome. */
  static final class Queued {
    Change change;
    final OperatorId vertex;
    int departingFrom = -1; // a migration off this leaving worker the coordinator asked for
    final List<ReplyTo<JobReply.Outcome>> replyTo = new ArrayList<>();
    long seq; // its journal sequence number (0: not journaled, or checkpoints off)
    boolean again; // run again from the journal by a coordinator that did not take it
    boolean durable; // journaled (or checkpoints off): it may start
    final List<Long> superseded = new ArrayList<>(); // journaled requests it replaced

    Queued(Change change, OperatorId vertex) {
      this.change = change;
      this.vertex = vertex;
    }
  }

  /** What the queue asks of and tells the epochs and departures. */
  interface Parts {
    /** The next queued epoch starts, if it may ({@link EpochRunner}). */
    void startNextEpoch();

    /** The workers: lost, leaving, placeable ({@link Departures}). */
    WorkerPool pool();

    /** The requests changed: a departure's migrations are planned again. */
    void replan();

    /** A migration a departure asked for is done. */
    void migrated(Change.Migrate migration);

    /** A migration a departure asked for was rejected. */
    void migrationRejected(
        Change.Migrate migration, int worker, ReconfigurationException.Reason kind, String reason);
  }

  private final JobSetup setup;
  private final Outbox out;
  private final JobState state;
  private final CurrentStatus job;
  private final Parts parts;
  private final ArrayDeque<Queued> queue = new ArrayDeque<>();
  private final List<Queued> taken = new ArrayList<>(); // requests whose epoch started, in order
  private int forgotten; // taken before those in the list: no rollback can run them again
  private final RequestLedger ledger; // the journaled requests; null: checkpoints off
  private boolean requestsRecovered; // the journal told the open requests (sequence numbers)

  RequestQueue(JobSetup setup, Outbox out, JobState state, CurrentStatus job, Parts parts) {
    this.setup = setup;
    this.out = out;
    this.state = state;
    this.job = job;
    this.parts = parts;
    this.ledger = setup.checkpointing() == null ? null : new RequestLedger(0);
  }

  /** An input about the reconfiguration requests. */
  void on(JobInput.Requests input) {
    if (input instanceof JobInput.Reconfigure m) {
      onReconfigure(m);
    } else if (input instanceof JobInput.RequestJournaled m) {
      onJournaled(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  int size() {
    return queue.size();
  }

  /** Requests taken so far (a checkpoint keeps the count: those taken since run again). */
  int takenCount() {
    return forgotten + taken.size();
  }

  /**
   * The first {@code count} requests taken can never run again: the oldest checkpoint a rollback
   * can go back to had taken them. They are forgotten, so that the list does not grow for the job's
   * whole life.
   */
  void forgetTakenBefore(int count) {
    int drop = Math.min(count - forgotten, taken.size());
    if (drop > 0) {
      taken.subList(0, drop).clear();
      forgotten += drop;
    }
  }

  void onReconfigure(JobInput.Reconfigure m) {
    if (job.ended()) {
      out.reply(
          m.replyTo(),
          new JobReply.Rejected(JOB_ENDING, "job " + out.jobId() + " is " + job.status()));
      return;
    }
    OperatorId vertex;
    try {
      vertex = check(m.change());
    } catch (IllegalArgumentException e) {
      out.reply(m.replyTo(), new JobReply.Rejected(INVALID_REQUEST, e.getMessage()));
      return;
    }
    if (m.change().coalesces()) {
      for (Queued q : queue) {
        if (q.vertex.equals(vertex) && q.change.coalesces()) {
          out.log().info("job {}: queued {} replaced by {}", out.jobId(), q.change, m.change());
          q.change = m.change(); // coalesced: the latest target wins, both callers get its report
          q.replyTo.add(m.replyTo());
          journal(q); // under a new number: the one it replaces is done once it is durable
          return;
        }
      }
    }
    Queued q = new Queued(m.change(), vertex);
    q.replyTo.add(m.replyTo());
    add(q);
    parts.startNextEpoch();
  }

  /** Queues the migration of {@code migration}'s task off leaving worker {@code from}. */
  void addMigration(Change.Migrate migration, int from) {
    Queued q = new Queued(migration, check(migration));
    q.departingFrom = from;
    add(q);
  }

  /** Queues {@code q} (a user's request, or a migration a departure asked for) and journals it. */
  private void add(Queued q) {
    queue.add(q);
    journal(q);
  }

  /**
   * Journals queued request {@code q} before it may start (DESIGN §6.1), so that a restart runs it
   * again; {@link JobInput.RequestJournaled} follows. Without checkpoints it may start at once.
   */
  private void journal(Queued q) {
    if (ledger == null) {
      q.durable = true;
      return;
    }
    if (!requestsRecovered) {
      return; // numbered and journaled once the journal has recovered
    }
    if (q.seq > 0) {
      q.superseded.add(q.seq);
    }
    long seq = ledger.accept();
    q.seq = seq;
    q.durable = false;
    out.emit(new JobEffect.JournalRequest(seq, new JobInput.JournaledRequest(q.change, q.replyTo)));
  }

  void onJournaled(JobInput.RequestJournaled m) {
    Queued q = null;
    for (Queued c : queue) {
      if (c.seq == m.seq()) {
        q = c;
      }
    }
    if (q == null) {
      return; // replaced by a later request, or rejected as the job ended
    }
    if (m.error() != null) {
      queue.remove(q);
      out.log()
          .error(
              "job {}: the journal cannot record request {}: {}", out.jobId(), m.seq(), m.error());
      reject(
          q,
          JOB_ENDING,
          "the journal of job " + out.jobId() + " cannot record the request: " + m.error());
      endedNow(q); // in case the write reached the store after all
      return;
    }
    q.durable = true;
    for (long old : q.superseded) {
      markDone(ledger.ended(old));
    }
    q.superseded.clear();
    refuseUnplaceable();
    parts.startNextEpoch();
  }

  /**
   * The requests the journal still has open (accepted after the restored checkpoint, or not yet
   * covered by one) run again, in order, before any taken since. Their callers get the outcome
   * where they still run (a client on another node when a coordinator fails over; a caller in a
   * process that restarted is gone, and the reply goes nowhere); the outcome is also logged.
   * Requests that arrived while the journal recovered are journaled now.
   */
  void recovered(JobInput.RecoveredJournal state) {
    List<Long> open = state.requests().stream().map(JobInput.Decoded::id).toList();
    ledger.recovered(state.lastRequestSeq(), open);
    requestsRecovered = true;
    List<Queued> again = new ArrayList<>();
    for (JobInput.Decoded<JobInput.JournaledRequest> r : state.requests()) {
      if (setup.restoreFrom() != null) {
        out.log()
            .warn(
                "job {}: journaled request {} is not run again: restoring from {}",
                out.jobId(),
                r.id(),
                setup.restoreFrom());
        markDone(ledger.ended(r.id()));
        tell(r, INVALID_REQUEST, "not run again: the job starts from " + setup.restoreFrom());
        continue;
      }
      if (r.error() != null) {
        out.log()
            .warn(
                "job {}: journaled request {} cannot run again: {}",
                out.jobId(),
                r.id(),
                r.error());
        markDone(ledger.ended(r.id()));
        tell(r, INVALID_REQUEST, "cannot run again after a restart: " + r.error());
        continue;
      }
      try {
        Change change = r.value().change();
        Queued q = new Queued(change, check(change));
        q.seq = r.id();
        q.durable = true;
        q.again = true;
        q.replyTo.addAll(r.value().replyTo());
        again.add(q);
        out.log()
            .warn(
                "job {}: journaled request {} runs again: {} ({} waiting for its outcome)",
                out.jobId(),
                r.id(),
                change,
                q.replyTo.size());
      } catch (RuntimeException e) {
        out.log()
            .warn(
                "job {}: journaled request {} cannot run again: {}",
                out.jobId(),
                r.id(),
                e.toString());
        markDone(ledger.ended(r.id()));
        tell(r, INVALID_REQUEST, "cannot run again after a restart: " + e.getMessage());
      }
    }
    for (Queued q : queue) {
      journal(q); // arrived while the journal recovered
    }
    for (int i = again.size() - 1; i >= 0; i--) {
      queue.addFirst(again.get(i));
    }
  }

  /** The callers of journaled request {@code r}, which will not run, get {@code reason}. */
  private void tell(
      JobInput.Decoded<JobInput.JournaledRequest> r,
      ReconfigurationException.Reason kind,
      String reason) {
    if (r.value() != null) {
      for (ReplyTo<JobReply.Outcome> to : r.value().replyTo()) {
        out.reply(to, new JobReply.Rejected(kind, reason));
      }
    }
  }

  /** The next request, if it may start now (durable), else null. */
  Queued peekDurable() {
    Queued q = queue.peek();
    return q != null && q.durable ? q : null;
  }

  /** Takes the head of the queue (after {@link #peekDurable}). */
  Queued poll() {
    return queue.poll();
  }

  /** {@code q}'s epoch starts: it is run again if the job rolls back to before now. */
  void taken(Queued q) {
    taken.add(q);
  }

  /** Marks the journaled requests {@code seqs} done: a restart does not run them again. */
  void markDone(List<Long> seqs) {
    for (long seq : seqs) {
      out.emit(new JobEffect.JournalRequestDone(seq));
    }
  }

  /**
   * Refuses at once the durable queued requests that no longer pass {@link #check} (a {@code
   * migrate} to a worker lost since it was accepted), rather than when their turn comes: epochs may
   * be held for long (recovery, checkpoints).
   */
  void refuseUnplaceable() {
    for (Iterator<Queued> it = queue.iterator(); it.hasNext(); ) {
      Queued q = it.next();
      if (!q.durable) {
        continue; // checked once journaled
      }
      try {
        check(q.change);
      } catch (IllegalArgumentException e) {
        it.remove();
        reject(q, INVALID_REQUEST, e.getMessage());
        endedNow(q);
      }
    }
    parts.replan();
  }

  /** Checks what does not depend on the deployment at the time the epoch starts. */
  OperatorId check(Change c) {
    return Change.check(c, setup.plan(), state.deployment(), parts.pool());
  }

  /** {@code q} is done: its callers get {@code report}. */
  void complete(Queued q, ReconfigurationReport report) {
    if (q.departingFrom >= 0) {
      parts.migrated((Change.Migrate) q.change);
    } else if (q.again) {
      out.log().info("job {}: journaled request {} ran again: {}", out.jobId(), q.seq, report);
    }
    for (ReplyTo<JobReply.Outcome> r : q.replyTo) {
      out.reply(r, new JobReply.Completed(report));
    }
  }

  /** {@code q}'s epoch completed: its request is done once a checkpoint covers that. */
  void completed(Queued q) {
    if (ledger != null) {
      ledger.completed(q.seq);
    }
  }

  /** {@code q} ended without changing the job: a restart does not run it again. */
  void endedNow(Queued q) {
    if (ledger != null) {
      q.superseded.forEach(old -> markDone(ledger.ended(old)));
      q.superseded.clear();
      markDone(ledger.ended(q.seq));
    }
  }

  /**
   * {@code q}'s epoch made no progress for the step timeout, and the job fails or rolls back: its
   * callers get {@code reason} now, and a rollback does not run it again (a stall that waits for
   * what will not come — event time on a quiet input — would stall again, until the job ran out of
   * restarts). A migration off a leaving worker is left to the departure's own handling.
   *
   * @return whether {@code q} was answered
   */
  boolean stalled(Queued q, String reason) {
    if (q.departingFrom >= 0) {
      return false;
    }
    taken.remove(q);
    reject(q, ReconfigurationException.Reason.STALLED, reason);
    endedNow(q);
    return true;
  }

  /** The job is ending: {@code q} will not be carried out. */
  void reject(Queued q, String reason) {
    reject(q, JOB_ENDING, reason);
  }

  void reject(Queued q, ReconfigurationException.Reason kind, String reason) {
    if (q.departingFrom >= 0) {
      parts.migrationRejected((Change.Migrate) q.change, q.departingFrom, kind, reason);
    } else if (q.again) {
      out.log().warn("job {}: journaled request {} was rejected: {}", out.jobId(), q.seq, reason);
    }
    for (ReplyTo<JobReply.Outcome> r : q.replyTo) {
      out.reply(r, new JobReply.Rejected(kind, reason));
    }
  }

  void rejectQueued(String reason) {
    for (Queued q : queue) {
      reject(q, reason);
    }
    queue.clear();
  }

  /** A checkpoint was triggered: the requests completed so far are done once it commits. */
  void checkpointTriggered(long id) {
    if (ledger != null) {
      ledger.triggered(id);
    }
  }

  /** Checkpoint {@code id} committed: a restart resumes after the completions it covers. */
  void checkpointCommitted(long id) {
    if (ledger != null) {
      markDone(ledger.committed(id));
    }
  }

  /** The job finished: a later job with this id does not run what is open. */
  void jobFinished() {
    if (ledger != null) {
      markDone(ledger.finished());
    }
  }

  /** A rollback: the requests taken since the latest checkpoint run again. */
  void rolledBack() {
    if (ledger != null) {
      ledger.rolledBack();
    }
  }

  /**
   * The redeployment after a rollback: the requests taken after the first {@code keep} (those the
   * restored checkpoint had taken) are queued again, in order, before those still queued.
   */
  void requeueTakenAfter(int keep) {
    // fewer: a stalled request left the list
    int from = Math.max(0, Math.min(keep - forgotten, taken.size()));
    List<Queued> redo = new ArrayList<>(taken.subList(from, taken.size()));
    taken.subList(from, taken.size()).clear();
    for (int i = redo.size() - 1; i >= 0; i--) {
      queue.addFirst(redo.get(i));
    }
  }
}
