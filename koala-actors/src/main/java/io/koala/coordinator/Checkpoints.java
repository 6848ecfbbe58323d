package io.koala.coordinator;

import io.koala.plan.TaskId;
import io.koala.protocol.CheckpointMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The coordinator's side of checkpoints (DESIGN §8), pure: when to trigger one, which snapshots it
 * waits for, when it is complete, which checkpoints are retained, and when a retired holder may
 * stop. The host carries out the returned effects and reports what happens.
 *
 * <pre>
 *   idle --trigger--> PENDING --every snapshot and client barrier--> {@link Persist}
 *        &lt;------ persisted: {@link CheckpointMessage.CheckpointCommitted} to every task ---+
 *        &lt;------ abandon: {@link CheckpointMessage.AbortCheckpoint} (PENDING only) ------+
 * </pre>
 *
 * <p>A checkpoint covers every running task (through the barrier the sources emit: each reports its
 * snapshot, and its barrier on the channel to the client cuts its output there) and every task no
 * barrier reaches — retired holders, and tasks that have finished — which are asked directly,
 * report once all their output has been delivered, and change only by releases afterwards, so a
 * first snapshot serves every later checkpoint while retained (C3). That snapshot also cuts the
 * output a retired task sent since its last barrier: a holder no owner references any more is left
 * out only once a retained checkpoint has it, never before (its state is no longer needed, but its
 * output would otherwise be covered by no checkpoint, and a rollback would lose it). The host
 * persists a complete checkpoint before anything is told (C4), then {@link #persisted} commits it:
 * tasks may release copies installed before the barrier of the oldest retained checkpoint, which is
 * what a rollback — or a fallback from a corrupt newest checkpoint — may restore. A retired holder
 * stops only when no retained or pending checkpoint includes it.
 *
 * @param <H> the host's handle of one task's snapshot (a file, or an in-memory image)
 * @param <C> the host's own state at the trigger (its deployment), restored with the checkpoint
 */
public final class Checkpoints<H, C> {

  /**
   * @param intervalMillis time from one trigger to the next
   * @param retained completed checkpoints kept (at least 1; 2 lets a corrupt newest fall back)
   */
  public record Settings(long intervalMillis, int retained) {
    public Settings {
      if (intervalMillis < 1) {
        throw new IllegalArgumentException(
            "checkpoint interval must be at least 1 ms, got " + intervalMillis);
      }
      if (retained < 1) {
        throw new IllegalArgumentException(
            "retained checkpoints must be at least 1, got " + retained);
      }
    }
  }

  /** An effect for the host. */
  public sealed interface Effect {}

  /** Send {@code command} to {@code task}. */
  public record Send(TaskId task, CheckpointMessage.Command command) implements Effect {}

  /** Durably record {@code checkpoint}, then call {@link #persisted}. */
  public record Persist<H, C>(Completed<H, C> checkpoint) implements Effect {}

  /** Delete these snapshots: no retained checkpoint refers to them any more. */
  public record Discard<H>(long checkpointId, List<H> snapshots) implements Effect {}

  /**
   * Move these snapshots aside, never to be restored and never deleted: checkpoint {@code
   * checkpointId} is corrupt, and no retained checkpoint refers to them.
   */
  public record Quarantine<H>(long checkpointId, List<H> snapshots) implements Effect {}

  /** Stop retired holder {@code task}: no owner and no restorable checkpoint needs it. */
  public record StopHolder(TaskId task) implements Effect {}

  /**
   * A complete checkpoint.
   *
   * @param snapshots every task's snapshot, holders' included
   * @param holders the retired holders among them
   * @param state the host's state at the trigger
   */
  public record Completed<H, C>(
      long id, long triggeredMillis, Map<TaskId, H> snapshots, Set<TaskId> holders, C state) {
    public Completed {
      snapshots = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(snapshots));
      holders = Set.copyOf(holders);
    }
  }

  private static final class Pending<H, C> {
    final long id;
    final long triggeredMillis;
    final C state;
    final Set<TaskId> live;
    final Set<TaskId> holders;
    final Map<TaskId, H> snapshots = new LinkedHashMap<>();
    final Set<TaskId> cut = new LinkedHashSet<>();

    Pending(long id, long triggeredMillis, C state, Set<TaskId> live, Set<TaskId> holders) {
      this.id = id;
      this.triggeredMillis = triggeredMillis;
      this.state = state;
      this.live = live;
      this.holders = holders;
    }

    boolean complete() {
      return snapshots.size() == live.size() + holders.size() && cut.containsAll(live);
    }

    boolean includes(TaskId t) {
      return live.contains(t) || holders.contains(t);
    }
  }

  private final Settings settings;
  private long nextId = 1;
  private long nextDueMillis;
  private Pending<H, C> pending;
  private Completed<H, C> persisting;
  private final ArrayDeque<Completed<H, C>> retained = new ArrayDeque<>(); // oldest first
  private final Set<TaskId> stopWhenFree = new LinkedHashSet<>();
  // holders whose output since their last barrier no committed checkpoint has cut yet
  private final Set<TaskId> outputUncut = new HashSet<>();

  /**
   * @param startMillis the job's start: the first checkpoint is due an interval later
   */
  public Checkpoints(Settings settings, long startMillis) {
    this.settings = settings;
    this.nextDueMillis = startMillis + settings.intervalMillis();
  }

  public Settings settings() {
    return settings;
  }

  /**
   * Whether a checkpoint is due at {@code nowMillis}; the host triggers it only when no epoch of a
   * reconfiguration runs and no source has read all its input.
   */
  public boolean due(long nowMillis) {
    return !inProgress() && nowMillis >= nextDueMillis;
  }

  /** When the next checkpoint is due. */
  public long nextDueMillis() {
    return nextDueMillis;
  }

  /** Whether a checkpoint has been triggered and is not yet committed (no epoch may start). */
  public boolean inProgress() {
    return pending != null || persisting != null;
  }

  /**
   * Triggers the next checkpoint: the barrier starts at {@code sources}; every task of {@code live}
   * (sources included) must report its snapshot and cut its output with the barrier; each of {@code
   * holders} (every retired task not stopped, and every finished one) reuses its snapshot in the
   * newest retained checkpoint or is asked for one, except a holder no owner references any more
   * ({@link #holderUnreferenced}) whose snapshot a retained checkpoint has: it is left out.
   */
  public List<Effect> trigger(
      long nowMillis,
      C state,
      Collection<TaskId> sources,
      Collection<TaskId> live,
      Collection<TaskId> holders) {
    return trigger(nowMillis, state, sources, live, holders, false);
  }

  /**
   * {@link #trigger(long, Object, Collection, Collection, Collection)}; with {@code stopSources}
   * (the job stops with this checkpoint) the sources read nothing after its barrier.
   */
  public List<Effect> trigger(
      long nowMillis,
      C state,
      Collection<TaskId> sources,
      Collection<TaskId> live,
      Collection<TaskId> holders,
      boolean stopSources) {
    if (inProgress()) {
      throw new IllegalStateException("checkpoint " + pendingId() + " is still in progress");
    }
    long id = nextId++;
    nextDueMillis = nowMillis + settings.intervalMillis();
    Set<TaskId> included = new LinkedHashSet<>();
    for (TaskId h : holders) {
      if (!stopWhenFree.contains(h) || !retainedAsHolder(h)) {
        included.add(h); // the snapshot of a retired task cuts its output (C3): at least once
      }
    }
    pending = new Pending<>(id, nowMillis, state, new LinkedHashSet<>(live), included);
    List<Effect> out = new ArrayList<>();
    Completed<H, C> newest = retained.peekLast();
    for (TaskId h : included) {
      if (newest != null && newest.holders().contains(h)) {
        pending.snapshots.put(h, newest.snapshots().get(h));
      } else {
        out.add(new Send(h, new CheckpointMessage.SnapshotHolder(id)));
      }
    }
    for (TaskId s : sources) {
      out.add(new Send(s, new CheckpointMessage.TriggerCheckpoint(id, stopSources)));
    }
    out.addAll(checkComplete());
    return out;
  }

  /**
   * Whether a retained checkpoint has {@code task}'s snapshot as a holder's (its output is cut).
   */
  public boolean retainedAsHolder(TaskId task) {
    for (Completed<H, C> r : retained) {
      if (r.holders().contains(task)) {
        return true;
      }
    }
    return false;
  }

  /** The id of the checkpoint in progress, or -1. */
  public long pendingId() {
    return pending != null ? pending.id : persisting != null ? persisting.id() : -1;
  }

  /**
   * The snapshots the checkpoint in progress has (holders' reused ones included; all of them once
   * it is complete and being persisted), or 0.
   */
  public int snapshotsTaken() {
    if (pending != null) {
      return pending.snapshots.size();
    }
    return persisting != null ? persisting.snapshots().size() : 0;
  }

  /** Task {@code task} wrote its snapshot of checkpoint {@code id}. */
  public List<Effect> snapshotTaken(TaskId task, long id, H snapshot) {
    if (pending == null || pending.id != id || !pending.includes(task)) {
      return List.of(); // of an abandoned checkpoint (the caller deletes it)
    }
    pending.snapshots.put(task, snapshot);
    return checkComplete();
  }

  /**
   * Whether {@code task}'s snapshot of checkpoint {@code id} also cuts its output: it is a task no
   * barrier reaches, which reports only once all its output has been delivered.
   */
  public boolean cutsAtSnapshot(TaskId task, long id) {
    return pending != null && pending.id == id && pending.holders.contains(task);
  }

  /**
   * Task {@code task} finished (every input ended). If the checkpoint in progress waits for its
   * barrier, none will come: it is asked for its snapshot directly.
   */
  public List<Effect> taskFinished(TaskId task) {
    if (pending == null || !pending.live.contains(task) || pending.snapshots.containsKey(task)) {
      return List.of();
    }
    pending.live.remove(task);
    pending.holders.add(task);
    return List.of(new Send(task, new CheckpointMessage.SnapshotHolder(pending.id)));
  }

  /** Task {@code task}'s barrier {@code id} reached the client channel: its output is cut. */
  public List<Effect> clientBarrier(TaskId task, long id) {
    if (pending == null || pending.id != id) {
      return List.of();
    }
    pending.cut.add(task);
    return checkComplete();
  }

  private List<Effect> checkComplete() {
    if (!pending.complete()) {
      return List.of();
    }
    persisting =
        new Completed<>(
            pending.id, pending.triggeredMillis, pending.snapshots, pending.holders, pending.state);
    pending = null;
    return List.of(new Persist<>(persisting));
  }

  /**
   * Checkpoint {@code id} is durably recorded: it is retained (the oldest beyond the limit is
   * discarded), and every task it covers is told.
   */
  public List<Effect> persisted(long id) {
    if (persisting == null || persisting.id() != id) {
      return List.of();
    }
    Completed<H, C> done = persisting;
    persisting = null;
    retained.addLast(done);
    List<Effect> out = new ArrayList<>();
    while (retained.size() > settings.retained()) {
      out.add(discard(retained.pollFirst()));
    }
    outputUncut.removeAll(done.holders()); // their snapshots in it cut their output
    long oldest = retained.peekFirst().id();
    for (TaskId t : done.snapshots().keySet()) {
      out.add(new Send(t, new CheckpointMessage.CheckpointCommitted(id, oldest)));
    }
    out.addAll(stopFreeHolders());
    return out;
  }

  /** The snapshots of {@code c} that no retained checkpoint shares. */
  private Discard<H> discard(Completed<H, C> c) {
    List<H> unshared = new ArrayList<>();
    for (H h : c.snapshots().values()) {
      boolean shared = false;
      for (Completed<H, C> r : retained) {
        shared |= r.snapshots().containsValue(h);
      }
      if (!shared) {
        unshared.add(h);
      }
    }
    return new Discard<>(c.id(), unshared);
  }

  /**
   * No owner references retired holder {@code task} any more, and it sent no output since its last
   * cut: it stops once no retained or pending checkpoint includes it.
   */
  public List<Effect> holderUnreferenced(TaskId task) {
    return holderUnreferenced(task, false);
  }

  /**
   * No owner references retired holder {@code task} any more: it stops once no retained or pending
   * checkpoint includes it and, if it sent output since its last cut ({@code outputUncut}), once a
   * committed checkpoint has it as a holder (its snapshot cuts that output; a rollback to a later
   * checkpoint would lose it otherwise).
   */
  public List<Effect> holderUnreferenced(TaskId task, boolean outputUncut) {
    if (outputUncut) {
      this.outputUncut.add(task);
    }
    stopWhenFree.add(task);
    return stopFreeHolders();
  }

  private List<Effect> stopFreeHolders() {
    List<Effect> out = new ArrayList<>();
    for (var it = stopWhenFree.iterator(); it.hasNext(); ) {
      TaskId t = it.next();
      // until a committed checkpoint has cut its output, a rollback would lose that output
      boolean needed = outputUncut.contains(t);
      needed |= pending != null && pending.includes(t);
      needed |= persisting != null && persisting.snapshots().containsKey(t);
      for (Completed<H, C> r : retained) {
        needed |= r.snapshots().containsKey(t);
      }
      if (!needed) {
        it.remove();
        out.add(new StopHolder(t));
      }
    }
    return out;
  }

  /**
   * Resumes from a journal after the coordinator restarted (a new process): {@code completed} are
   * the checkpoints it recorded (ascending ids, the newest last), and the next checkpoint is
   * numbered above {@code lastId} (the highest id ever recorded, retained or not). Only before the
   * first trigger.
   */
  public void recovered(List<Completed<H, C>> completed, long lastId) {
    if (nextId != 1 || inProgress() || !retained.isEmpty()) {
      throw new IllegalStateException("recovered after checkpoints were taken");
    }
    long previous = 0;
    for (Completed<H, C> c : completed) {
      if (c.id() <= previous || c.id() > lastId) {
        throw new IllegalArgumentException(
            "recovered checkpoints must ascend up to "
                + lastId
                + ": "
                + c.id()
                + " after "
                + previous);
      }
      previous = c.id();
      retained.addLast(c);
    }
    while (retained.size() > settings.retained()) {
      retained.pollFirst(); // the journal retains what it was told; the files are its business
    }
    nextId = lastId + 1;
  }

  /** The retained checkpoints, oldest first. */
  public List<Completed<H, C>> retained() {
    return List.copyOf(retained);
  }

  /** The newest retained checkpoint: what a rollback restores. */
  public Optional<Completed<H, C>> latest() {
    return Optional.ofNullable(retained.peekLast());
  }

  /**
   * Checkpoint {@code id} is corrupt (a snapshot's checksum or format is wrong): it is dropped, so
   * that {@link #latest} falls back to the one before, and its own snapshots are quarantined.
   */
  public List<Effect> unusable(long id) {
    for (var it = retained.iterator(); it.hasNext(); ) {
      Completed<H, C> c = it.next();
      if (c.id() == id) {
        it.remove();
        Discard<H> unshared = discard(c);
        return List.of(new Quarantine<>(id, unshared.snapshots()));
      }
    }
    return List.of();
  }

  /**
   * The job rolled back to {@link #latest} (or to its start) at {@code nowMillis}: a checkpoint in
   * progress is abandoned (its snapshots are returned for deletion) and the next is due an interval
   * later. Holders that were to stop when free are forgotten: the restored deployment decides again
   * which holders are referenced.
   */
  public List<Effect> rolledBack(long nowMillis) {
    List<Effect> out = new ArrayList<>();
    if (pending != null) {
      Completed<H, C> abandoned =
          new Completed<>(pending.id, pending.triggeredMillis, pending.snapshots, Set.of(), null);
      pending = null;
      out.add(discard(abandoned));
    }
    if (persisting != null) {
      Completed<H, C> abandoned = persisting;
      persisting = null;
      out.add(discard(abandoned));
    }
    stopWhenFree.clear();
    outputUncut.clear();
    nextDueMillis = nowMillis + settings.intervalMillis();
    return out;
  }

  /**
   * Whether the checkpoint in progress may be abandoned while the job goes on: it was triggered and
   * is not complete. One being recorded is not: its record may be written.
   */
  public boolean abandonable() {
    return pending != null;
  }

  /**
   * Abandons the checkpoint in progress at {@code nowMillis} while the job goes on (it did not
   * complete in time): every task its barrier reaches is told to drop its barriers (a holder has
   * none: a snapshot it sends later is of no checkpoint, and the next asks again), the snapshots it
   * has that no retained checkpoint shares are returned for deletion, holders that waited only for
   * it stop, and the next is due an interval later. What it would have covered, the next committed
   * checkpoint covers.
   *
   * @throws IllegalStateException when none is {@link #abandonable}
   */
  public List<Effect> abandon(long nowMillis) {
    if (pending == null) {
      throw new IllegalStateException("no checkpoint to abandon: " + waitingFor());
    }
    Pending<H, C> abandoned = pending;
    pending = null;
    List<Effect> out = new ArrayList<>();
    CheckpointMessage.AbortCheckpoint abort = new CheckpointMessage.AbortCheckpoint(abandoned.id);
    for (TaskId t : abandoned.live) {
      out.add(new Send(t, abort));
    }
    out.add(
        discard(
            new Completed<>(
                abandoned.id, abandoned.triggeredMillis, abandoned.snapshots, Set.of(), null)));
    out.addAll(stopFreeHolders());
    nextDueMillis = nowMillis + settings.intervalMillis();
    return out;
  }

  /**
   * When the checkpoint in progress (triggered, or being recorded) was triggered; -1 when none is.
   */
  public long inProgressSinceMillis() {
    return pending != null
        ? pending.triggeredMillis
        : persisting != null ? persisting.triggeredMillis() : -1;
  }

  /** For diagnostics: the checkpoint in progress and what it waits for. */
  public String waitingFor() {
    if (pending == null) {
      return persisting != null ? "persisting " + persisting.id() : "nothing";
    }
    Map<TaskId, String> missing = new HashMap<>();
    for (TaskId t : pending.live) {
      if (!pending.snapshots.containsKey(t)) {
        missing.put(t, "snapshot");
      } else if (!pending.cut.contains(t)) {
        missing.put(t, "client barrier");
      }
    }
    for (TaskId t : pending.holders) {
      if (!pending.snapshots.containsKey(t)) {
        missing.put(t, "holder snapshot");
      }
    }
    return "checkpoint " + pending.id + ": " + missing;
  }
}
