package io.koala.coordinator;

import io.koala.job.CheckpointStats;
import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.plan.OperatorNode;
import io.koala.plan.TaskId;
import io.koala.time.DurationText;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The job's checkpoints (DESIGN §8), around the pure {@link Checkpoints} core: a timer triggers one
 * when it is due or asked for, no epoch runs, no source has read all its input and some task has
 * not finished; its snapshots and the barriers on the client channels complete it; it is recorded
 * in the journal before it is committed (C4); a commit publishes the results it covers, tells the
 * tasks, writes its metadata next to its files and answers who asked for it.
 *
 * <p>A savepoint is a checkpoint asked for like any other, whose committed files the host then
 * places in the savepoint's directory ({@link Savepoints}). A stop with a savepoint triggers its
 * checkpoint with the sources stopping at its barrier; once it has committed (the sinks commit it)
 * and its savepoint is written the job ends {@link JobStatus#STOPPED}, and until then no epoch or
 * checkpoint starts. A savepoint whose checkpoint a rollback or a timeout abandons fails, and the
 * job goes on.
 */
final class JobCheckpoints {

  /** Who waits for a checkpoint because leaving workers hold tasks only a restore can move. */
  static final ReplyTo<JobReply.CheckpointOutcome> RELOCATION = outcome -> {};

  /** What the checkpoints ask of the job's other parts, and tell them. */
  interface Parts {
    /** The job's status ({@link JobLifecycle}). */
    JobStatus status();

    /** The job fails with {@code error}. */
    void fail(ErrorInfo error);

    /** The attempt failed with {@code error}: the job rolls back, or fails ({@link Recovery}). */
    void failed(ErrorInfo error);

    /** A stop's savepoint is written: the job stops. */
    void stopped();

    /** Whether an epoch runs ({@link EpochRunner}). */
    boolean epochRunning();

    /** The last epoch run or begun. */
    long lastEpoch();

    /** Reconfigurations reported so far (a checkpoint keeps how many). */
    int reports();

    /** Requests taken so far (a checkpoint keeps how many; {@link RequestQueue}). */
    int takenRequests();

    /** Checkpoint {@code id} was triggered: requests journaled from now on are after it. */
    void triggered(long id);

    /** Checkpoint {@code id} committed, its results published: requests before it are done. */
    void committed(long id);

    /** Whether a source has read all its input: the job is finishing ({@link Turns}). */
    boolean finishing();

    /** The first source that read all its input. */
    TaskId firstEnded();

    /** Epochs and input ends held for a checkpoint may go on, after one committed. */
    void checkpointDone();

    /** The sources read again (a stop's savepoint could not be written): epochs may go on. */
    void inputsResumed();

    /** {@code task}'s results up to checkpoint {@code id} are in ({@link ClientResults}). */
    void cut(TaskId task, long id);

    /** Whether {@code task} sent results no checkpoint has cut yet. */
    boolean uncut(TaskId task);

    /** Publishes the results checkpoint {@code id} covers. */
    void publish(long id);

    /** The job finished: the journal forgets its requests and results. */
    void finished();

    /** No owner and no restorable checkpoint needs holder {@code task} ({@link Holders}). */
    void releaseHolder(TaskId task);

    /** A point at which a crash planned for testing may strike ({@link CrashInjection}). */
    void crashPoint();

    /** Right after a commit: a crash planned for then may strike. */
    void crashPointAfterCommit();
  }

  private final JobSetup setup;
  private final Outbox out;
  private final JobState state;
  private final Attempts attempts;
  private final TaskRoster roster;
  private final Parts parts;
  private final Checkpoints<Path, CoordinatorState> core; // null: checkpoints off
  private CheckpointStats stats = CheckpointStats.NONE;
  private long committed;
  private final Map<Long, Long> snapshotBytes = new HashMap<>(); // pending checkpoint → bytes
  private final List<ReplyTo<JobReply.CheckpointOutcome>> asked = new ArrayList<>();
  private boolean wantedEarly; // a task asked for a checkpoint before one is due
  private boolean pendingStops; // the checkpoint in progress stops the sources at its barrier
  private int timedOutInARow; // checkpoints abandoned since the last commit or rollback
  private final Map<Long, List<ReplyTo<JobReply.CheckpointOutcome>>> waiters = new HashMap<>();
  private final Savepoints savepoints;

  JobCheckpoints(
      JobSetup setup,
      Outbox out,
      JobState state,
      Attempts attempts,
      TaskRoster roster,
      Parts parts) {
    this.setup = setup;
    this.out = out;
    this.state = state;
    this.attempts = attempts;
    this.roster = roster;
    this.parts = parts;
    this.savepoints = new Savepoints(setup, out, roster, parts, this::maybeCheckpoint);
    JobSetup.Checkpointing c = setup.checkpointing();
    this.core =
        c == null
            ? null
            : new Checkpoints<>(
                new Checkpoints.Settings(c.interval().toMillis(), c.retained()), out.now());
  }

  private boolean running() {
    return parts.status() == JobStatus.RUNNING;
  }

  /** An input about checkpoints and savepoints. */
  void on(JobInput.Checkpointing input) {
    if (input == JobInput.CheckpointTick.INSTANCE) {
      checkTimeout();
      maybeCheckpoint();
    } else if (input instanceof JobInput.TakeCheckpoint m) {
      onTake(m);
    } else if (input instanceof JobInput.CheckpointWanted m) {
      onWanted(m);
    } else if (input instanceof JobInput.TakeSavepoint m) {
      onTakeSavepoint(m);
    } else if (input instanceof JobInput.SnapshotTaken m) {
      onSnapshotTaken(m);
    } else if (input instanceof JobInput.Journaled m) {
      onJournaled(m);
    } else if (input instanceof JobInput.SavepointWritten m) {
      savepoints.onWritten(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  /** Whether the job takes checkpoints. */
  boolean on() {
    return core != null;
  }

  /** Starts the timer that looks for a due checkpoint: a fifth of the interval, 10 ms to 1 s. */
  void start() {
    if (core == null) {
      return;
    }
    Duration tick = setup.checkpointing().interval().dividedBy(5);
    tick = tick.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : tick;
    tick = tick.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : tick;
    out.emit(
        new JobEffect.StartTimer(
            JobCore.CHECKPOINT_TIMER, JobInput.CheckpointTick.INSTANCE, tick, true));
  }

  boolean inProgress() {
    return core != null && core.inProgress();
  }

  long pendingId() {
    return core.pendingId();
  }

  int snapshotsTaken() {
    return core.snapshotsTaken();
  }

  String waitingFor() {
    return core.waitingFor();
  }

  CheckpointStats stats() {
    long since = core == null ? -1 : core.inProgressSinceMillis();
    return since < 0
        ? stats
        : stats.withPending(
            new CheckpointStats.Pending(core.pendingId(), out.now() - since, core.waitingFor()));
  }

  long committedCount() {
    return committed;
  }

  /** The requests the oldest retained checkpoint had taken: none older can be run again. */
  int oldestRetainedTaken() {
    var retained =
        core == null ? List.<Checkpoints.Completed<Path, CoordinatorState>>of() : core.retained();
    return retained.isEmpty() ? 0 : retained.get(0).state().taken();
  }

  /** How many completed checkpoints are retained. */
  int retainedCount() {
    return core == null ? 0 : core.retained().size();
  }

  /** The newest completed checkpoint, if any. */
  Optional<Checkpoints.Completed<Path, CoordinatorState>> latest() {
    return core == null ? Optional.empty() : core.latest();
  }

  /** Whether a checkpoint should be triggered now: due, or asked for and none in progress. */
  boolean wanted() {
    return core.due(out.now()) || ((!asked.isEmpty() || wantedEarly) && !core.inProgress());
  }

  /**
   * A task asked for a checkpoint before its interval is due: the next one starts as soon as one
   * may (after the one in progress, if any). Ignored without checkpoints, or once the job ends.
   */
  void onWanted(JobInput.CheckpointWanted m) {
    if (core == null || parts.status().isTerminal()) {
      return;
    }
    if (!wantedEarly) {
      out.log()
          .debug("job {}: task {} asks for a checkpoint: {}", out.jobId(), m.task(), m.reason());
    }
    wantedEarly = true;
    maybeCheckpoint();
  }

  void onTake(JobInput.TakeCheckpoint m) {
    if (core == null) {
      out.reply(
          m.replyTo(),
          new JobReply.CheckpointOutcome(
              -1, "checkpoints are off (koala.checkpoint.interval = off)"));
    } else if (parts.status().isTerminal()) {
      out.reply(
          m.replyTo(),
          new JobReply.CheckpointOutcome(-1, "job " + out.jobId() + " is " + parts.status()));
    } else {
      ask(m.replyTo());
    }
  }

  /**
   * A savepoint asked for: refused at once when the job takes no checkpoint now or ever (its
   * sources have read all their input: it is finishing), else it waits for the next checkpoint.
   */
  void onTakeSavepoint(JobInput.TakeSavepoint m) {
    String refused = null;
    if (core == null) {
      refused =
          "job "
              + out.jobId()
              + ": a savepoint needs checkpoint storage, which is set up only with checkpoints on:"
              + " koala.checkpoint.interval is off";
    } else if (parts.status().isTerminal()) {
      refused = "job " + out.jobId() + " is " + parts.status();
    } else if (parts.finishing()) {
      refused =
          "job "
              + out.jobId()
              + " is finishing (source task "
              + parts.firstEnded()
              + " has read all its input): it takes no more checkpoints, and no savepoint";
    } else if (savepoints.stopping()) {
      refused = "job " + out.jobId() + " is stopping";
    }
    if (refused != null) {
      out.reply(m.replyTo(), new JobReply.SavepointOutcome(m.directory(), -1, 0, refused));
    } else {
      ask(new SavepointWaiter(m.directory(), m.stop(), m.replyTo()));
    }
  }

  /** Whether a stop's checkpoint committed: the job ends once its savepoint is written. */
  boolean stopping() {
    return savepoints.stopping();
  }

  /** {@code replyTo} waits for the next checkpoint to commit; it is triggered when it may start. */
  void ask(ReplyTo<JobReply.CheckpointOutcome> replyTo) {
    asked.add(replyTo);
    maybeCheckpoint();
  }

  /**
   * A checkpoint in progress longer than {@code koala.checkpoint.timeout} is abandoned, naming what
   * it waited for: a task stuck in a blocking function, or a snapshot or reply that never comes,
   * would otherwise hold every later checkpoint, reconfiguration and graceful leave behind it.
   * Within {@code koala.checkpoint.tolerable-failures} in a row the job goes on ({@link #abandon});
   * beyond them, or when the checkpoint is complete and being recorded, the attempt failed and the
   * job rolls back (or fails, with no restart left).
   */
  private void checkTimeout() {
    if (core == null || !running() || attempts.recovering()) {
      return;
    }
    long since = core.inProgressSinceMillis();
    Duration timeout = setup.checkpointing().timeout();
    if (since < 0 || out.now() - since < timeout.toMillis()) {
      return;
    }
    long id = core.pendingId();
    String waiting = core.waitingFor();
    stats = stats.afterTimeout();
    int tolerable = setup.checkpointing().tolerableFailures();
    if (core.abandonable() && timedOutInARow < tolerable) {
      timedOutInARow++;
      out.log()
          .warn(
              "job {}: checkpoint {} not committed within {} (koala.checkpoint.timeout), abandoned"
                  + " ({} of {} in a row, koala.checkpoint.tolerable-failures); the job goes on: {}",
              out.jobId(),
              id,
              DurationText.of(timeout),
              timedOutInARow,
              tolerable,
              waiting);
      abandon(id, timeout);
      return;
    }
    out.log()
        .error(
            "job {}: checkpoint {} not committed within {} (koala.checkpoint.timeout): {}",
            out.jobId(),
            id,
            DurationText.of(timeout),
            waiting);
    parts.failed(
        JobCore.coordinatorError(
            "checkpoint",
            "checkpoint "
                + id
                + " of job "
                + out.jobId()
                + " was not committed within "
                + DurationText.of(timeout)
                + " (koala.checkpoint.timeout"
                + (tolerable > 0 ? ", after " + tolerable + " abandoned in a row" : "")
                + "); it waited for "
                + waiting));
  }

  /**
   * Abandons checkpoint {@code id}, which timed out, while the job goes on: its tasks drop its
   * barriers and its snapshots are deleted; whoever waited for it waits for the next, except a
   * savepoint's waiter, which is told that it failed (a stop's sources read again).
   */
  private void abandon(long id, Duration timeout) {
    carryOut(core.abandon(out.now()));
    snapshotBytes.remove(id);
    waitForNext(
        waiters.getOrDefault(id, List.of()),
        "checkpoint "
            + id
            + " of the savepoint was not committed within "
            + DurationText.of(timeout)
            + " (koala.checkpoint.timeout) and was abandoned; the job goes on");
    waiters.remove(id);
    if (pendingStops) {
      pendingStops = false;
      savepoints.resumeSources();
    }
    parts.checkpointDone(); // epochs and input ends held for it may go on
    maybeCheckpoint();
  }

  /**
   * Triggers a checkpoint when one is wanted and may start: the job runs, no epoch runs (§8, C1),
   * and some task has not finished. Once a source has read all its input (its end is held until
   * none is in progress) only the last one starts: the one that publishes what retired tasks' sinks
   * keep ({@link #retiredSinkOutputUnpublished}).
   */
  void maybeCheckpoint() {
    if (core == null
        || savepoints.stopping()
        || !running()
        || attempts.recovering()
        || parts.epochRunning()
        || roster.allFinished()
        || core.inProgress()) {
      return;
    }
    if (parts.finishing() ? !retiredSinkOutputUnpublished() : !wanted()) {
      return;
    }
    List<TaskId> sources = new ArrayList<>();
    List<TaskId> liveTasks = new ArrayList<>();
    List<TaskId> holders = new ArrayList<>();
    for (TaskId t : roster.ids()) {
      if (roster.isReleased(t)) {
        continue;
      }
      if (state.deployment().retired().contains(t) || roster.hasFinished(t)) {
        holders.add(t); // no barrier reaches it: asked directly, or left out if not needed
      } else {
        liveTasks.add(t);
        if (setup.plan().vertex(t.operator()).head().kind() == OperatorNode.Kind.SOURCE) {
          sources.add(t);
        }
      }
    }
    CoordinatorState kept = state.checkpoint(parts.takenRequests(), parts.reports());
    boolean stop = false;
    for (ReplyTo<JobReply.CheckpointOutcome> r : asked) {
      stop |= r instanceof SavepointWaiter w && w.stop();
    }
    List<Checkpoints.Effect> effects =
        core.trigger(out.now(), kept, sources, liveTasks, holders, stop);
    pendingStops = stop;
    long id = core.pendingId();
    wantedEarly = false;
    parts.triggered(id);
    if (!asked.isEmpty()) {
      waiters.computeIfAbsent(id, k -> new ArrayList<>()).addAll(asked);
      asked.clear();
    }
    out.log()
        .debug(
            "job {}: checkpoint {} triggered ({} sources, {} tasks, {} holders)",
            out.jobId(),
            id,
            sources.size(),
            liveTasks.size(),
            holders.size());
    carryOut(effects);
    parts.crashPoint();
  }

  void onSnapshotTaken(JobInput.SnapshotTaken m) {
    if (core == null || !running() || attempts.recovering()) {
      return;
    }
    Path file = Path.of(m.file());
    if (core.pendingId() != m.checkpointId()) {
      out.emit(new JobEffect.DeleteSnapshot(file)); // of an abandoned checkpoint
      return;
    }
    if (core.cutsAtSnapshot(m.task(), m.checkpointId())) {
      parts.cut(m.task(), m.checkpointId()); // a finished task reports once its results are in
    }
    snapshotBytes.merge(m.checkpointId(), m.bytes(), Long::sum);
    carryOut(core.snapshotTaken(m.task(), m.checkpointId(), file));
    parts.crashPoint();
  }

  /** {@code task}'s barrier of checkpoint {@code id} reached the client. */
  void clientBarrier(TaskId task, long id) {
    carryOut(core.clientBarrier(task, id));
  }

  /** {@code task} finished: checkpoints no longer wait for its barrier. */
  void taskFinished(TaskId task) {
    if (core != null) {
      carryOut(core.taskFinished(task));
    }
  }

  /**
   * Holder {@code task} is unreferenced: it stops once no checkpoint includes it, and once one has
   * cut the results it sent since its last cut — or, for a retired task whose chain ends in a sink,
   * the output its sink keeps until a checkpoint publishes it.
   */
  void holderUnreferenced(TaskId task) {
    boolean uncut = parts.uncut(task) || keepsSinkOutput(task);
    carryOut(core.holderUnreferenced(task, uncut));
  }

  /**
   * Whether retired task {@code task} ends in a sink whose output no committed checkpoint has
   * published yet: a sink publishing at checkpoints does not publish at a task's retirement (a
   * rollback past it would write the same records again), but at the commit of the first checkpoint
   * that has the task as a holder.
   */
  private boolean keepsSinkOutput(TaskId task) {
    // a holder the roster no longer has was stopped (its output committed) before the checkpoint
    // the job was restored from
    return state.deployment().retired().contains(task)
        && roster.ids().contains(task)
        && !roster.isReleased(task)
        && setup.plan().vertex(task.operator()).tail().kind() == OperatorNode.Kind.SINK
        && !core.retainedAsHolder(task);
  }

  /**
   * Whether a retired task's sink keeps output no committed checkpoint has published: the sources
   * then end only after one has ({@link Turns#releaseInputs}).
   */
  boolean retiredSinkOutputUnpublished() {
    if (core == null) {
      return false;
    }
    for (TaskId t : state.deployment().retired()) {
      if (keepsSinkOutput(t)) {
        return true;
      }
    }
    return false;
  }

  /** Carries out what the checkpoint core decided. */
  private void carryOut(List<Checkpoints.Effect> effects) {
    for (Checkpoints.Effect e : effects) {
      if (e instanceof Checkpoints.Send send) {
        out.tell(send.task(), send.command());
      } else if (e instanceof Checkpoints.Persist<?, ?> persist) {
        @SuppressWarnings("unchecked")
        Checkpoints.Completed<Path, CoordinatorState> c =
            (Checkpoints.Completed<Path, CoordinatorState>) persist.checkpoint();
        out.emit(
            new JobEffect.JournalCheckpoint(attempts.current(), c, core.settings().retained()));
      } else if (e instanceof Checkpoints.Discard<?> discard) {
        List<Path> files = new ArrayList<>();
        for (Object h : discard.snapshots()) {
          files.add((Path) h);
        }
        savepoints.delete(new JobEffect.DiscardCheckpoint(discard.checkpointId(), files));
      } else if (e instanceof Checkpoints.Quarantine<?> quarantine) {
        List<Path> files = new ArrayList<>();
        for (Object h : quarantine.snapshots()) {
          files.add((Path) h);
        }
        stats = stats.afterQuarantine();
        savepoints.delete(new JobEffect.QuarantineCheckpoint(quarantine.checkpointId(), files));
      } else if (e instanceof Checkpoints.StopHolder stop) {
        parts.releaseHolder(stop.task());
      } else {
        throw new IllegalStateException("unhandled " + e);
      }
    }
  }

  void onJournaled(JobInput.Journaled m) {
    if (parts.status().isTerminal()) {
      return;
    }
    boolean current =
        m.attempt() == attempts.current()
            && !attempts.recovering()
            && core.pendingId() == m.checkpointId();
    if (m.error() != null) {
      if (!current) {
        return;
      }
      // not committed: an outage of the journal's store rolls the job back to its latest
      // checkpoint, spending a restart, so that one lasting less than the restarts' backoff does
      // not end a job; a record that was written after all is forgotten
      out.emit(new JobEffect.JournalDiscard(m.checkpointId()));
      parts.failed(
          JobCore.coordinatorError(
              "journal",
              "the journal cannot record checkpoint " + m.checkpointId() + ": " + m.error()));
      return;
    }
    if (!current) {
      // recorded after a rollback abandoned it (its files are gone): the journal forgets it too
      out.emit(new JobEffect.JournalDiscard(m.checkpointId()));
      return;
    }
    committed(m.checkpointId());
  }

  /** Checkpoint {@code id} is durably recorded: publish its results, then tell the tasks (C4). */
  private void committed(long id) {
    parts.publish(id);
    out.log().debug("job {}: checkpoint {} committed", out.jobId(), id);
    carryOut(core.persisted(id));
    committed++;
    timedOutInARow = 0;
    pendingStops = false;
    long triggered = core.latest().map(c -> c.triggeredMillis()).orElse(0L);
    stats =
        stats.committed(
            id, triggered == 0 ? 0 : out.now() - triggered, snapshotBytes.getOrDefault(id, 0L));
    snapshotBytes.keySet().removeIf(k -> k <= id);
    parts.committed(id);
    core.latest()
        .filter(c -> c.id() == id)
        .ifPresent(c -> out.emit(new JobEffect.WriteMetadata(c)));
    answer(waiters.remove(id), new JobReply.CheckpointOutcome(id, null));
    parts.checkpointDone(); // epochs and input ends held for the checkpoint may go on
    maybeCheckpoint(); // one asked for since this one was triggered
    parts.crashPointAfterCommit();
  }

  /** The journal's checkpoints at start-up ({@code lastId}: the highest id ever recorded). */
  void recovered(List<Checkpoints.Completed<Path, CoordinatorState>> completed, long lastId) {
    core.recovered(completed, lastId);
  }

  /**
   * Checkpoint {@code id} is corrupt: it is dropped, here and in the journal, and its files are
   * quarantined.
   */
  void unusable(long id) {
    carryOut(core.unusable(id));
    out.emit(new JobEffect.JournalDiscard(id));
  }

  /**
   * A rollback: the checkpoint in progress is abandoned; whoever waited for it waits for the next,
   * except a savepoint's waiter, which is told that it failed (the job goes on).
   */
  void rolledBack() {
    waiters.forEach(
        (id, waiting) ->
            waitForNext(
                waiting,
                "job "
                    + out.jobId()
                    + " rolled back after a failure before checkpoint "
                    + id
                    + " of the savepoint committed; the job goes on"));
    waiters.clear();
    timedOutInARow = 0;
    pendingStops = false;
    if (core != null) {
      carryOut(core.rolledBack(out.now()));
    }
  }

  /**
   * {@code waiting} waited for a checkpoint that will not commit: each waits for the next, except a
   * savepoint's waiter, which is told {@code why} it failed.
   */
  private void waitForNext(List<ReplyTo<JobReply.CheckpointOutcome>> waiting, String why) {
    for (ReplyTo<JobReply.CheckpointOutcome> r : waiting) {
      if (r instanceof SavepointWaiter w) {
        out.reply(w.replyTo(), new JobReply.SavepointOutcome(w.directory(), -1, 0, why));
      } else {
        asked.add(r);
      }
    }
  }

  /**
   * The job ended as {@code terminal}. A finished job leaves nothing to resume: the journal and the
   * files forget its checkpoints. Whoever waits for a checkpoint is told why there is none.
   */
  void jobEnded(JobStatus terminal) {
    if (core != null && terminal == JobStatus.FINISHED) {
      for (var c : core.retained()) {
        out.emit(new JobEffect.JournalDiscard(c.id()));
      }
      savepoints.delete(new JobEffect.DeleteCheckpoints());
      parts.finished();
    }
    JobReply.CheckpointOutcome none =
        new JobReply.CheckpointOutcome(-1, "job " + out.jobId() + " is " + terminal);
    answer(asked, none);
    asked.clear();
    waiters.values().forEach(l -> answer(l, none));
    waiters.clear();
  }

  private void answer(
      List<ReplyTo<JobReply.CheckpointOutcome>> waiting, JobReply.CheckpointOutcome outcome) {
    if (waiting == null) {
      return;
    }
    for (ReplyTo<JobReply.CheckpointOutcome> r : waiting) {
      if (r == RELOCATION) {
        out.emit(
            new JobEffect.ToSelf(
                new JobInput.RelocationCheckpointed(outcome.checkpointId(), outcome.error())));
      } else if (r instanceof SavepointWaiter w) {
        savepoints.write(w, outcome, core.latest());
      } else {
        out.reply(r, outcome);
      }
    }
  }
}
