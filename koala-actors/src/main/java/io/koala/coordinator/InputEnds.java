package io.koala.coordinator;

import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The coordinator's rule for the end of a bounded input: a source that has read all of it ({@link
 * EpochMessage.InputEnded}) may end ({@link EpochMessage.EndInput}) only while no reconfiguration
 * runs, and from the first such report on no reconfiguration starts, so an epoch never straddles
 * the end of a job. Pure.
 */
public final class InputEnds {
  private final List<TaskId> ended = new ArrayList<>();
  private final Set<TaskId> held = new LinkedHashSet<>();

  /** {@code source} has read all its input; it is held until {@link #release}. */
  public void ended(TaskId source) {
    if (!ended.contains(source)) {
      ended.add(source);
      held.add(source);
    }
  }

  /** Whether some source has read all its input: the job is finishing, nothing more starts. */
  public boolean finishing() {
    return !ended.isEmpty();
  }

  /** The first source that read all its input, or {@code null}. */
  public TaskId first() {
    return ended.isEmpty() ? null : ended.get(0);
  }

  /** No reconfiguration runs: the held sources, which may end now (they are no longer held). */
  public List<TaskId> release() {
    List<TaskId> out = new ArrayList<>(held);
    held.clear();
    return out;
  }
}
