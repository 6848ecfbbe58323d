package io.koala.testkit.verify;

import io.koala.coordinator.Change;
import io.koala.coordinator.PlannedCrash;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.runtime.internal.EngineSettings;
import io.koala.runtime.testing.TaskCrashes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Verifies a workload under a random reconfiguration schedule on the real runtime (actors, LMDB,
 * every message serialized when the runtime is configured so): the run against a reference run of
 * the same input with each operator at its final parallelism from the start, plus the invariants.
 * Requests are made at their point of the run by wall-clock time, so interleavings vary from run to
 * run; the seed fixes the schedule.
 *
 * <p>With {@code crashes}, each run also gets one to three crashes from the seed's plan ({@link
 * CrashPlans}, shared with {@link SimVerifier}): at a time within the run, when the next epoch
 * enters a phase, or during a checkpoint once some of its snapshots are in. The job's coordinator
 * injects them ({@link TaskCrashes}); each stops a task's actor and rolls the job back to its
 * latest checkpoint. Besides the reference and the invariants, every rollback must be one a crash
 * caused, and every crash must cause one ({@link JobMetrics#rollbacks()} equals the crashes
 * injected: crashes are injected one at a time, never during a rollback, so none merge). A planned
 * crash whose moment does not come before the input ends never strikes.
 */
public final class RuntimeVerifier {
  /** The checkpoint interval for runs with crashes: several checkpoints per reconfiguration. */
  public static final Duration CHECKPOINT_INTERVAL = Duration.ofMillis(100);

  /**
   * Crashes during a checkpoint strike after fewer snapshots than this: the smallest runs'
   * checkpoints (a source and a keyed operator of one task each, plus a retired holder or two) have
   * about four, so every such crash can strike.
   */
  private static final int CRASH_SNAPSHOTS = 4;

  private final KoalaRuntime runtime;
  private final long records;
  private final double rate;
  private final Duration timeout;
  private final boolean crashes;

  /**
   * @param records input records per source
   * @param rate records per second per source, so the run lasts {@code records / rate} seconds
   * @param crashes whether to inject crashes; the runtime must take checkpoints ({@link
   *     #withCheckpoints})
   */
  public RuntimeVerifier(
      KoalaRuntime runtime, long records, double rate, Duration timeout, boolean crashes) {
    if (crashes && !runtime.config().checkpointing()) {
      throw new IllegalArgumentException(
          "crashes need checkpoints, and koala.checkpoint.interval is off: configure the runtime"
              + " with RuntimeVerifier.withCheckpoints");
    }
    this.runtime = runtime;
    this.records = records;
    this.rate = rate;
    this.timeout = timeout;
    this.crashes = crashes;
  }

  /**
   * {@code config} for runs with crashes: a checkpoint every {@link #CHECKPOINT_INTERVAL}, and a
   * restart backoff short enough for a run of a few seconds to roll back three times.
   */
  public static KoalaConfig withCheckpoints(KoalaConfig config) {
    return config
        .withCheckpointInterval(CHECKPOINT_INTERVAL)
        .withRestartBackoff(Duration.ofMillis(50));
  }

  /** A run in progress: submit several with {@link #start}, then {@link #finish} each. */
  public final class Run {
    final Workload workload;
    final long seed;
    final Schedule schedule;
    final JobHandle job;
    final JobHandle reference;
    long startNanos = -1; // when the job was first seen running: the schedule's time zero
    final List<CompletableFuture<ReconfigurationReport>> requests = new ArrayList<>();
    int next;

    Run(Workload w, long seed, int workers) {
      this.workload = w;
      this.seed = seed;
      this.schedule =
          Schedule.random(w, seed, workers, w.dataflow(Map.of(), 1, 1).plan().buckets());
      this.job = runtime.submit(w.dataflow(Map.of(), records, rate));
      this.reference = runtime.submit(w.dataflow(schedule.finalParallelism(), records, 0));
      if (crashes) {
        TaskCrashes.plan(
            job,
            seed,
            CrashPlans.random(
                seed,
                records / rate * 1000,
                CrashPlans.phases(EngineSettings.of(runtime.config()).protocol(), true),
                CRASH_SNAPSHOTS,
                new CrashPlans.Kinds<PlannedCrash>(
                    PlannedCrash.At::new,
                    PlannedCrash.InPhase::new,
                    PlannedCrash.InCheckpoint::new)));
      }
    }

    /** Makes the requests that are due; true once all have been made. */
    boolean advance() {
      if (startNanos < 0) {
        if (job.status() != JobStatus.RUNNING) {
          return job.status().isTerminal();
        }
        startNanos = System.nanoTime();
      }
      double elapsed = (System.nanoTime() - startNanos) / 1e9;
      double runSeconds = records / rate;
      while (next < schedule.steps().size()) {
        Schedule.Step s = schedule.steps().get(next);
        if (s.at() * runSeconds > elapsed) {
          return false;
        }
        if (!s.withPrevious() && next > 0 && !requests.get(next - 1).isDone()) {
          return false; // requested after the previous one completed
        }
        requests.add(request(job, s.change()).toCompletableFuture());
        next++;
      }
      return true;
    }
  }

  private static CompletionStage<ReconfigurationReport> request(JobHandle job, Change c) {
    if (c instanceof Change.Rescale r) {
      return job.rescale(r.operator(), r.parallelism(), r.policy());
    } else if (c instanceof Change.Rebalance r) {
      return job.rebalance(r.operator(), r.policy());
    } else if (c instanceof Change.Migrate m) {
      return job.migrate(m.operator(), m.task(), m.worker());
    }
    throw new IllegalArgumentException("unknown change " + c);
  }

  /** Submits {@code w}'s run and its reference run for {@code seed}. */
  public Run start(Workload w, long seed, int workers) {
    return new Run(w, seed, workers);
  }

  /** Drives the runs' schedules until every request has been made. */
  public void drive(List<Run> runs) {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean all = false;
    while (!all && System.nanoTime() < deadline) {
      all = true;
      for (Run r : runs) {
        all &= r.advance() || r.job.status().isTerminal();
      }
      if (!all) {
        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
      }
    }
  }

  /** Waits for the run and its reference to end and judges them. */
  public Outcome finish(Run r) {
    List<String> violations = new ArrayList<>();
    List<String> mismatches = new ArrayList<>();
    int late = 0;
    if (r.next < r.schedule.steps().size()) {
      if (r.job.status() == JobStatus.FINISHED) {
        late += r.schedule.steps().size() - r.next; // the job ended before they were due
      } else {
        violations.add(
            "only " + r.next + " of " + r.schedule.steps().size() + " requests were made in time");
      }
    }
    for (int i = 0; i < r.requests.size(); i++) {
      try {
        r.requests.get(i).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof ReconfigurationException re
            && re.reason() == ReconfigurationException.Reason.JOB_ENDING
            && r.job.status() != JobStatus.FAILED) {
          late++; // the input was read before the request: refused, as it should be
          continue;
        }
        violations.add("request " + r.schedule.steps().get(i) + " failed: " + e.getCause());
      } catch (TimeoutException e) {
        violations.add("request " + r.schedule.steps().get(i) + " did not complete");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    JobStatus status = awaitEnd(r.job, violations, "run");
    JobStatus refStatus = awaitEnd(r.reference, violations, "reference run");
    int completed = 0;
    List<String> injected = List.of();
    if (crashes) {
      injected = TaskCrashes.injected(r.job).stream().map(PlannedCrash.Injected::toString).toList();
    }
    JobMetrics metrics = r.job.metrics(); // the final ones, however the run ended
    int rollbacks = metrics.rollbacks();
    if (status == JobStatus.FINISHED && refStatus == JobStatus.FINISHED) {
      completed = metrics.reconfigurations().size();
      if (rollbacks != injected.size()) {
        violations.add(
            rollbacks
                + " rollbacks for "
                + injected.size()
                + " crashes injected (each crash must cause one, and nothing else any)");
      }
      violations.addAll(Invariants.check(metrics.tasks()));
      for (String sink : r.workload.sinks()) {
        mismatches.addAll(
            Outcome.compare(sink, r.job.collected(sink), r.reference.collected(sink), 5));
      }
    }
    return new Outcome(
        r.workload.name(),
        r.seed,
        r.schedule,
        mismatches,
        violations,
        completed,
        0,
        late,
        injected,
        rollbacks);
  }

  private JobStatus awaitEnd(JobHandle job, List<String> violations, String what) {
    try {
      return job.await(timeout);
    } catch (RuntimeException e) {
      violations.add(what + " did not finish: " + e.getMessage());
      job.close();
      return JobStatus.FAILED;
    }
  }
}
