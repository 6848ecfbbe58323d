package io.koala.runtime.testing;

import io.koala.core.reconfig.EpochDriver;
import io.koala.plan.TaskId;
import io.koala.runtime.JobHandle;
import io.koala.runtime.internal.RuntimeCore;
import java.util.List;
import java.util.Objects;

/**
 * Crash injection, for testing Koala itself (not for applications): plans crashes of a running
 * job's tasks at chosen points of its life — at a time, when an epoch of a reconfiguration enters a
 * phase, or while a checkpoint is in progress — so that a verifier can check that the rollbacks
 * they cause (DESIGN §6.8, §8) still give exactly-once output.
 *
 * <p>The job's coordinator decides when a planned crash is due, since it knows the epoch's phase
 * and the checkpoint in progress, and picks the victim, seeded-random, among the tasks still
 * running and the retired holders. The victim's actor then stops, as the actor of a task whose node
 * died would, and the coordinator rolls the whole job back to its latest checkpoint as it does for
 * any task failure (without checkpoints, or with no restart left, the job fails).
 *
 * <p>Crashes never merge: one is injected at a time, and a crash that becomes due while the job is
 * still recovering from the previous one (or from any other failure) waits until the job runs
 * again, so every injected crash causes exactly one rollback, counted in {@link
 * io.koala.runtime.JobMetrics#rollbacks()}. No crash is injected once a source has read all its
 * input: its victim could finish before the crash reaches it and the job's end overtake the
 * rollback; a crash still planned then never happens, and {@link #injected} lists only those that
 * did.
 *
 * <pre>{@code
 * JobHandle job = runtime.submit(dataflow); // with koala.checkpoint.interval set
 * TaskCrashes.plan(job, seed, List.of(new TaskCrashes.At(300),
 *     new TaskCrashes.InPhase(EpochDriver.Phase.HANDING_OVER), new TaskCrashes.InCheckpoint(2)));
 * job.await(timeout);
 * List<TaskCrashes.Injected> crashes = TaskCrashes.injected(job); // == job.metrics().rollbacks()
 * }</pre>
 */
public final class TaskCrashes {
  private TaskCrashes() {}

  /** When a planned crash strikes. */
  public sealed interface Crash permits At, InPhase, InCheckpoint {}

  /** {@code millis} after the job started running. */
  public record At(long millis) implements Crash {
    public At {
      if (millis < 0) {
        throw new IllegalArgumentException("a crash time must not be negative, got " + millis);
      }
    }
  }

  /**
   * When the next epoch that reaches {@code phase} enters it, once the coordinator has sent that
   * phase's commands (so they are in flight when the victim dies).
   */
  public record InPhase(EpochDriver.Phase phase) implements Crash {
    public InPhase {
      Objects.requireNonNull(phase, "phase");
      if (phase == EpochDriver.Phase.DONE) {
        throw new IllegalArgumentException("an epoch is never in phase DONE: crash in DRAINING");
      }
    }
  }

  /**
   * While the next checkpoint that gets that far is in progress, once {@code snapshots} of its task
   * snapshots are acknowledged ({@code 0}: as soon as it is triggered; all of them: while its
   * completion is being recorded, before it is committed).
   */
  public record InCheckpoint(int snapshots) implements Crash {
    public InCheckpoint {
      if (snapshots < 0) {
        throw new IllegalArgumentException(
            "a snapshot count must not be negative, got " + snapshots);
      }
    }
  }

  /**
   * A crash carried out: its victim, when ({@code atMillis} after the job started running), what
   * the job was doing ({@code during}: "processing", "epoch 3 HANDING_OVER", "checkpoint 7 (2
   * snapshots)"), and the planned crash it was.
   */
  public record Injected(TaskId task, long atMillis, String during, Crash crash) {
    @Override
    public String toString() {
      return task + " at " + atMillis + " ms during " + during + " (" + crash + ")";
    }
  }

  /**
   * Plans {@code crashes} for {@code job}, in addition to those planned before; {@code seed} seeds
   * the choice of their victims. Returns at once; they strike when due.
   */
  public static void plan(JobHandle job, long seed, List<? extends Crash> crashes) {
    RuntimeCore.Job j = RuntimeCore.jobOf(job);
    j.core().planCrashes(j.submitted(), seed, List.copyOf(crashes));
  }

  /**
   * The crashes injected into {@code job} so far (all of them once it has ended), in order. Waits
   * for the job's coordinator at most {@code koala.metrics-timeout} plus 5 s.
   */
  public static List<Injected> injected(JobHandle job) {
    RuntimeCore.Job j = RuntimeCore.jobOf(job);
    return j.core().injectedCrashes(j.submitted());
  }
}
