package io.koala.coordinator;

import io.koala.deploy.LiveDeployment;
import io.koala.keys.Draining;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.EpochMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The coordinator's side of forced full transfers (DESIGN §6.5, hazard C5): which retired tasks of
 * each operator still hold state some owner references, and when one may be terminated.
 *
 * <p>A task a reconfiguration retires becomes a <b>retiring holder</b>. After every epoch of an
 * operator with retiring holders, the set is published to each live task of the operator ({@link
 * EpochMessage.Retiring}, stamped with the epoch); each task drains what it references ({@link
 * Draining}) and reports the retiring holders it still references ({@link EpochMessage.References})
 * at once and whenever that changes. A holder is terminated when every live task's latest report
 * for the current publication leaves it out and it has finished (its outputs have delivered their
 * ends). Reports made before the publication, or while an epoch of the operator runs (a hand-over
 * may carry a reference from a task that reported to one that has not yet), never count. Pure.
 */
public final class Retirement {

  /** One operator's retiring holders and the reports for their current publication. */
  private static final class Operator {
    long publication = -1;
    boolean reconfiguring;
    final Set<Integer> retiring = new TreeSet<>();
    final Set<Integer> terminated = new HashSet<>();
    final Map<Integer, Set<Integer>> reports = new HashMap<>(); // task index → references
  }

  /** Send {@code command} to {@code task}. */
  public record Publish(TaskId task, EpochMessage.Retiring command) {}

  private final DrainSettings settings;
  private final Map<OperatorId, Operator> operators = new HashMap<>();
  private final Set<TaskId> finished = new HashSet<>();
  private final Set<TaskId> unreferencedUnfinished = new HashSet<>();

  public Retirement(DrainSettings settings) {
    this.settings = settings;
  }

  /**
   * An independent copy, as a checkpoint keeps it: the retiring holders of each operator and those
   * already terminated. Reports and the epochs running are not kept: after a rollback no epoch
   * runs, and {@link #republish} asks every owner again.
   */
  public Retirement copy() {
    Retirement r = new Retirement(settings);
    operators.forEach(
        (id, o) -> {
          Operator c = new Operator();
          c.publication = o.publication;
          c.retiring.addAll(o.retiring);
          c.terminated.addAll(o.terminated);
          r.operators.put(id, c);
        });
    r.finished.addAll(finished);
    r.unreferencedUnfinished.addAll(unreferencedUnfinished);
    return r;
  }

  /** One operator's retiring and terminated holders, as in {@link Image}. */
  public record OperatorImage(
      OperatorId operator, long publication, List<Integer> retiring, List<Integer> terminated)
      implements io.koala.protocol.KoalaMessage {
    public OperatorImage {
      retiring = new ArrayList<>(retiring);
      terminated = new ArrayList<>(terminated);
    }
  }

  /** What {@link #copy} keeps, as plain values for a checkpoint's durable metadata. */
  public record Image(
      List<OperatorImage> operators, List<TaskId> finished, List<TaskId> unreferencedUnfinished)
      implements io.koala.protocol.KoalaMessage {
    public Image {
      operators = new ArrayList<>(operators);
      finished = new ArrayList<>(finished);
      unreferencedUnfinished = new ArrayList<>(unreferencedUnfinished);
    }
  }

  /** This retirement's {@link Image}. */
  public Image image() {
    List<OperatorImage> ops = new ArrayList<>();
    operators.forEach(
        (id, o) ->
            ops.add(
                new OperatorImage(
                    id,
                    o.publication,
                    new ArrayList<>(o.retiring),
                    new ArrayList<>(o.terminated))));
    return new Image(ops, new ArrayList<>(finished), new ArrayList<>(unreferencedUnfinished));
  }

  /** The retirement {@code image} describes (as {@link #copy} would have made it). */
  public static Retirement restore(DrainSettings settings, Image image) {
    Retirement r = new Retirement(settings);
    for (OperatorImage o : image.operators()) {
      Operator c = new Operator();
      c.publication = o.publication();
      c.retiring.addAll(o.retiring());
      c.terminated.addAll(o.terminated());
      r.operators.put(o.operator(), c);
    }
    r.finished.addAll(image.finished());
    r.unreferencedUnfinished.addAll(image.unreferencedUnfinished());
    return r;
  }

