package io.koala.upgrade;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether a checkpoint's state can be restored into a dataflow: compares the signature the
 * checkpoint recorded with the new dataflow's and lists every change that would lose or misread
 * state. Allowed: operators added, stateless operators added or removed, sinks changed, the
 * parallelism of anything but a source changed, chains rearranged. Refused, each with its own
 * problem: an operator with state missing from the new dataflow (unless the caller allows its state
 * to be dropped), an operator that no longer keeps keyed state, a changed declared key class, a
 * changed number of buckets while keyed state is kept, a source whose parallelism changed, and a
 * name allowed to be dropped that has no state to drop. (Whether each state's values can be read by
 * the new classes is decided when the operator declares it.)
 */
public final class UpgradeCheck {
  private UpgradeCheck() {}

  /**
   * The problems of restoring a checkpoint of {@code stored} into {@code next}; empty when there
   * are none.
   *
   * @param droppable operators whose state may be left behind when the new dataflow has no operator
   *     of that name with that kind of state
   */
  public static List<String> problems(
      PlanSignature stored, PlanSignature next, Set<String> droppable) {
    List<String> problems = new ArrayList<>();
    List<String> keptKeyed = new ArrayList<>();
    for (PlanSignature.Operator old : stored.operators()) {
      if (!old.hasState()) {
        continue;
      }
      Optional<PlanSignature.Operator> found = next.operator(old.uid());
      String lost = found.isEmpty() ? "is not in the new dataflow" : whatIsLost(old, found.get());
      if (lost != null) {
        if (!droppable.contains(old.uid())) {
          problems.add(
              (old.isSource() ? "source " : "operator ")
                  + old.label()
                  + " "
                  + lost
                  + ": its "
                  + (old.isSource() ? "read positions" : "keyed state")
                  + " in the checkpoint would be lost; allow dropping it with"
                  + " SubmitOptions.allowDroppingState(\""
                  + old.uid()
                  + "\")");
        }
        continue;
      }
      PlanSignature.Operator now = found.get();
      if (droppable.contains(old.uid())) {
        problems.add(
            "operator "
                + old.label()
                + " is allowed to drop its state, but the new dataflow keeps it: its state is"
                + " restored; remove it from allowDroppingState");
      }
      if (old.isSource() && old.parallelism() != now.parallelism()) {
        problems.add(
            "source "
                + old.label()
                + ": its parallelism changed from "
                + old.parallelism()
                + " to "
                + now.parallelism()
                + "; a source's read positions are kept per task, so a restored source keeps its"
                + " parallelism");
      }
      if (old.keyedState()) {
        keptKeyed.add(old.uid());
        if (old.keyType() != null
            && now.keyType() != null
            && !old.keyType().equals(now.keyType())) {
          problems.add(
              "operator "
                  + old.label()
                  + ": its keys were "
                  + old.keyType()
                  + " and are now "
                  + now.keyType()
                  + "; state kept under keys of one class is not found under keys of another");
        }
      }
    }
    if (!keptKeyed.isEmpty() && stored.buckets() != next.buckets()) {
      problems.add(
          "the dataflow's buckets changed from "
              + stored.buckets()
              + " to "
              + next.buckets()
              + " (DataflowBuilder.buckets): the keyed state of "
              + quoted(keptKeyed)
              + " is split by bucket, so the number of buckets must stay "
              + stored.buckets());
    }
    Set<String> unknown = new TreeSet<>(droppable);
    unknown.removeAll(stored.withState());
    if (!unknown.isEmpty()) {
      problems.add(
          "allowDroppingState names "
              + quoted(List.copyOf(unknown))
              + ", of which the checkpoint holds no state (operators with state: "
              + (stored.withState().isEmpty() ? "none" : quoted(stored.withState()))
              + ")");
    }
    return problems;
  }

  /** What of {@code old}'s state {@code now} cannot take, or null when it takes it all. */
  private static String whatIsLost(PlanSignature.Operator old, PlanSignature.Operator now) {
    if (old.isSource() && !now.isSource()) {
      return "is no longer a source";
    }
    if (old.keyedState() && !now.keyedState()) {
      return "no longer keeps keyed state";
    }
    return null;
  }

  private static String quoted(List<String> names) {
    return "'" + String.join("', '", names) + "'";
  }
}
