package io.koala.coordinator;

import io.koala.deploy.LiveDeployment;
import io.koala.keys.Draining;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.EpochMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
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
 *
 * <p>An immutable value: each event gives the retirement after it ({@link Changed} when the caller
 * also has something to do), so that a checkpoint keeps a retirement as it is ({@link #kept}) and a
 * rollback goes on from it.
 */
public final class Retirement {

  /**
   * One operator's retiring holders and the reports for their current publication ({@code reports}:
   * a live task's index → the holders it references).
   */
  private record Operator(
      long publication,
      boolean reconfiguring,
      SortedSet<Integer> retiring,
      Set<Integer> terminated,
      Map<Integer, Set<Integer>> reports) {
    static final Operator NONE = new Operator(-1, false, new TreeSet<>(), Set.of(), Map.of());

    Operator {
      retiring = Collections.unmodifiableSortedSet(new TreeSet<>(retiring));
      terminated = Collections.unmodifiableSet(new HashSet<>(terminated));
      reports = Collections.unmodifiableMap(new HashMap<>(reports));
      for (int h : retiring) {
        if (terminated.contains(h)) {
          throw new IllegalStateException("holder " + h + " is both retiring and terminated");
        }
      }
    }

    Operator withReports(boolean reconfiguring, Map<Integer, Set<Integer>> reports) {
      return new Operator(publication, reconfiguring, retiring, terminated, reports);
    }
  }

  /** Send {@code command} to {@code task}. */
  public record Publish(TaskId task, EpochMessage.Retiring command) {}

  /**
   * What an event changed: the retirement after it, and what the caller does ({@code out}: the
   * commands to publish, or the holders to stop).
   */
  public record Changed<T>(Retirement next, T out) {}

  private final DrainSettings settings;
  private final Map<OperatorId, Operator> operators;
  private final Set<TaskId> finished;
  private final Set<TaskId> unreferencedUnfinished;

  /** No retiring holder. */
  public Retirement(DrainSettings settings) {
    this(settings, Map.of(), Set.of(), Set.of());
  }

  private Retirement(
      DrainSettings settings,
      Map<OperatorId, Operator> operators,
      Set<TaskId> finished,
      Set<TaskId> unreferencedUnfinished) {
    this.settings = settings;
    this.operators = Collections.unmodifiableMap(new LinkedHashMap<>(operators));
    this.finished = Collections.unmodifiableSet(new HashSet<>(finished));
    this.unreferencedUnfinished =
        Collections.unmodifiableSet(new HashSet<>(unreferencedUnfinished));
    for (TaskId t : this.unreferencedUnfinished) {
      Operator o = this.operators.get(t.operator());
      if (o == null || !o.terminated().contains(t.index()) || this.finished.contains(t)) {
        throw new IllegalStateException(
            "holder " + t + " waits to finish but is not terminated, or has finished");
      }
    }
  }

  private Retirement with(OperatorId id, Operator o) {
    Map<OperatorId, Operator> next = new LinkedHashMap<>(operators);
    next.put(id, o);
    return new Retirement(settings, next, finished, unreferencedUnfinished);
  }

  private Operator operator(OperatorId id) {
    return operators.getOrDefault(id, Operator.NONE);
  }

  /**
   * This retirement as a checkpoint keeps it: the retiring holders of each operator and those
   * already terminated. Reports and the epochs running are not kept: after a rollback no epoch
   * runs, and {@link #republish} asks every owner again.
   */
  public Retirement kept() {
    Map<OperatorId, Operator> next = new LinkedHashMap<>();
    operators.forEach((id, o) -> next.put(id, o.withReports(false, Map.of())));
    return new Retirement(settings, next, finished, unreferencedUnfinished);
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

  /** What {@link #kept} keeps, as plain values for a checkpoint's durable metadata. */
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
                    o.publication(),
                    new ArrayList<>(o.retiring()),
                    new ArrayList<>(o.terminated()))));
    return new Image(ops, new ArrayList<>(finished), new ArrayList<>(unreferencedUnfinished));
  }

  /** The retirement {@code image} describes (as {@link #kept} would have made it). */
  public static Retirement restore(DrainSettings settings, Image image) {
    Map<OperatorId, Operator> operators = new LinkedHashMap<>();
    for (OperatorImage o : image.operators()) {
      operators.put(
          o.operator(),
          new Operator(
              o.publication(),
              false,
              new TreeSet<>(o.retiring()),
              new HashSet<>(o.terminated()),
              Map.of()));
    }
    return new Retirement(
        settings,
        operators,
        new HashSet<>(image.finished()),
        new HashSet<>(image.unreferencedUnfinished()));
  }

  /**
   * After a rollback, publishes each operator's retiring holders again, stamped {@code epoch} (the
   * newest epoch number used), to its {@code live} tasks, so that their owners drain and report
   * anew.
   */
  public Changed<List<Publish>> republish(
      long epoch, java.util.function.Function<OperatorId, List<TaskId>> live) {
    List<Publish> out = new ArrayList<>();
    Map<OperatorId, Operator> next = new LinkedHashMap<>();
    operators.forEach(
        (id, o) -> {
          if (o.retiring().isEmpty()) {
            next.put(id, o.withReports(false, Map.of()));
            return;
          }
          next.put(id, new Operator(epoch, false, o.retiring(), o.terminated(), Map.of()));
          EpochMessage.Retiring command =
              new EpochMessage.Retiring(epoch, new ArrayList<>(o.retiring()), settings);
          for (TaskId t : live.apply(id)) {
            out.add(new Publish(t, command));
          }
        });
    return new Changed<>(new Retirement(settings, next, finished, unreferencedUnfinished), out);
  }

  /** An epoch of {@code operator} starts: no holder of it is terminated until it ends. */
  public Retirement epochStarted(OperatorId operator) {
    return with(operator, operator(operator).withReports(true, Map.of()));
  }

  /**
   * Epoch {@code epoch} of {@code operator} ended: adds the tasks retired so far ({@code retired},
   * of any operator; {@link LiveDeployment#retired}) to the retiring holders and publishes them to
   * every {@code live} task of the operator.
   */
  public Changed<List<Publish>> epochEnded(
      OperatorId operator, long epoch, List<TaskId> retired, List<TaskId> live) {
    Operator o = operator(operator);
    SortedSet<Integer> retiring = new TreeSet<>(o.retiring());
    for (TaskId t : retired) {
      if (t.operator().equals(operator) && !o.terminated().contains(t.index())) {
        retiring.add(t.index());
      }
    }
    if (retiring.isEmpty()) {
      return new Changed<>(with(operator, o.withReports(false, Map.of())), List.of());
    }
    Retirement next =
        with(operator, new Operator(epoch, false, retiring, o.terminated(), Map.of()));
    EpochMessage.Retiring command =
        new EpochMessage.Retiring(epoch, new ArrayList<>(retiring), settings);
    List<Publish> out = new ArrayList<>();
    for (TaskId t : live) {
      out.add(new Publish(t, command));
    }
    return new Changed<>(next, out);
  }

  /**
   * A task has finished; gives it if it is a holder nobody references any more, which the caller
   * stops now.
   */
  public Changed<List<TaskId>> taskFinished(TaskId task) {
    Set<TaskId> nextFinished = new HashSet<>(finished);
    nextFinished.add(task);
    Set<TaskId> waiting = new HashSet<>(unreferencedUnfinished);
    boolean stop = waiting.remove(task);
    return new Changed<>(
        new Retirement(settings, operators, nextFinished, waiting),
        stop ? List.of(task) : List.of());
  }

  /**
   * A task's references; gives the holders no {@code live} task of its operator references any more
   * and that have finished, which the caller stops (the others follow from {@link #taskFinished};
   * all are forgotten here).
   */
  public Changed<List<TaskId>> on(EpochMessage.References r, List<TaskId> live) {
    OperatorId operator = r.task().operator();
    Operator o = operators.get(operator);
    if (o == null || o.reconfiguring() || r.epoch() != o.publication()) {
      return new Changed<>(this, List.of());
    }
    Map<Integer, Set<Integer>> reports = new HashMap<>(o.reports());
    reports.put(r.task().index(), Set.copyOf(r.holders()));
    for (TaskId t : live) {
      if (!reports.containsKey(t.index())) {
        return new Changed<>(with(operator, o.withReports(false, reports)), List.of());
      }
    }
    SortedSet<Integer> retiring = new TreeSet<>(o.retiring());
    Set<Integer> terminated = new HashSet<>(o.terminated());
    Set<TaskId> waiting = new HashSet<>(unreferencedUnfinished);
    List<TaskId> stop = new ArrayList<>();
    for (int h : o.retiring()) {
      boolean referenced = false;
      for (TaskId t : live) {
        referenced |= reports.get(t.index()).contains(h);
      }
      if (!referenced) {
        TaskId holder = new TaskId(operator, h);
        retiring.remove(h);
        terminated.add(h);
        if (finished.contains(holder)) {
          stop.add(holder);
        } else {
          waiting.add(holder); // its outputs are still delivering their last items
        }
      }
    }
    Map<OperatorId, Operator> next = new LinkedHashMap<>(operators);
    next.put(operator, new Operator(o.publication(), false, retiring, terminated, reports));
    return new Changed<>(new Retirement(settings, next, finished, waiting), stop);
  }

  /** Whether {@code task} is a retired holder that no owner references any more. */
  public boolean unreferenced(TaskId task) {
    Operator o = operators.get(task.operator());
    return o != null && o.terminated().contains(task.index());
  }

  /** The retiring holders of {@code operator} not yet terminated. */
  public Set<Integer> retiring(OperatorId operator) {
    Operator o = operators.get(operator);
    return o == null ? Set.of() : Set.copyOf(o.retiring());
  }
}
