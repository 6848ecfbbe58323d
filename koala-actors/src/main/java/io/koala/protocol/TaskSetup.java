package io.koala.protocol;

import io.koala.plan.Partitioning;
import io.koala.plan.TaskId;
import java.util.List;

/**
 * What a task needs to know about its place in the deployment: its channels, routing and settings.
 * Sent by the coordinator to the worker that hosts the task; the operators themselves come from the
 * dataflow definition the node already has.
 *
 * @param inputRouting for a task reading keyed input: bucket → index of the owning task; for a task
 *     of a source that a reconfiguration changed: the index of the task at each slot of the
 *     source's splits ({@link io.koala.connector.SourceSpec#slotOf}; empty: slot i is task i); else
 *     empty
 * @param clientChannel channel id for results sent to the job's client
 */
public record TaskSetup(
    String jobId,
    TaskId task,
    int parallelism,
    int buckets,
    List<InputSpec> inputs,
    List<OutputSpec> outputs,
    List<Integer> inputRouting,
    int clientChannel,
    ChannelSettings settings)
    implements KoalaMessage {

  public TaskSetup {
    inputs = List.copyOf(inputs);
    outputs = List.copyOf(outputs);
    inputRouting = List.copyOf(inputRouting);
  }

  /** This setup in job {@code id}: a checkpoint of one job restored as another's. */
  public TaskSetup withJobId(String id) {
    return new TaskSetup(
        id, task, parallelism, buckets, inputs, outputs, inputRouting, clientChannel, settings);
  }

  /** An input channel: from task {@code from} into input edge {@code input} of this task's head. */
  public record InputSpec(int channel, TaskId from, int input) implements KoalaMessage {}

  /**
   * An output edge: channel {@code channels[i]} leads to {@code targets[i]}, the task of index i of
   * the next vertex; a keyed edge carries its routing table (bucket → target index); {@code
   * sideOutput} names the side output it carries, or is null for the main output.
   */
  public record OutputSpec(
      Partitioning partitioning,
      List<Integer> channels,
      List<TaskId> targets,
      List<Integer> routing,
      String sideOutput)
      implements KoalaMessage {
    public OutputSpec {
      channels = List.copyOf(channels);
      targets = List.copyOf(targets);
      routing = List.copyOf(routing);
      if (channels.size() != targets.size()) {
        throw new IllegalArgumentException("one channel per target");
      }
    }
  }
}
