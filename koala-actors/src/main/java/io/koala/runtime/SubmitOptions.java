package io.koala.runtime;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link KoalaRuntime#submit(io.koala.dataflow.Dataflow, SubmitOptions)} starts a job.
 * Immutable.
 *
 * <pre>{@code
 * // resume from a checkpoint copied from another machine's koala.checkpoint.directory
 * runtime.submit(dataflow, SubmitOptions.restoreFrom(Path.of("/backup/orders-1/chk-42")));
 * }</pre>
 */
public final class SubmitOptions {
  private static final SubmitOptions DEFAULTS = new SubmitOptions(null);

  private final Path restoreFrom;

  private SubmitOptions(Path restoreFrom) {
    this.restoreFrom = restoreFrom;
  }

  /** Start the job afresh, or from its own journaled checkpoints (see {@code submit}). */
  public static SubmitOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Start the job from the completed checkpoint in {@code checkpointDirectory}: a {@code
   * <job>/chk-<id>} directory of a {@code koala.checkpoint.directory}, holding the checkpoint's
   * {@code _metadata} and its snapshot files (a snapshot a retired holder shares with an older
   * checkpoint is read where the metadata says, else from this directory). The checkpoint must be
   * of a job with the same id ({@code <dataflow name>-<submission number>}) and the same dataflow;
   * the runtime must take checkpoints ({@code koala.checkpoint.interval}). The job fails at start
   * if the checkpoint cannot be restored; it never silently starts over. The directory is only
   * read: the job's own checkpoints go to its runtime's checkpoint directory.
   */
  public static SubmitOptions restoreFrom(Path checkpointDirectory) {
    return new SubmitOptions(
        Objects.requireNonNull(checkpointDirectory, "checkpointDirectory").toAbsolutePath());
  }

  /** The checkpoint directory to start from, if any. */
  public Optional<Path> restoreFrom() {
    return Optional.ofNullable(restoreFrom);
  }

  @Override
  public String toString() {
    return "SubmitOptions(restoreFrom=" + restoreFrom + ")";
  }
}
