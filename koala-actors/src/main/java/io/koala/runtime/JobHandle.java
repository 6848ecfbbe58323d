package io.koala.runtime;

import io.koala.KoalaException;
import io.koala.runtime.internal.RuntimeCore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A submitted job: its status, completion, metrics and collected results. Thread-safe; every method
 * that talks to the job's coordinator waits at most {@code koala.metrics-timeout} plus 5 s.
 */
public final class JobHandle implements AutoCloseable {
  private final RuntimeCore core;
  private final RuntimeCore.Submitted job;

  JobHandle(RuntimeCore core, RuntimeCore.Submitted job) {
    this.core = core;
    this.job = job;
  }

  public String id() {
    return job.jobId();
  }

  /** The job's status as last reported by its coordinator. */
  public JobStatus status() {
    return job.status().get();
  }

  /**
   * Completes with {@link JobStatus#FINISHED} or {@link JobStatus#CANCELLED}, or exceptionally with
   * a {@link JobFailedException}.
   */
  public CompletionStage<JobStatus> completion() {
    return job.completion().minimalCompletionStage();
  }

  /**
   * Waits for the job to end.
   *
   * @return {@link JobStatus#FINISHED} or {@link JobStatus#CANCELLED}
   * @throws JobFailedException when the job failed
   * @throws KoalaException when it has not ended within {@code timeout}
   */
  public JobStatus await(Duration timeout) {
    try {
      return job.completion().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof KoalaException k) {
        throw k;
      }
      throw new KoalaException("job " + id() + " failed", e.getCause());
    } catch (TimeoutException e) {
      throw new KoalaException("job " + id() + " did not end within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KoalaException("interrupted while waiting for job " + id(), e);
    }
  }

  /** Cancels the job; completes with its final status. */
  public CompletionStage<JobStatus> cancel() {
    return core.cancel(job);
  }

  /** A snapshot of every task's metrics (the final ones once the job has ended). */
  public JobMetrics metrics() {
    return join(core.metrics(job));
  }

  /** The values the collecting sink {@code sink} has received so far, in arrival order. */
  @SuppressWarnings("unchecked")
  public <T> List<T> collected(String sink) {
    return (List<T>) join(core.collected(job, sink));
  }

  private <R> R join(CompletionStage<R> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      throw new KoalaException("job " + id() + " did not answer: " + e.getCause(), e.getCause());
    }
  }

  /** Cancels the job if it is still running. */
  @Override
  public void close() {
    if (!status().isTerminal()) {
      join(cancel());
    }
  }

  @Override
  public String toString() {
    return "JobHandle(" + id() + ", " + status() + ")";
  }
}
