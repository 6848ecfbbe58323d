package io.koala.coordinator;

import io.koala.autoscaler.LoadSample;
import io.koala.deploy.LiveDeployment;
import io.koala.job.JobMetrics;
import io.koala.job.OperatorLoad;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.ExecutionPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the autoscaler sees of a job ({@link LoadSample}), from its metrics snapshot and its live
 * deployment: each vertex in topological order with its inputs, live tasks, routing table, task
 * counters and measured bucket loads (busy time where measured, else records).
 */
final class LoadSamples {
  private LoadSamples() {}

  static LoadSample of(
      ExecutionPlan plan, LiveDeployment live, JobMetrics metrics, boolean reconfiguring) {
    List<LoadSample.Vertex> vertices = new ArrayList<>();
    for (ExecutionPlan.Vertex v : plan.vertices()) { // topological order
      String name = v.id().name();
      List<String> inputs = v.inputs().stream().map(i -> i.from().name()).toList();
      List<LoadSample.Task> tasks = new ArrayList<>();
      for (TaskMetricsSnapshot t : metrics.tasksOf(name)) {
        tasks.add(
            new LoadSample.Task(
                t.task().index(), t.recordsIn(), t.recordsOut(), t.busyNanos(), t.lagRecords()));
      }
      double[] loads = null;
      if (v.isKeyed()) {
        OperatorLoad load = metrics.load(name);
        loads = load.bucketBusyFraction();
        if (Arrays.stream(loads).sum() <= 0) {
          loads = load.bucketRecordsPerSecond();
        }
        if (loads.length != live.routing(v.id()).buckets()) {
          loads = null; // no task reported its buckets yet
        }
      }
      vertices.add(
          new LoadSample.Vertex(
              name,
              inputs,
              v.isSource(),
              v.isKeyed(),
              live.liveTasks(v.id()),
              tasks,
              v.isKeyed() ? live.routing(v.id()) : null,
              loads,
              v.whyNotReconfigurable(),
              v.isSource() ? v.head().source().maxParallelism() : Integer.MAX_VALUE));
    }
    return new LoadSample(metrics.atMillis(), reconfiguring, vertices);
  }
}
