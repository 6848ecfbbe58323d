package io.koala.runtime;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * How {@link KoalaRuntime#submit(io.koala.dataflow.Dataflow, SubmitOptions)} starts a job.
 * Immutable; each {@code with...} method returns a copy.
 *
 * <pre>{@code
 * // version 2 of the job, from the savepoint version 1 stopped with; version 2 no longer has
 * // the operator "fraud-score", whose state is left behind
 * runtime.submit(
 *     ordersV2,
 *     SubmitOptions.restoreFrom(Path.of("/savepoints/orders-v1"))
 *         .withJobId("orders")
 *         .allowDroppingState("fraud-score"));
 * }</pre>
 */
public final class SubmitOptions {
  private static final SubmitOptions DEFAULTS = new SubmitOptions(null, null, Set.of());

  private final Path restoreFrom;
  private final String jobId;
  private final Set<String> droppable;

  private SubmitOptions(Path restoreFrom, String jobId, Set<String> droppable) {
    this.restoreFrom = restoreFrom;
    this.jobId = jobId;
    this.droppable = Collections.unmodifiableSet(new LinkedHashSet<>(droppable));
  }

  /** Start the job afresh, or from its own journaled checkpoints (see {@code submit}). */
  public static SubmitOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Start the job from the completed checkpoint or savepoint in {@code checkpointDirectory}: a
   * {@code <job>/chk-<id>} directory of a {@code koala.checkpoint.directory}, or a savepoint's
   * directory, holding the checkpoint's {@code _metadata} and its snapshot files (a snapshot that
   * is not where the metadata says is read from this directory). The checkpoint may be of any job
   * and of another version of the dataflow: before anything deploys, {@code submit} checks that its
   * state can be carried over and fails listing every problem (docs/upgrades.md). The runtime must
   * take checkpoints ({@code koala.checkpoint.interval}). The job fails at start if a snapshot
   * cannot be read; it never silently starts over. The directory is only read: the job's own
   * checkpoints go to its runtime's checkpoint directory.
   */
  public static SubmitOptions restoreFrom(Path checkpointDirectory) {
    return DEFAULTS.withRestoreFrom(checkpointDirectory);
  }

  /** These options, restoring from {@code checkpointDirectory} (see {@link #restoreFrom(Path)}). */
  public SubmitOptions withRestoreFrom(Path checkpointDirectory) {
    return new SubmitOptions(
        Objects.requireNonNull(checkpointDirectory, "checkpointDirectory").toAbsolutePath(),
        jobId,
        droppable);
  }

  /**
   * These options, running the job under {@code id} instead of {@code <dataflow name>-<submission
   * number>}: a stable id, under which a runtime restarted on the same checkpoint directory and
   * journal resumes the job from its own latest checkpoint. Letters, digits, '.', '_' and '-'. On a
   * node of a cluster a job's id is its dataflow's name, and this option is refused.
   */
  public SubmitOptions withJobId(String id) {
    Objects.requireNonNull(id, "id");
    if (!id.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,127}")) {
      throw new ConfigurationException(
          "job id '" + id + "' is not valid: 1 to 128 letters, digits, '.', '_' or '-'");
    }
    return new SubmitOptions(restoreFrom, id, droppable);
  }

  /**
   * These options, allowing the restore to leave behind the state that {@code operators} had in the
   * checkpoint when the new dataflow has no operator of that uid keeping such state (an operator's
   * uid is its name unless {@code Stage.uid} sets it). Without it, such a restore is refused.
   */
  public SubmitOptions allowDroppingState(String... operators) {
    Set<String> all = new LinkedHashSet<>(droppable);
    for (String o : operators) {
      all.add(Objects.requireNonNull(o, "operator"));
    }
    return new SubmitOptions(restoreFrom, jobId, all);
  }

  /** The checkpoint directory to start from, if any. */
  public Optional<Path> restoreFrom() {
    return Optional.ofNullable(restoreFrom);
  }

  /** The job id asked for, if any. */
  public Optional<String> jobId() {
    return Optional.ofNullable(jobId);
  }

  /** The operators whose state a restore may leave behind. */
  public Set<String> droppableState() {
    return droppable;
  }

  @Override
  public String toString() {
    return "SubmitOptions(restoreFrom="
        + restoreFrom
        + (jobId == null ? "" : ", jobId=" + jobId)
        + (droppable.isEmpty() ? "" : ", allowDroppingState=" + List.copyOf(droppable))
        + ")";
  }
}
