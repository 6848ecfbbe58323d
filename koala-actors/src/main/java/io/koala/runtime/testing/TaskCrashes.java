package io.koala.runtime.testing;

import io.koala.coordinator.PlannedCrash;
import io.koala.runtime.JobHandle;
import io.koala.runtime.internal.JobClient;
import java.util.List;

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
 * io.koala.job.JobMetrics#rollbacks()}. No crash is injected once a source has read all its input:
 * its victim could finish before the crash reaches it and the job's end overtake the rollback; a
 * crash still planned then never happens, and {@link #injected} lists only those that did.
 *
 * <pre>{@code
 * JobHandle job = runtime.submit(dataflow); // with koala.checkpoint.interval set
 * TaskCrashes.plan(job, seed, List.of(new PlannedCrash.At(300),
 *     new PlannedCrash.InPhase(EpochDriver.Phase.HANDING_OVER), new PlannedCrash.InCheckpoint(2)));
 * job.await(timeout);
 * List<PlannedCrash.Injected> crashes = TaskCrashes.injected(job); // == job.metrics().rollbacks()
 * }</pre>
 */
public final class TaskCrashes {
  private TaskCrashes() {}

  /**
   * Plans {@code crashes} for {@code job}, in addition to those planned before; {@code seed} seeds
   * the choice of their victims. Returns at once; they strike when due.
   */
  public static void plan(JobHandle job, long seed, List<? extends PlannedCrash> crashes) {
    JobClient.of(job).planCrashes(seed, List.copyOf(crashes));
  }

  /**
   * The crashes injected into {@code job} so far (all of them once it has ended), in order. Waits
   * for the job's coordinator at most {@code koala.metrics-timeout} plus 5 s.
   */
  public static List<PlannedCrash.Injected> injected(JobHandle job) {
    return JobClient.of(job).injectedCrashes();
  }
}
