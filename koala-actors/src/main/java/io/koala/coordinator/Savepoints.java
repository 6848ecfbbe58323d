package io.koala.coordinator;

import io.koala.plan.OperatorNode;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A job's savepoints (DESIGN §8), once their checkpoint has committed: the host places its files in
 * the savepoint's directory, and no file of the job's checkpoints is deleted while it does (the
 * deletions wait). A stop with a savepoint — or with a final checkpoint, which has no directory and
 * stays in the job's own — ends the job {@code STOPPED} once it is written; one that cannot be
 * written lets the sources read again, and the job goes on.
 */
final class Savepoints {
  private final JobSetup setup;
  private final Outbox out;
  private final TaskRoster roster;
  private final JobCheckpoints.Parts parts;
  private final Runnable maybeCheckpoint; // a stop that failed lets checkpoints start again
  private int writing; // savepoints the host is writing
  private final List<JobEffect> deferred = new ArrayList<>(); // file deletions held meanwhile
  private boolean stopping; // a stop's checkpoint committed: the job ends once its savepoint is
  private boolean stopWritten; // a stop's savepoint was written

  Savepoints(
      JobSetup setup,
      Outbox out,
      TaskRoster roster,
      JobCheckpoints.Parts parts,
      Runnable maybeCheckpoint) {
    this.setup = setup;
    this.out = out;
    this.roster = roster;
    this.parts = parts;
    this.maybeCheckpoint = maybeCheckpoint;
  }

  /** Whether a stop's checkpoint committed: the job ends once its savepoint is written. */
  boolean stopping() {
    return stopping;
  }

  /**
   * {@code w}'s checkpoint committed ({@code outcome}; {@code latest} is the newest retained): the
   * host writes its savepoint, or {@code w} is told why not.
   */
  void write(
      SavepointWaiter w,
      JobReply.CheckpointOutcome outcome,
      Optional<Checkpoints.Completed<Path, CoordinatorState>> latest) {
    var committed = latest.filter(c -> c.id() == outcome.checkpointId());
    if (outcome.error() != null || committed.isEmpty()) {
      String why = outcome.error() != null ? outcome.error() : "its checkpoint is not retained";
      out.reply(w.replyTo(), new JobReply.SavepointOutcome(w.directory(), -1, 0, why));
      return;
    }
    writing++;
    stopping |= w.stop();
    Checkpoints.Completed<Path, CoordinatorState> c = committed.get();
    if (w.directory() == null) { // a stop with its final checkpoint: nothing to copy
      onWritten(
          new JobInput.SavepointWritten(
              c.id(), c.triggeredMillis(), null, w.stop(), null, w.replyTo()));
      return;
    }
    out.emit(new JobEffect.WriteSavepoint(c, w.directory(), w.stop(), w.replyTo()));
  }

  /** A file deletion: now, or once no savepoint is being written (it may link those files). */
  void delete(JobEffect deletion) {
    if (writing > 0) {
      deferred.add(deletion);
    } else {
      out.emit(deletion);
    }
  }

  /**
   * The host wrote a savepoint, or could not: its waiter is answered. Once none is being written,
   * the deletions held meanwhile go ahead, and a stop ends the job — or, if its savepoint could not
   * be written, lets the sources read again and the job go on.
   */
  void onWritten(JobInput.SavepointWritten m) {
    writing--;
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
    out.reply(
        m.replyTo(),
        new JobReply.SavepointOutcome(
            m.directory(), error == null ? m.checkpointId() : -1, m.triggeredMillis(), error));
    if (writing > 0) {
      return;
    }
    deferred.forEach(out::emit);
    deferred.clear();
    if (!stopping || parts.status().isTerminal()) {
      return;
    }
    if (stopWritten) {
      parts.stopped(); // stopping stays: nothing starts before the job has ended
      return;
    }
    stopping = false;
    resumeSources(); // the stop failed
    maybeCheckpoint.run();
  }

  /** The sources stopped at a stop's barrier read again, and epochs may go on. */
  void resumeSources() {
    for (TaskId t : roster.ids()) {
      if (setup.plan().vertex(t.operator()).head().kind() == OperatorNode.Kind.SOURCE
          && !roster.isReleased(t)
          && !roster.hasFinished(t)) {
        out.tell(t, new EpochMessage.ResumeInput(parts.lastEpoch()));
      }
    }
    parts.inputsResumed();
  }
}
