package io.koala.autoscaler;

import io.koala.routing.RoutingTable;
import java.util.List;
import java.util.Objects;

/**
 * What the autoscaler sees of a job at one instant: every vertex (a chain of operators, named by
 * its first) in topological order, with its tasks' cumulative counters.
 *
 * @param atMillis when the tasks were asked
 * @param reconfiguring whether a reconfiguration runs now (its counters do not describe a steady
 *     state, so nothing is decided from it)
 */
public record LoadSample(long atMillis, boolean reconfiguring, List<Vertex> vertices) {
  public LoadSample {
    vertices = List.copyOf(vertices);
  }

  /**
   * One vertex.
   *
   * @param operator the name of its first operator
   * @param inputs the vertices it reads from, one entry per input edge
   * @param source whether it reads from outside the job
   * @param keyed whether it reads keyed input (so it owns buckets and can be rebalanced)
   * @param liveTasks its live task indices
   * @param tasks the counters of its tasks, live and retired
   * @param routing its bucket → task table, or null when not keyed
   * @param bucketLoads the measured load of each bucket (busy time, or records, per second), or
   *     null when not keyed or not measured
   * @param fixed why it keeps its parallelism (it cannot be rescaled live), or null when it can be
   * @param maxParallelism the most tasks it can use (a source: as many as have something to read,
   *     {@link io.koala.connector.SourceSpec#maxParallelism}), else {@link Integer#MAX_VALUE}
   */
  public record Vertex(
      String operator,
      List<String> inputs,
      boolean source,
      boolean keyed,
      int[] liveTasks,
      List<Task> tasks,
      RoutingTable routing,
      double[] bucketLoads,
      String fixed,
      int maxParallelism) {
    public Vertex {
      Objects.requireNonNull(operator, "operator");
      inputs = List.copyOf(inputs);
      liveTasks = liveTasks.clone();
      java.util.Arrays.sort(liveTasks);
      tasks = List.copyOf(tasks);
      bucketLoads = bucketLoads == null ? null : bucketLoads.clone();
    }
  }

  /**
   * The cumulative counters of one task.
   *
   * @param index its index
   * @param recordsIn records its chain's head was given (read, for a source)
   * @param recordsOut records its chain's last operator emitted on its main output
   * @param busyNanos time it spent processing (with an emulated capacity, the time that capacity
   *     charges)
   * @param lagRecords for a source task: records available but not yet read
   */
  public record Task(int index, long recordsIn, long recordsOut, long busyNanos, long lagRecords) {}
}
