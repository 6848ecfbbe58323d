package io.koala.coordinator;

import io.koala.job.CheckpointStats;
import io.koala.job.JobStatus;
import io.koala.plan.OperatorNode;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
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
 * places in the savepoint's directory; no file of the job's checkpoints is deleted while it does. A
 * stop with a savepoint triggers its checkpoint with the sources stopping at its barrier; once it
 * has committed (the sinks commit it) and its savepoint is written, the job ends {@link
 * JobStatus#STOPPED}, and until then no epoch or checkpoint starts. A savepoint whose checkpoint a
 * rollback abandons fails, and the job goes on; so does a stop whose savepoint cannot be written
 * (its sources read again).
 */
final class JobCheckpoints {

  /** Who waits for a checkpoint because leaving workers hold tasks only a restore can move. */
  static final ReplyTo<JobReply.CheckpointOutcome> RELOCATION = outcome -> {};

  private final JobCore job;
  private final Checkpoints<Path, CoordinatorState> core; // null: checkpoints off
  private CheckpointStats stats = CheckpointStats.NONE;
  private long committed;
  private final Map<Long, Long> snapshotBytes = new HashMap<>(); // pending checkpoint → bytes
  private final List<ReplyTo<JobReply.CheckpointOutcome>> asked = new ArrayList<>();
  private final Map<Long, List<ReplyTo<JobReply.CheckpointOutcome>>> waiters = new HashMap<>();
  private int savepointsWriting; // savepoints the host is writing
  private final List<JobEffect> deferred = new ArrayList<>(); // file deletions held while it does
  private boolean stopping; // a stop's checkpoint committed: the job ends once its savepoint is
  private boolean stopWritten; // a stop's savepoint was written

  JobCheckpoints(JobCore job, long nowMillis) {
    this.job = job;
    JobSetup.Checkpointing c = job.setup.checkpointing();
    this.core =
        c == null
            ? null
            : new Checkpoints<>(
                new Checkpoints.Settings(c.interval().toMillis(), c.retained()), nowMillis);
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
    Duration tick = job.setup.checkpointing().interval().dividedBy(5);
    tick = tick.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : tick;
    tick = tick.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : tick;
    job.emit(
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
    return stats;
  }

  long committedCount() {
    return committed;
  }

  /** The newest completed checkpoint, if any. */
  Optional<Checkpoints.Completed<Path, CoordinatorState>> latest() {
    return core == null ? Optional.empty() : core.latest();
  }

  /** Whether a checkpoint should be triggered now: due, or asked for and none in progress. */
  boolean wanted() {
    return core.due(job.now()) || (!asked.isEmpty() && !core.inProgress());
  }

  void onTake(JobInput.TakeCheckpoint m) {
    if (core == null) {
      job.reply(
          m.replyTo(),
          new JobReply.CheckpointOutcome(
              -1, "checkpoints are off (koala.checkpoint.interval = off)"));
    } else if (job.lifecycle.status().isTerminal()) {
      job.reply(
          m.replyTo(),
          new JobReply.CheckpointOutcome(-1, "job " + job.jobId + " is " + job.lifecycle.status()));
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
              + job.jobId
              + ": a savepoint needs checkpoint storage, which is set up only with checkpoints on:"
              + " koala.checkpoint.interval is off";
    } else if (job.lifecycle.status().isTerminal()) {
      refused = "job " + job.jobId + " is " + job.lifecycle.status();
    } else if (job.turns.finishing()) {
      refused =
          "job "
              + job.jobId
              + " is finishing (source task "
              + job.turns.firstEnded()
              + " has read all its input): it takes no more checkpoints, and no savepoint";
    } else if (stopping) {
      refused = "job " + job.jobId + " is stopping with a savepoint";
    }
    if (refused != null) {
      job.reply(m.replyTo(), new JobReply.SavepointOutcome(m.directory(), -1, 0, refused));
    } else {
      ask(new SavepointWaiter(m.directory(), m.stop(), m.replyTo()));
    }
  }

  /** Whether a stop's checkpoint committed: the job ends once its savepoint is written. */
  boolean stopping() {
    return stopping;
  }

  /** {@code replyTo} waits for the next checkpoint to commit; it is triggered when it may start. */
  void ask(ReplyTo<JobReply.CheckpointOutcome> replyTo) {
    asked.add(replyTo);
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
        || stopping
        || !job.lifecycle.running()
        || job.recovery.recovering()
        || job.epochs.running()
        || job.roster.allFinished()
        || core.inProgress()) {
      return;
    }
    if (job.turns.finishing() ? !retiredSinkOutputUnpublished() : !wanted()) {
      return;
    }
    List<TaskId> sources = new ArrayList<>();
    List<TaskId> liveTasks = new ArrayList<>();
    List<TaskId> holders = new ArrayList<>();
    for (TaskId t : job.roster.ids()) {
      if (job.roster.isReleased(t)) {
        continue;
      }
      if (job.live.retired().contains(t) || job.roster.hasFinished(t)) {
        holders.add(t); // no barrier reaches it: asked directly, or left out if not needed
      } else {
        liveTasks.add(t);
        if (job.plan.vertex(t.operator()).head().kind() == OperatorNode.Kind.SOURCE) {
          sources.add(t);
        }
      }
    }
    CoordinatorState state =
        new CoordinatorState(
            job.live.copy(),
            job.retirement.copy(),
            job.requests.takenCount(),
            job.epochs.reportCount());
    boolean stop = false;
    for (ReplyTo<JobReply.CheckpointOutcome> r : asked) {
      stop |= r instanceof SavepointWaiter w && w.stop();
    }
    List<Checkpoints.Effect> effects =
        core.trigger(job.now(), state, sources, liveTasks, holders, stop);
    long id = core.pendingId();
    job.requests.checkpointTriggered(id);
    if (!asked.isEmpty()) {
      waiters.computeIfAbsent(id, k -> new ArrayList<>()).addAll(asked);
      asked.clear();
    }
    job.log()
        .debug(
            "job {}: checkpoint {} triggered ({} sources, {} tasks, {} holders)",
            job.jobId,
            id,
            sources.size(),
            liveTasks.size(),
            holders.size());
    carryOut(effects);
    job.maybeCrash();
  }

  void onSnapshotTaken(JobInput.SnapshotTaken m) {
    if (core == null || !job.lifecycle.running() || job.recovery.recovering()) {
      return;
    }
    Path file = Path.of(m.file());
    if (core.pendingId() != m.checkpointId()) {
      job.emit(new JobEffect.DeleteSnapshot(file)); // of an abandoned checkpoint
      return;
    }
    if (core.cutsAtSnapshot(m.task(), m.checkpointId())) {
      job.results.cut(
          m.task(), m.checkpointId()); // a finished task reports once its results are in
    }
    snapshotBytes.merge(m.checkpointId(), m.bytes(), Long::sum);
    carryOut(core.snapshotTaken(m.task(), m.checkpointId(), file));
    job.maybeCrash();
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
    boolean uncut = job.results.uncut(task) || keepsSinkOutput(task);
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
    return job.live.retired().contains(task)
        && job.roster.ids().contains(task)
        && !job.roster.isReleased(task)
        && job.plan.vertex(task.operator()).tail().kind() == OperatorNode.Kind.SINK
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
    for (TaskId t : job.live.retired()) {
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
        job.tell(send.task(), send.command());
      } else if (e instanceof Checkpoints.Persist<?, ?> persist) {
        @SuppressWarnings("unchecked")
        Checkpoints.Completed<Path, CoordinatorState> c =
            (Checkpoints.Completed<Path, CoordinatorState>) persist.checkpoint();
        job.emit(
            new JobEffect.JournalCheckpoint(job.recovery.attempt(), c, core.settings().retained()));
      } else if (e instanceof Checkpoints.Discard<?> discard) {
        List<Path> files = new ArrayList<>();
        for (Object h : discard.snapshots()) {
          files.add((Path) h);
        }
        deleteFiles(new JobEffect.DiscardCheckpoint(discard.checkpointId(), files));
      } else if (e instanceof Checkpoints.StopHolder stop) {
        job.holders.release(stop.task());
      } else {
        throw new IllegalStateException("unhandled " + e);
      }
    }
  }

  void onJournaled(JobInput.Journaled m) {
    if (job.lifecycle.status().isTerminal()) {
      return;
    }
    boolean current =
        m.attempt() == job.recovery.attempt()
            && !job.recovery.recovering()
            && core.pendingId() == m.checkpointId();
    if (m.error() != null) {
      if (!current) {
        return;
      }
      job.lifecycle.fail(
          JobCore.coordinatorError(
              "journal",
              "the journal cannot record checkpoint " + m.checkpointId() + ": " + m.error()));
      return;
    }
    if (!current) {
      // recorded after a rollback abandoned it (its files are gone): the journal forgets it too
      job.emit(new JobEffect.JournalDiscard(m.checkpointId()));
      return;
    }
    committed(m.checkpointId());
  }

  /** Checkpoint {@code id} is durably recorded: publish its results, then tell the tasks (C4). */
  private void committed(long id) {
    job.results.committed(id);
    job.log().debug("job {}: checkpoint {} committed", job.jobId, id);
    carryOut(core.persisted(id));
    committed++;
    long triggered = core.latest().map(c -> c.triggeredMillis()).orElse(0L);
    stats =
        stats.committed(
            id, triggered == 0 ? 0 : job.now() - triggered, snapshotBytes.getOrDefault(id, 0L));
    snapshotBytes.keySet().removeIf(k -> k <= id);
    job.requests.checkpointCommitted(id);
    core.latest()
        .filter(c -> c.id() == id)
        .ifPresent(c -> job.emit(new JobEffect.WriteMetadata(c)));
    answer(waiters.remove(id), new JobReply.CheckpointOutcome(id, null));
    job.turns.checkpointCommitted();
    job.epochs.startNext(); // epochs and input ends held for the checkpoint may go on
    maybeCheckpoint(); // one asked for since this one was triggered
    job.maybeCrashAfterCommit();
  }

  /** The journal's checkpoints at start-up ({@code lastId}: the highest id ever recorded). */
  void recovered(List<Checkpoints.Completed<Path, CoordinatorState>> completed, long lastId) {
    core.recovered(completed, lastId);
  }

  /** Checkpoint {@code id} cannot be restored: it is dropped, here and in the journal. */
  void unusable(long id) {
    carryOut(core.unusable(id));
    job.emit(new JobEffect.JournalDiscard(id));
  }

  /**
   * A rollback: the checkpoint in progress is abandoned; whoever waited for it waits for the next,
   * except a savepoint's waiter, which is told that it failed (the job goes on).
   */
  void rolledBack() {
    for (var e : waiters.entrySet()) {
      for (ReplyTo<JobReply.CheckpointOutcome> r : e.getValue()) {
        if (r instanceof SavepointWaiter w) {
          job.reply(
              w.replyTo(),
              new JobReply.SavepointOutcome(
                  w.directory(),
                  -1,
                  0,
                  "job "
                      + job.jobId
                      + " rolled back after a failure before checkpoint "
                      + e.getKey()
                      + " of the savepoint committed; the job goes on"));
        } else {
          asked.add(r);
        }
      }
    }
    waiters.clear();
    if (core != null) {
      carryOut(core.rolledBack(job.now()));
    }
  }

  /**
   * The job ended as {@code terminal}. A finished job leaves nothing to resume: the journal and the
   * files forget its checkpoints. Whoever waits for a checkpoint is told why there is none.
   */
  void jobEnded(JobStatus terminal) {
    if (core != null && terminal == JobStatus.FINISHED) {
      for (var c : core.retained()) {
        job.emit(new JobEffect.JournalDiscard(c.id()));
      }
      deleteFiles(new JobEffect.DeleteCheckpoints());
      job.requests.jobFinished();
      job.results.ended();
    }
    JobReply.CheckpointOutcome none =
        new JobReply.CheckpointOutcome(-1, "job " + job.jobId + " is " + terminal);
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
        job.emit(
            new JobEffect.ToSelf(
                new JobInput.RelocationCheckpointed(outcome.checkpointId(), outcome.error())));
      } else if (r instanceof SavepointWaiter w) {
        writeSavepoint(w, outcome);
      } else {
        job.reply(r, outcome);
      }
    }
  }

  /** {@code w}'s checkpoint committed ({@code outcome}): the host writes its savepoint. */
  private void writeSavepoint(SavepointWaiter w, JobReply.CheckpointOutcome outcome) {
    var committed = core.latest().filter(c -> c.id() == outcome.checkpointId());
    if (outcome.error() != null || committed.isEmpty()) {
      String why = outcome.error() != null ? outcome.error() : "its checkpoint is not retained";
      job.reply(w.replyTo(), new JobReply.SavepointOutcome(w.directory(), -1, 0, why));
      return;
    }
    savepointsWriting++;
    stopping |= w.stop();
    job.emit(new JobEffect.WriteSavepoint(committed.get(), w.directory(), w.stop(), w.replyTo()));
  }

  /** A file deletion: now, or once no savepoint is being written (it may link those files). */
  private void deleteFiles(JobEffect deletion) {
    if (savepointsWriting > 0) {
      deferred.add(deletion);
    } else {
      job.emit(deletion);
    }
  }

  /**
   * The host wrote a savepoint, or could not: its waiter is answered. Once none is being written,
   * the deletions held meanwhile go ahead, and a stop ends the job — or, if its savepoint could not
   * be written, lets the sources read again and the job go on.
   */
  void onSavepointWritten(JobInput.SavepointWritten m) {
    savepointsWriting--;
    String error = m.error();
    if (error == null) {
      stopWritten |= m.stop();
    } else {
      error =
          "cannot write the savepoint of checkpoint "
              + m.checkpointId()
              + " to "
              + m.directory()
              + ": "
              + error
              + (m.stop() && !stopWritten ? "; the job goes on" : "");
    }
    job.reply(
        m.replyTo(),
        new JobReply.SavepointOutcome(
            m.directory(), error == null ? m.checkpointId() : -1, m.triggeredMillis(), error));
    if (savepointsWriting > 0) {
      return;
    }
    deferred.forEach(job::emit);
    deferred.clear();
    if (!stopping || job.lifecycle.status().isTerminal()) {
      return;
    }
    if (stopWritten) {
      job.lifecycle.stopped(); // stopping stays: nothing starts before the job has ended
      return;
    }
    stopping = false;
    for (TaskId t : job.roster.ids()) { // the stop failed: the sources read again
      if (job.plan.vertex(t.operator()).head().kind() == OperatorNode.Kind.SOURCE
          && !job.roster.isReleased(t)
          && !job.roster.hasFinished(t)) {
        job.tell(t, new EpochMessage.ResumeInput(job.epochs.lastEpoch()));
      }
    }
    job.epochs.startNext();
    maybeCheckpoint();
  }
}
