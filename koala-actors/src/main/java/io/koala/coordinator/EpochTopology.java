package io.koala.coordinator;

import io.koala.deploy.LiveDeployment;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.ExecutionPlan.VertexInput;
import io.koala.plan.ExecutionPlan.VertexOutput;
import io.koala.plan.OperatorId;
import io.koala.plan.Partitioning;
import io.koala.plan.TaskId;
import io.koala.protocol.BucketMove;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.EpochMessage.Peer;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import io.koala.protocol.TaskSetup.OutputSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;

/**
 * The channels, new tasks and commands of one epoch (DESIGN §6.1), worked out once, before it
 * starts, from the deployment and the {@link ReconfigurationPlan}: the new tasks' setups and
 * workers (an input channel from every upstream task, outputs to every downstream task), the
 * upstream tasks' outputs after the switch, one peer channel per (sender, receiver) of moved
 * buckets, each task's {@link EpochMessage.PrepareTarget} with the markers it awaits, and the
 * downstream tasks' new inputs and awaited markers. A value: {@link EpochDriver} runs the phases
 * over it.
 *
 * @param newSetups the tasks the epoch adds
 * @param newPlacement the worker of each new task
 * @param prepares each task of the operator, kept, added or removed, and its part
 * @param downstreamInputs the downstream tasks' new input channels (from the new tasks)
 * @param switches the upstream tasks' outputs after the switch, by output edge
 * @param downstreamMarkers a source: the downstream tasks and the channels on which they await a
 *     marker from its tasks
 * @param nextChannel the first channel id after those the epoch takes (from the deployment's next
 *     free one on)
 */
