package io.koala.runtime.internal;

import io.koala.job.JobStatus;
import io.koala.time.DurationText;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a closing runtime ends its jobs: first {@link #stop} — each running job stopped with a final
 * checkpoint ({@link JobClient#stop()}, all at once), so that submitting it again resumes where it
 * stopped — then {@link #cancel} whatever has not ended: a job not stopped in time, refused (no
 * checkpoints, finishing) or rolled back meanwhile resumes from its latest checkpoint instead.
 */
final class JobsAtClose {
  private static final Logger LOG = LoggerFactory.getLogger(JobsAtClose.class);

  private JobsAtClose() {}

  /**
   * Stops every running job of {@code jobs} with a final checkpoint, waiting up to {@code timeout}.
   */
  static void stop(List<JobClient> jobs, Duration timeout) {
    if (timeout.isZero()) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<JobClient, CompletableFuture<Object>> settled = new LinkedHashMap<>();
    for (JobClient job : jobs) {
      if (job.status().get().isTerminal()) {
        continue;
      }
      CompletableFuture<Object> over = new CompletableFuture<>(); // ended, or refused
      job.completion().whenComplete((status, e) -> over.complete(status));
      job.stop()
          .whenComplete(
              (checkpoint, refused) -> {
                if (refused != null && !job.status().get().isTerminal()) {
                  LOG.warn(
                      "job {}: not stopped with a final checkpoint, cancelled: {}",
                      job.jobId(),
                      refused.getMessage());
                  over.complete(refused);
                } else if (refused == null) {
                  LOG.info("job {}: stopping with checkpoint {}", job.jobId(), checkpoint);
                }
              });
      settled.put(job, over);
    }
    for (var e : settled.entrySet()) {
      long left = Math.max(0, deadline - System.nanoTime());
      try {
        e.getValue().get(left, TimeUnit.NANOSECONDS);
      } catch (TimeoutException late) {
        LOG.warn(
            "job {}: not stopped with a final checkpoint within {} (koala.close-timeout), cancelled:"
                + " submitted again, it resumes from its latest checkpoint",
            e.getKey().jobId(),
            DurationText.of(timeout));
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt(); // the jobs not stopped yet are cancelled
        return;
      } catch (ExecutionException cannotHappen) { // never completed so
        throw new IllegalStateException(cannotHappen);
      }
    }
  }

  /**
   * Cancels every job of {@code jobs} that has not ended, each given {@code askTimeout} to confirm:
   * whatever its coordinator answers, the job ends with the runtime.
   */
  static void cancel(List<JobClient> jobs, Duration askTimeout) {
    for (JobClient job : jobs) {
      try {
        job.cancel().toCompletableFuture().get(askTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        LOG.warn("job {} did not confirm its cancellation: {}", job.jobId(), e.toString());
      }
      if (job.completion().complete(JobStatus.CANCELLED)) {
        job.status().set(JobStatus.CANCELLED);
      }
    }
  }
}
