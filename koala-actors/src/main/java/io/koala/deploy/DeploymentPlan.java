package io.koala.deploy;

import io.koala.plan.ExecutionPlan;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.ExecutionPlan.VertexOutput;
import io.koala.plan.Partitioning;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.routing.RoutingTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The first deployment of a job, computed purely from its execution plan: one {@link TaskSetup} per
 * task with numbered channels (one per sender task, receiver task and edge), the initial even
 * routing of every keyed edge, and the placement of tasks on workers (round-robin in topological
 * order, so the tasks of each operator spread over the workers).
 */
public record DeploymentPlan(Map<TaskId, TaskSetup> setups, Map<TaskId, Integer> placement) {

  public DeploymentPlan {
    setups = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(setups));
    placement = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(placement));
  }

  /** Plans the deployment of {@code plan} on {@code workers} workers. */
  public static DeploymentPlan of(
      String jobId, ExecutionPlan plan, int workers, ChannelSettings settings) {
    int buckets = plan.logical().buckets();
    Map<TaskId, List<InputSpec>> inputs = new LinkedHashMap<>();
    Map<TaskId, List<OutputSpec>> outputs = new LinkedHashMap<>();
    Map<TaskId, Integer> placement = new LinkedHashMap<>();
    int nextChannel = 0;
    int nextWorker = 0;
    for (Vertex v : plan.vertices()) {
      for (TaskId t : v.tasks()) {
        inputs.put(t, new ArrayList<>());
        outputs.put(t, new ArrayList<>());
        placement.put(t, nextWorker++ % workers);
      }
    }
    for (Vertex v : plan.vertices()) {
      for (VertexOutput out : v.outputs()) {
        Vertex to = plan.vertex(out.to());
        List<Integer> routing =
            out.partitioning() == Partitioning.KEYED
                ? toList(RoutingTable.even(buckets, to.parallelism()).toArray())
                : List.of();
        for (TaskId sender : v.tasks()) {
          List<TaskId> targets =
              out.partitioning() == Partitioning.FORWARD
                  ? List.of(new TaskId(to.id(), sender.index()))
                  : to.tasks();
          List<Integer> channels = new ArrayList<>();
          for (TaskId target : targets) {
            int channel = nextChannel++;
            channels.add(channel);
            inputs.get(target).add(new InputSpec(channel, sender, out.inputIndex()));
          }
          outputs
              .get(sender)
              .add(
                  new OutputSpec(out.partitioning(), channels, targets, routing, out.sideOutput()));
        }
      }
    }
    Map<TaskId, TaskSetup> setups = new LinkedHashMap<>();
    for (Vertex v : plan.vertices()) {
      List<Integer> inputRouting =
          v.isKeyed() ? toList(RoutingTable.even(buckets, v.parallelism()).toArray()) : List.of();
      for (TaskId t : v.tasks()) {
        setups.put(
            t,
            new TaskSetup(
                jobId,
                t,
                v.parallelism(),
                buckets,
                inputs.get(t),
                outputs.get(t),
                inputRouting,
                nextChannel++,
                settings));
      }
    }
    return new DeploymentPlan(setups, placement);
  }

  /** The setups of the tasks placed on {@code worker}. */
  public List<TaskSetup> tasksOn(int worker) {
    List<TaskSetup> out = new ArrayList<>();
    placement.forEach(
        (task, w) -> {
          if (w == worker) {
            out.add(setups.get(task));
          }
        });
    return out;
  }

  private static List<Integer> toList(int[] a) {
    List<Integer> out = new ArrayList<>(a.length);
    for (int x : a) {
      out.add(x);
    }
    return out;
  }
}