  /**
   * After a rollback, publishes each operator's retiring holders again, stamped {@code epoch} (the
   * newest epoch number used), to its {@code live} tasks, so that their owners drain and report
   * anew.
   */
  public List<Publish> republish(
      long epoch, java.util.function.Function<OperatorId, List<TaskId>> live) {
    List<Publish> out = new ArrayList<>();
    operators.forEach(
        (id, o) -> {
          o.reports.clear();
          o.reconfiguring = false;
          if (o.retiring.isEmpty()) {
            return;
          }
          o.publication = epoch;
          EpochMessage.Retiring command =
              new EpochMessage.Retiring(epoch, new ArrayList<>(o.retiring), settings);
          for (TaskId t : live.apply(id)) {
            out.add(new Publish(t, command));
          }
        });
    return out;
  }

  /** An epoch of {@code operator} starts: no holder of it is terminated until it ends. */
  public void epochStarted(OperatorId operator) {
    Operator o = operators.computeIfAbsent(operator, k -> new Operator());
    o.reconfiguring = true;
    o.reports.clear();
  }

  /**
   * Epoch {@code epoch} of {@code operator} ended: adds the tasks retired so far ({@code retired},
   * of any operator; {@link LiveDeployment#retired}) to the retiring holders and publishes them to
   * every {@code live} task of the operator.
   */
  public List<Publish> epochEnded(
      OperatorId operator, long epoch, List<TaskId> retired, List<TaskId> live) {
    Operator o = operators.computeIfAbsent(operator, k -> new Operator());
    o.reconfiguring = false;
    o.reports.clear();
    for (TaskId t : retired) {
      if (t.operator().equals(operator) && !o.terminated.contains(t.index())) {
        o.retiring.add(t.index());
      }
    }
    if (o.retiring.isEmpty()) {
      return List.of();
    }
    o.publication = epoch;
    EpochMessage.Retiring command =
        new EpochMessage.Retiring(epoch, new ArrayList<>(o.retiring), settings);
    List<Publish> out = new ArrayList<>();
    for (TaskId t : live) {
      out.add(new Publish(t, command));
    }
    return out;
  }

  /**
   * A task has finished; returns it if it is a holder nobody references any more, which the caller
   * stops now.
   */
  public List<TaskId> taskFinished(TaskId task) {
    finished.add(task);
    return unreferencedUnfinished.remove(task) ? List.of(task) : List.of();
  }

  /**
   * A task's references; returns the holders no {@code live} task of its operator references any
   * more and that have finished, which the caller stops (the others follow from {@link
   * #taskFinished}; all are forgotten here).
   */
  public List<TaskId> on(EpochMessage.References r, List<TaskId> live) {
    OperatorId operator = r.task().operator();
    Operator o = operators.get(operator);
    if (o == null || o.reconfiguring || r.epoch() != o.publication) {
      return List.of();
    }
    o.reports.put(r.task().index(), Set.copyOf(r.holders()));
    for (TaskId t : live) {
      if (!o.reports.containsKey(t.index())) {
        return List.of();
      }
    }
    List<TaskId> done = new ArrayList<>();
    for (int h : o.retiring) {
      boolean referenced = false;
      for (TaskId t : live) {
        referenced |= o.reports.get(t.index()).contains(h);
      }
      if (!referenced) {
        done.add(new TaskId(operator, h));
      }
    }
    List<TaskId> stop = new ArrayList<>();
    for (TaskId t : done) {
      o.retiring.remove(t.index());
      o.terminated.add(t.index());
      if (finished.contains(t)) {
        stop.add(t);
      } else {
        unreferencedUnfinished.add(t); // its outputs are still delivering their last items
      }
    }
    return stop;
  }

  /** Whether {@code task} is a retired holder that no owner references any more. */
  public boolean unreferenced(TaskId task) {
    Operator o = operators.get(task.operator());
    return o != null && o.terminated.contains(task.index());
  }

  /** The retiring holders of {@code operator} not yet terminated. */
  public Set<Integer> retiring(OperatorId operator) {
    Operator o = operators.get(operator);
    return o == null ? Set.of() : Set.copyOf(o.retiring);
  }
}
