package io.koala.testkit;

import io.koala.runtime.JobHandle;
import java.util.ArrayList;
import java.util.List;

/** The jobs a test submitted through an extension, cancelled after the test. Thread-safe. */
final class SubmittedJobs {
  private final List<JobHandle> jobs = new ArrayList<>();

  /** Keeps {@code job} to cancel after the current test; returns it. */
  synchronized JobHandle add(JobHandle job) {
    jobs.add(job);
    return job;
  }

  /** Cancels every job kept (a finished one is left as it is) and forgets them. */
  synchronized void closeAll() {
    for (JobHandle job : jobs) {
      job.close();
    }
    jobs.clear();
  }
}
