package io.koala.runtime;

import io.koala.KoalaException;
import io.koala.job.ErrorInfo;

/**
 * A job failed. The message names the task, the operator, the key being processed (if any) and the
 * cause; {@link #error()} carries the remote stack trace.
 */
public final class JobFailedException extends KoalaException {
  private static final long serialVersionUID = 1L;
  private final transient ErrorInfo error;

  public JobFailedException(String jobId, ErrorInfo error) {
    super("job " + jobId + " failed: " + error.describe(), new RemoteFailure(error));
    this.error = error;
  }

  /** What failed, where. */
  public ErrorInfo error() {
    return error;
  }

  /** The remote exception as a cause whose message is the remote stack trace. */
  static final class RemoteFailure extends KoalaException {
    private static final long serialVersionUID = 1L;

    RemoteFailure(ErrorInfo error) {
      super(error.stackTrace().strip());
      setStackTrace(new StackTraceElement[0]);
    }
  }
}