record EpochTopology(
    List<TaskSetup> newSetups,
    Map<TaskId, Integer> newPlacement,
    Map<TaskId, EpochMessage.PrepareTarget> prepares,
    Map<TaskId, List<InputSpec>> downstreamInputs,
    Map<TaskId, Map<Integer, OutputSpec>> switches,
    Map<TaskId, List<Integer>> downstreamMarkers,
    int nextChannel) {

  /**
   * The topology of epoch {@code epoch} of {@code target} under {@code plan}, from {@code
   * deployment} as it is before the epoch (fresh channel ids from its next free one); {@code
   * placeNew} places a new task by its index.
   */
  static EpochTopology of(
      long epoch,
      Vertex target,
      ReconfigurationPlan plan,
      LiveDeployment deployment,
      IntUnaryOperator placeNew) {
    List<TaskSetup> newSetups = new ArrayList<>();
    Map<TaskId, Integer> newPlacement = new LinkedHashMap<>();
    Map<TaskId, EpochMessage.PrepareTarget> prepares = new LinkedHashMap<>();
    Map<TaskId, List<InputSpec>> downstreamInputs = new LinkedHashMap<>();
    Map<TaskId, Map<Integer, OutputSpec>> switches = new LinkedHashMap<>();
    Map<TaskId, List<Integer>> downstreamMarkers = new LinkedHashMap<>();
    IntFunction<TaskId> task = i -> new TaskId(target.id(), i);
    int[] nextChannel = {deployment.nextChannel()};
    IntSupplier newChannel = () -> nextChannel[0]++;
    TaskSetup template = deployment.setup(deployment.liveTaskIds(target.id()).get(0));
    int[] added = plan.added();
    // channels from every upstream task into each new task, per input edge
    Map<TaskId, Map<Integer, Map<TaskId, Integer>>> newUpstreamChannels = new HashMap<>();
    Map<TaskId, List<InputSpec>> newInputs = new HashMap<>();
    for (int n : added) {
      newInputs.put(task.apply(n), new ArrayList<>());
    }
    for (VertexInput vi : target.inputs()) {
      Vertex up = deployment.plan().vertex(vi.from());
      int edge = outputEdgeInto(up, target.id(), vi.index());
      for (TaskId u : deployment.liveTaskIds(up.id())) {
        for (int n : added) {
          int c = newChannel.getAsInt();
          newInputs.get(task.apply(n)).add(new InputSpec(c, u, vi.index()));
          newUpstreamChannels
              .computeIfAbsent(u, k -> new HashMap<>())
              .computeIfAbsent(edge, k -> new HashMap<>())
              .put(task.apply(n), c);
        }
      }
      for (TaskId u : deployment.liveTaskIds(up.id())) {
        OutputSpec current = deployment.setup(u).outputs().get(edge);
        List<Integer> channels = new ArrayList<>();
        List<TaskId> targets = new ArrayList<>();
        for (int t : plan.tasksAfter()) {
          int i = current.targets().indexOf(task.apply(t));
          channels.add(
              i >= 0
                  ? current.channels().get(i)
                  : newUpstreamChannels.get(u).get(edge).get(task.apply(t)));
          targets.add(task.apply(t));
        }
        List<Integer> routing = plan.routingAfter();
        switches
            .computeIfAbsent(u, k -> new LinkedHashMap<>())
            .put(
                edge,
                new OutputSpec(
                    current.partitioning(), channels, targets, routing, current.sideOutput()));
      }
    }
    // new tasks: their outputs to every downstream task (on a forward edge, to one downstream task
    // whose own forward input is still open, spreading them), and those tasks' new inputs
    for (int a = 0; a < added.length; a++) {
      int n = added[a];
      List<OutputSpec> outputs = new ArrayList<>();
      for (int k = 0; k < target.outputs().size(); k++) {
        VertexOutput out = target.outputs().get(k);
        OutputSpec like = template.outputs().get(k);
        List<Integer> channels = new ArrayList<>();
        List<TaskId> targets = new ArrayList<>();
        List<TaskId> downstream = deployment.liveTaskIds(out.to());
        if (out.partitioning() == Partitioning.FORWARD) {
          List<TaskId> partners = new ArrayList<>();
          for (int t : plan.tasksBefore()) {
            partners.add(deployment.setup(task.apply(t)).outputs().get(k).targets().get(0));
          }
          downstream = List.of(partners.get(a % partners.size()));
        }
        for (TaskId d : downstream) {
          int c = newChannel.getAsInt();
          channels.add(c);
          targets.add(d);
          downstreamInputs
              .computeIfAbsent(d, x -> new ArrayList<>())
              .add(new InputSpec(c, task.apply(n), out.inputIndex()));
        }
        outputs.add(
            new OutputSpec(
                like.partitioning(), channels, targets, like.routing(), like.sideOutput()));
      }
      TaskSetup setup =
          new TaskSetup(
              template.jobId(),
              task.apply(n),
              plan.tasksAfter().length,
              template.buckets(),
              newInputs.get(task.apply(n)),
              outputs,
              target.isSource() ? EpochDriver.boxed(plan.tasksBefore()) : template.inputRouting(),
              newChannel.getAsInt(),
              template.settings());
      newSetups.add(setup);
      newPlacement.put(task.apply(n), placeNew.applyAsInt(n));
    }
    // a source: every downstream task awaits a marker on each channel from the source's tasks
    if (target.isSource()) {
      for (int t : plan.tasksBefore()) {
        for (OutputSpec out : deployment.setup(task.apply(t)).outputs()) {
          for (int i = 0; i < out.channels().size(); i++) {
            downstreamMarkers
                .computeIfAbsent(out.targets().get(i), x -> new ArrayList<>())
                .add(out.channels().get(i));
          }
        }
      }
    }
    // peer channels, one per (sender, receiver)
    Map<Integer, List<Peer>> peersOut = new HashMap<>();
    Map<Integer, List<Peer>> peersIn = new HashMap<>();
    Set<List<Integer>> pairs = new HashSet<>();
    for (BucketMove m : plan.moves()) {
      if (pairs.add(List.of(m.from(), m.to()))) {
        int c = newChannel.getAsInt();
        peersOut
            .computeIfAbsent(m.from(), x -> new ArrayList<>())
            .add(new Peer(c, task.apply(m.to())));
        peersIn
            .computeIfAbsent(m.to(), x -> new ArrayList<>())
            .add(new Peer(c, task.apply(m.from())));
      }
    }
    Set<Integer> everyone = new java.util.TreeSet<>();
    for (int t : plan.tasksBefore()) {
      everyone.add(t);
    }
    for (int t : added) {
      everyone.add(t);
    }
    for (int t : everyone) {
      boolean existing = Arrays.stream(plan.tasksBefore()).anyMatch(x -> x == t);
      List<Integer> markers = new ArrayList<>();
      if (existing) {
        for (InputSpec in : deployment.setup(task.apply(t)).inputs()) {
          markers.add(in.channel());
        }
      }
      prepares.put(
          task.apply(t),
          new EpochMessage.PrepareTarget(
              epoch,
              plan.movesFrom(t),
              plan.movesTo(t),
              peersOut.getOrDefault(t, List.of()),
              peersIn.getOrDefault(t, List.of()),
              markers,
              Arrays.stream(plan.removed()).anyMatch(x -> x == t)));
    }
    return new EpochTopology(
        newSetups,
        newPlacement,
        prepares,
        downstreamInputs,
        switches,
        downstreamMarkers,
        nextChannel[0]);
  }

  private static int outputEdgeInto(Vertex up, OperatorId target, int inputIndex) {
    for (int j = 0; j < up.outputs().size(); j++) {
      VertexOutput o = up.outputs().get(j);
      if (o.to().equals(target) && o.inputIndex() == inputIndex) {
        return j;
      }
    }
    throw new IllegalStateException("no edge from " + up.id() + " into input " + inputIndex);
  }
}
