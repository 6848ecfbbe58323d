package io.koala.runtime.internal;

import io.koala.plan.ExecutionPlan;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dataflow definitions known on this node, by job id. A dataflow's operators are code (user
 * functions), so they are never sent between nodes: every node that hosts a job's tasks defines the
 * same dataflow, and messages name the job. Thread-safe.
 */
public final class DataflowCatalog {
  private final Map<String, ExecutionPlan> plans = new ConcurrentHashMap<>();

  public void put(String jobId, ExecutionPlan plan) {
    plans.put(jobId, plan);
  }

  public Optional<ExecutionPlan> get(String jobId) {
    return Optional.ofNullable(plans.get(jobId));
  }

  public void remove(String jobId) {
    plans.remove(jobId);
  }
}
