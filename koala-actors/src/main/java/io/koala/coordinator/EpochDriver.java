package io.koala.coordinator;

import io.koala.deploy.LiveDeployment;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.BucketMove;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.ReconfigurationProtocol;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.time.WatermarkTracker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * Runs one reconfiguration of an operator through the steps of DESIGN §6.1, as a pure state
 * machine: {@link #start()}, {@link #deployed()} and {@link #on} return the effects to carry out.
 * An operator without keyed input moves no buckets: its epoch deploys the new tasks, announces
 * their channels downstream, switches its upstream tasks' round-robin to the new set of tasks
 * (markers on every channel, the channels to removed tasks closed after them) and is done when
 * every task has consumed its markers; a removed task finishes the records queued before its
 * markers, then ends its output like a task whose input ended. A source has no upstream to switch:
 * its epoch deploys the new tasks (they read nothing yet) and announces their channels downstream;
 * every task of the source stops emitting watermarks and reads on until each split it will give up
 * has reached the watermark the task that gets it had emitted (a new task: none), so that none of
 * the split's records turns late there; the splits a task keeps need not wait; then every task it
 * had gives up the splits its new tasks read elsewhere, each with its position and watermark, and
 * sends a marker on every output channel (a removed task ends its output instead); once every
 * downstream task has consumed those markers (so the records of a moved split read before the move
 * are all processed before any read after it), every task of the source is assigned its splits and
 * reads again.
 *
 * <pre>
 *   DEPLOYING (new tasks) → PREPARING → CATCHING_UP → HANDING_OVER → SWITCHING → DRAINING → DONE
 *   a source: DEPLOYING → PREPARING → CATCHING_UP → SWITCHING (splits given up) → DRAINING
 *             → ASSIGNING → DONE
 * </pre>
 *
 * Preparing tells every task of the operator its part and every downstream task its new input
 * channels; catching up brings every sender's applied watermark to W*, the largest any task of the
 * operator had at prepare, while no receiver passes W* (W1); handing over moves ownership and opens
 * the peer channels; once every receiver has installed every hand-over, the upstream tasks switch
 * their routing; the epoch is done when every task of the operator has consumed its markers and
 * closed its peer channels. The deployment is then updated, and removed tasks stay as holders of
 * their state.
 */
public final class EpochDriver {

  /** What the coordinator must do. */
  public sealed interface Effect permits Deploy, Send, Done {}

  /** Create these tasks on these workers, then call {@link #deployed()}. */
  public record Deploy(List<TaskSetup> setups, Map<TaskId, Integer> placement) implements Effect {}

  /** Send {@code command} to {@code to}. */
  public record Send(TaskId to, EpochMessage.Command command) implements Effect {}

  /** The epoch is complete. */
  public record Done(EpochReport report) implements Effect {}

  /**
   * What an epoch changed.
   *
   * @param transferred state fetched by the operator's tasks between their prepare and their drain
   *     (lazy transfer goes on after the epoch)
   */
  public record EpochReport(
      long epoch,
      OperatorId operator,
      int[] movedBuckets,
      int[] tasksBefore,
      int[] tasksAfter,
      EpochMessage.Transfer transferred) {}

  /** Where the epoch is. */
  public enum Phase {
    /** Stop-and-restart: waiting for every source to stop reading. */
    PAUSING,
    DEPLOYING,
    PREPARING,
    CATCHING_UP,
    HANDING_OVER,
    SWITCHING,
    DRAINING,
    /** A source: its tasks are given their splits. */
    ASSIGNING,
    DONE
  }

  private final long epoch;
  private final Vertex target;
  private final ReconfigurationPlan plan;
  private final JobState state;
  private final ReconfigurationProtocol protocol;
  private final List<TaskId> sources = new ArrayList<>();
  private final EpochTopology topology;
  private final Map<TaskId, Long> receiverWatermarks = new HashMap<>();
  private final Set<TaskId> pending = new HashSet<>();
  private final Set<TaskId> connectedPending = new HashSet<>();
  private final Set<TaskId> drained = new HashSet<>();
  // a source: the splits that move
  private final List<EpochMessage.SplitMove> splitMoves = new ArrayList<>();
  private boolean assigned;
  private EpochMessage.Transfer transferred = EpochMessage.Transfer.NONE;
  private Phase phase;

  /**
   * @param placeNew the worker of a new task, by its index
   * @throws IllegalArgumentException when the operator cannot be reconfigured ({@link
   *     Vertex#checkReconfigurable})
   */
  EpochDriver(
      long epoch,
      OperatorId vertex,
      ReconfigurationPlan plan,
      JobState state,
      IntUnaryOperator placeNew,
      ReconfigurationProtocol protocol) {
    this.epoch = epoch;
    this.plan = plan;
    this.state = state;
    this.protocol = protocol;
    LiveDeployment deployment = state.deployment();
    if (protocol.pausesSources()) {
      for (Vertex v : deployment.plan().vertices()) {
        // a source being reconfigured reads on: its splits catch up before they move
        if (v.isSource() && !v.id().equals(vertex)) {
          sources.addAll(deployment.liveTaskIds(v.id()));
        }
      }
    }
    this.target = deployment.plan().vertex(vertex);
    target.checkReconfigurable();
    this.topology = EpochTopology.of(epoch, target, plan, deployment, placeNew);
    // the epoch's channels are its own from now on
    state.updateDeployment(d -> d.withChannelsFrom(topology.nextChannel()));
  }

  private TaskId task(int index) {
    return new TaskId(target.id(), index);
  }

  public Phase phase() {
    return phase;
  }

  public long epoch() {
    return epoch;
  }

  /** The operator being reconfigured. */
  public OperatorId operator() {
    return target.id();
  }

  /** The tasks whose report the current phase waits for, for diagnostics. */
  public List<TaskId> waitingFor() {
    Set<TaskId> w = new java.util.TreeSet<>(TASK_ORDER);
    if (phase == Phase.DRAINING) {
      w.addAll(topology.prepares().keySet());
      w.addAll(topology.downstreamMarkers().keySet());
      w.removeAll(drained);
    } else {
      w.addAll(pending);
      w.addAll(connectedPending);
    }
    return List.copyOf(w);
  }

  private static final java.util.Comparator<TaskId> TASK_ORDER =
      java.util.Comparator.comparing((TaskId t) -> t.operator().name())
          .thenComparingInt(TaskId::index);

  /** Starts the epoch (stop-and-restart: by pausing the sources). */
  public List<Effect> start() {
    if (!sources.isEmpty()) {
      phase = Phase.PAUSING;
      List<Effect> out = new ArrayList<>();
      for (TaskId t : sources) {
        out.add(new Send(t, new EpochMessage.PauseInput(epoch)));
        pending.add(t);
      }
      return out;
    }
    return deploy();
  }

  private List<Effect> deploy() {
    if (topology.newSetups().isEmpty()) {
      return prepare();
    }
    phase = Phase.DEPLOYING;
    state.updateDeployment(d -> d.withNewTasks(topology.newSetups(), topology.newPlacement()));
    return List.of(
        new Deploy(List.copyOf(topology.newSetups()), Map.copyOf(topology.newPlacement())));
  }

  /** The new tasks exist. */
  public List<Effect> deployed() {
    if (phase != Phase.DEPLOYING) {
      return List.of();
    }
    return prepare();
  }

  private List<Effect> prepare() {
    phase = Phase.PREPARING;
    List<Effect> out = new ArrayList<>();
    topology
        .prepares()
        .forEach(
            (t, p) -> {
              out.add(new Send(t, p));
              pending.add(t);
            });
    Set<TaskId> downstream = new LinkedHashSet<>(topology.downstreamInputs().keySet());
    downstream.addAll(topology.downstreamMarkers().keySet());
    for (TaskId d : downstream) {
      out.add(
          new Send(
              d,
              new EpochMessage.ExpectInputs(
                  epoch,
                  topology.downstreamInputs().getOrDefault(d, List.of()),
                  topology.downstreamMarkers().getOrDefault(d, List.of()))));
      pending.add(d);
    }
    return out;
  }

  /** A task reported progress. */
  public List<Effect> on(EpochMessage.Report report) {
    if (report.epoch() != epoch) {
      return List.of();
    }
    if (report instanceof EpochMessage.Drained d) {
      if (topology.prepares().containsKey(d.task()) && drained.add(d.task())) {
        transferred = transferred.plus(d.transfer());
      } else if (topology.downstreamMarkers().containsKey(d.task())) {
        drained.add(d.task());
      }
      return phase == Phase.DRAINING ? maybeDone() : List.of();
    }
    if (report instanceof EpochMessage.Connected) {
      connectedPending.remove(report.task());
      return phase == Phase.HANDING_OVER ? maybeSwitch() : List.of();
    }
    switch (phase) {
      case PAUSING -> {
        if (report instanceof EpochMessage.Paused
            && pending.remove(report.task())
            && pending.isEmpty()) {
          return deploy();
        }
      }
      case PREPARING -> {
        if (report instanceof EpochMessage.Prepared p && pending.remove(p.task())) {
          if (topology.prepares().containsKey(p.task())) {
            transferred = transferred.minus(p.transfer());
          }
          if (p.watermark() != WatermarkTracker.NONE) {
            receiverWatermarks.put(p.task(), p.watermark());
          }
          if (pending.isEmpty()) {
            return catchUp();
          }
        }
      }
      case CATCHING_UP -> {
        if (report instanceof EpochMessage.CaughtUp
            && pending.remove(report.task())
            && pending.isEmpty()) {
          return handOver();
        }
      }
      case HANDING_OVER -> {
        if (report instanceof EpochMessage.HandedOver) {
          pending.remove(report.task());
          return maybeSwitch();
        }
      }
      case SWITCHING -> {
        if (report instanceof EpochMessage.SplitsReleased r && pending.contains(r.task())) {
          splitMoves.addAll(r.moves());
        }
        if ((report instanceof EpochMessage.Switched
                || report instanceof EpochMessage.SplitsReleased)
            && pending.remove(report.task())
            && pending.isEmpty()) {
          phase = Phase.DRAINING;
          return maybeDone();
        }
      }
      case ASSIGNING -> {
        if (report instanceof EpochMessage.SplitsAssigned
            && pending.remove(report.task())
            && pending.isEmpty()) {
          assigned = true;
          return maybeDone();
        }
      }
      default -> {}
    }
    return List.of();
  }

  private List<Effect> catchUp() {
    if (target.isSource()) {
      return catchUpSplits();
    }
    int[] senders = plan.senders();
    if (senders.length == 0) {
      return handOver(); // nothing moves: only the routing (and markers) change
    }
    phase = Phase.CATCHING_UP;
    // W*: every sender reaches it, no receiver passes it before its hand-overs (W1). One value for
    // all, so a task that both gives and gets buckets can do both.
    long w = WatermarkTracker.NONE;
    for (TaskId t : topology.prepares().keySet()) {
      w = Math.max(w, receiverWatermarks.getOrDefault(t, WatermarkTracker.NONE));
    }
    List<Effect> out = new ArrayList<>();
    for (TaskId t : topology.prepares().keySet()) {
      out.add(new Send(t, new EpochMessage.CatchUp(epoch, w)));
    }
    for (int s : senders) {
      pending.add(task(s));
    }
    return out;
  }

  /**
   * A source: every task it had reads on until each split it will give up has reached the watermark
   * the split's next task emitted before it froze (a new task emitted none).
   */
  private List<Effect> catchUpSplits() {
    phase = Phase.CATCHING_UP;
    List<Integer> slots = boxed(plan.tasksAfter());
    List<Long> emitted = new ArrayList<>();
    for (int t : slots) {
      emitted.add(receiverWatermarks.getOrDefault(task(t), WatermarkTracker.NONE));
    }
    List<Effect> out = new ArrayList<>();
    for (int t : plan.tasksBefore()) {
      out.add(new Send(task(t), new EpochMessage.CatchUpSplits(epoch, slots, emitted)));
      pending.add(task(t));
    }
    return out;
  }

  private List<Effect> handOver() {
    phase = Phase.HANDING_OVER;
    List<Effect> out = new ArrayList<>();
    for (int s : plan.senders()) {
      out.add(new Send(task(s), new EpochMessage.HandOverBuckets(epoch, protocol.stateMove())));
      pending.add(task(s));
    }
    for (int r : plan.receivers()) {
      connectedPending.add(task(r));
    }
    return out.isEmpty() ? maybeSwitch() : out;
  }

  private List<Effect> maybeSwitch() {
    if (!pending.isEmpty() || !connectedPending.isEmpty()) {
      return List.of();
    }
    phase = Phase.SWITCHING;
    List<Effect> out = new ArrayList<>();
    if (target.isSource()) {
      for (int t : plan.tasksBefore()) {
        out.add(new Send(task(t), new EpochMessage.ReleaseSplits(epoch, boxed(plan.tasksAfter()))));
        pending.add(task(t));
      }
    }
    topology
        .switches()
        .forEach(
            (u, edges) -> {
              edges.forEach(
                  (edge, next) ->
                      out.add(new Send(u, new EpochMessage.SwitchRouting(epoch, edge, next))));
              pending.add(u);
            });
    return out;
  }

  private List<Effect> maybeDone() {
    if (!drained.containsAll(topology.prepares().keySet())
        || !drained.containsAll(topology.downstreamMarkers().keySet())) {
      return List.of();
    }
    if (target.isSource() && !assigned) {
      return assign();
    }
    phase = Phase.DONE;
    // the deployment as it now is
    LiveDeployment before = state.deployment();
    Map<TaskId, TaskSetup> changed = new LinkedHashMap<>();
    Function<TaskId, TaskSetup> current = t -> changed.getOrDefault(t, before.setup(t));
    topology
        .switches()
        .forEach(
            (u, edges) -> {
              List<OutputSpec> outputs = new ArrayList<>(current.apply(u).outputs());
              edges.forEach(outputs::set);
              changed.put(u, withOutputs(current.apply(u), outputs));
            });
    topology
        .downstreamInputs()
        .forEach(
            (d, inputs) -> {
              List<InputSpec> all = new ArrayList<>(current.apply(d).inputs());
              all.addAll(inputs);
              changed.put(d, withInputs(current.apply(d), all));
            });
    List<Integer> routing = target.isSource() ? boxed(plan.tasksAfter()) : plan.routingAfter();
    for (int t : plan.tasksAfter()) {
      TaskSetup s = current.apply(task(t));
      changed.put(
          s.task(),
          new TaskSetup(
              s.jobId(),
              s.task(),
              plan.tasksAfter().length,
              s.buckets(),
              s.inputs(),
              s.outputs(),
              routing,
              s.clientChannel(),
              s.settings()));
    }
    List<TaskId> removed = Arrays.stream(plan.removed()).mapToObj(this::task).toList();
    state.updateDeployment(d -> d.withSetups(changed.values()).withRetired(removed));
    LiveDeployment after = state.deployment();
    List<Effect> out = new ArrayList<>();
    for (TaskId t : sources) {
      if (!after.retired().contains(t)) {
        out.add(new Send(t, new EpochMessage.ResumeInput(epoch)));
      }
    }
    out.add(
        new Done(
            new EpochReport(
                epoch,
                target.id(),
                plan.moves().stream().mapToInt(BucketMove::bucket).toArray(),
                plan.tasksBefore(),
                plan.tasksAfter(),
                transferred)));
    return out;
  }

  /**
   * A source, once every downstream task consumed the markers after the splits given up: every task
   * of the source reads again, with the splits it kept and those it is given.
   */
  private List<Effect> assign() {
    phase = Phase.ASSIGNING;
    List<Effect> out = new ArrayList<>();
    for (int t : plan.tasksAfter()) {
      List<EpochMessage.SplitMove> mine = new ArrayList<>();
      for (EpochMessage.SplitMove m : splitMoves) {
        if (m.to() == t) {
          mine.add(m);
        }
      }
      out.add(
          new Send(task(t), new EpochMessage.AssignSplits(epoch, boxed(plan.tasksAfter()), mine)));
      pending.add(task(t));
    }
    return out;
  }

  static List<Integer> boxed(int[] tasks) {
    return Arrays.stream(tasks).boxed().toList();
  }

  private static TaskSetup withOutputs(TaskSetup s, List<OutputSpec> outputs) {
    return new TaskSetup(
        s.jobId(),
        s.task(),
        s.parallelism(),
        s.buckets(),
        s.inputs(),
        outputs,
        s.inputRouting(),
        s.clientChannel(),
        s.settings());
  }

  private static TaskSetup withInputs(TaskSetup s, List<InputSpec> inputs) {
    return new TaskSetup(
        s.jobId(),
        s.task(),
        s.parallelism(),
        s.buckets(),
        inputs,
        s.outputs(),
        s.inputRouting(),
        s.clientChannel(),
        s.settings());
  }
}
