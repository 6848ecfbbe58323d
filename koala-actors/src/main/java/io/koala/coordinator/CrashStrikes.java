package io.koala.coordinator;

import io.koala.plan.TaskId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Crashes planned for testing Koala ({@link JobInput.PlanCrashes}; {@link CrashInjection} decides
 * which is due and picks its victim), struck only while the job runs, is not recovering, and no
 * source has read all its input. The victim — a task still running or a retired holder — stops, and
 * its DeathWatch rolls the job back like any task failure.
 */
final class CrashStrikes {
  static final Object TIMER = "planned-crash";

  /** Where the job is, for when a crash is due and for its log line. */
  interface Parts {
    /** The running epoch's phase, or null ({@link EpochRunner}). */
    EpochDriver.Phase epochPhase();

    /** The running epoch, or 0. */
    long runningEpoch();

    /** Whether a checkpoint is in progress ({@link JobCheckpoints}). */
    boolean checkpointInProgress();

    /** The checkpoint in progress, or -1. */
    long pendingCheckpoint();

    /** The snapshots the checkpoint in progress has. */
    int snapshotsTaken();

    /** Whether a source has read all its input ({@link Turns}). */
    boolean finishing();

    /** Milliseconds since the job's tasks first started. */
    long sinceStart();
  }

  private final CrashInjection crashes = new CrashInjection();
  private final Outbox out;
  private final JobState state;
  private final Attempts attempts;
  private final TaskRoster roster;
  private final CurrentStatus job;
  private final Parts parts;

  CrashStrikes(
      Outbox out,
      JobState state,
      Attempts attempts,
      TaskRoster roster,
      CurrentStatus job,
      Parts parts) {
    this.out = out;
    this.state = state;
    this.attempts = attempts;
    this.roster = roster;
    this.job = job;
    this.parts = parts;
  }

  /** An input about crashes planned for testing. */
  void on(JobInput.Crashes input) {
    if (input instanceof JobInput.PlanCrashes m) {
      onPlan(m);
    } else if (input == JobInput.CrashTick.INSTANCE) {
      onTick();
    } else if (input instanceof JobInput.GetInjectedCrashes m) {
      out.reply(m.replyTo(), new JobReply.InjectedCrashes(injected()));
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  /** The crashes injected so far, in order. */
  List<PlannedCrash.Injected> injected() {
    return crashes.injected();
  }

  void onPlan(JobInput.PlanCrashes m) {
    crashes.plan(m.seed(), m.crashes());
    if (crashes.timed()) {
      out.emit(
          new JobEffect.StartTimer(
              TIMER, JobInput.CrashTick.INSTANCE, Duration.ofMillis(10), true));
    }
    maybeCrash();
  }

  void onTick() {
    maybeCrash();
    if (!crashes.timed() || job.ended()) {
      out.cancelTimer(TIMER);
    }
  }

  /** The job rolled back: the next planned crash may strike once it runs again. */
  void rolledBack() {
    crashes.rolledBack();
  }

  /** Injects the planned crash due now, if any ({@link PlannedCrash}). */
  void maybeCrash() {
    if (!mayStrike()) {
      return;
    }
    int snapshots = parts.checkpointInProgress() ? parts.snapshotsTaken() : -1;
    strike(crashes.due(parts.sinceStart(), parts.epochPhase(), snapshots));
  }

  /** Injects a crash planned to strike right after a commit, if any. */
  void maybeCrashAfterCommit() {
    if (mayStrike()) {
      strike(crashes.dueAtCommit());
    }
  }

  private boolean mayStrike() {
    return job.running() && !attempts.recovering() && !parts.finishing();
  }

  private void strike(PlannedCrash due) {
    if (due == null) {
      return;
    }
    List<TaskId> candidates = new ArrayList<>();
    for (TaskId t : roster.ids()) {
      if (!roster.isReleased(t)
          && (!roster.hasFinished(t) || state.deployment().retired().contains(t))) {
        candidates.add(t);
      }
    }
    if (candidates.isEmpty()) {
      return;
    }
    EpochDriver.Phase phase = parts.epochPhase();
    String during =
        phase != null
            ? "epoch " + parts.runningEpoch() + " " + phase
            : parts.checkpointInProgress()
                ? "checkpoint "
                    + parts.pendingCheckpoint()
                    + " ("
                    + parts.snapshotsTaken()
                    + " snapshots)"
                : "processing";
    TaskId victim = crashes.strike(due, candidates, parts.sinceStart(), during);
    out.log()
        .warn(
            "job {}: crashing task {} during {} (planned for testing: {})",
            out.jobId(),
            victim,
            during,
            due);
    out.emit(new JobEffect.CrashTask(roster.address(victim)));
  }
}
