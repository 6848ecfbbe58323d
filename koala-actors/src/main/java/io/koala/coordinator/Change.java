package io.koala.coordinator;

import io.koala.deploy.LiveDeployment;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;
import io.koala.routing.PartitionPolicy;
import java.util.Arrays;

/**
 * A requested change of how an operator is partitioned, named as the user wrote it, turned into a
 * {@link ReconfigurationPlan} against the deployment at the time its epoch starts.
 */
public sealed interface Change extends KoalaMessage
    permits Change.Rescale, Change.Rebalance, Change.Migrate {

  String operator();

  /** {@code rescale}, {@code rebalance} or {@code migrate}. */
  String kind();

  /**
   * The change as a plan against {@code deployment} as it is now.
   *
   * @throws IllegalArgumentException when it cannot apply to that deployment
   */
  ReconfigurationPlan plan(LiveDeployment deployment, OperatorId vertex);

  /** The worker for new task {@code index}, or -1 to let the coordinator spread them. */
  default int workerOf(int index) {
    return -1;
  }

  /**
   * Checks what does not depend on the deployment at the time the epoch starts, and returns the
   * vertex to reconfigure ({@code operator}, which must head its tasks' chain).
   *
   * @param workers the workers new tasks may be placed on (a lost one is refused as a target)
   * @throws IllegalArgumentException naming what is wrong
   */
  static OperatorId check(Change c, ExecutionPlan plan, LiveDeployment live, WorkerPool workers) {
    OperatorId op = new OperatorId(c.operator());
    ExecutionPlan.Vertex v = plan.vertexOf(op);
    if (!v.id().equals(op)) {
      throw new IllegalArgumentException(
          "operator '"
              + op
              + "' runs chained in the tasks of '"
              + v.id()
              + "'; reconfigure '"
              + v.id()
              + "' instead");
    }
    v.checkReconfigurable();
    if (c instanceof Rebalance && !v.isKeyed()) {
      throw new IllegalArgumentException(
          "operator '"
              + op
              + "' reads no keyed input, so it owns no buckets to rebalance; rescale or migrate it"
              + " instead");
    }
    int buckets = live.setup(live.liveTaskIds(v.id()).get(0)).buckets();
    if (c instanceof Rescale r && (r.parallelism() < 1 || r.parallelism() > buckets)) {
      throw new IllegalArgumentException(
          "parallelism " + r.parallelism() + " for '" + op + "' is outside [1, " + buckets + "]");
    }
    if (c instanceof Rescale r
        && v.isSource()
        && r.parallelism() > v.head().source().maxParallelism()) {
      throw new IllegalArgumentException(
          "parallelism "
              + r.parallelism()
              + " for source '"
              + op
              + "' is above the "
              + v.head().source().maxParallelism()
              + " tasks that can have something to read (SourceSpec.maxParallelism)");
    }
    if (c instanceof Migrate mg) {
      workers.checkTarget(mg.worker());
    }
    if (c instanceof Rescale r && r.onto() >= 0) {
      workers.checkTarget(r.onto());
    }
    return v.id();
  }

  /** Whether a newer change of the same operator may replace this one while it waits. */
  default boolean coalesces() {
    return true;
  }

  /**
   * Run {@code operator} with {@code parallelism} tasks, buckets placed by {@code policy}; the new
   * tasks go to worker {@code onto}, or with -1 are spread by the coordinator.
   */
  record Rescale(String operator, int parallelism, PartitionPolicy policy, int onto)
      implements Change {

    /** A rescale whose new tasks the coordinator spreads over the workers. */
    public Rescale(String operator, int parallelism, PartitionPolicy policy) {
      this(operator, parallelism, policy, -1);
    }

    @Override
    public String kind() {
      return "rescale";
    }

    @Override
    public int workerOf(int index) {
      return onto;
    }

    @Override
    public ReconfigurationPlan plan(LiveDeployment d, OperatorId v) {
      return ReconfigurationPlan.rescale(
          d.routing(v), d.liveTasks(v), parallelism, d.highestIndex(v), policy);
    }
  }

  /** Keep {@code operator}'s tasks, and give them buckets by {@code policy}. */
  record Rebalance(String operator, PartitionPolicy policy) implements Change {
    @Override
    public String kind() {
      return "rebalance";
    }

    @Override
    public ReconfigurationPlan plan(LiveDeployment d, OperatorId v) {
      int[] live = d.liveTasks(v);
      return ReconfigurationPlan.of(d.routing(v), live, live, policy);
    }
  }

  /** Move task {@code task} of {@code operator} to worker {@code worker}, state and all. */
  record Migrate(String operator, int task, int worker) implements Change {
    @Override
    public String kind() {
      return "migrate";
    }

    @Override
    public ReconfigurationPlan plan(LiveDeployment d, OperatorId v) {
      int[] live = d.liveTasks(v);
      if (Arrays.binarySearch(live, task) < 0) {
        throw new IllegalArgumentException(
            "operator '"
                + operator
                + "' has no live task "
                + task
                + "; its live tasks are "
                + Arrays.toString(live));
      }
      return ReconfigurationPlan.migrate(d.routing(v), live, task, d.highestIndex(v));
    }

    @Override
    public int workerOf(int index) {
      return worker;
    }

    /** The task it moves. */
    public TaskId taskId() {
      return new TaskId(new OperatorId(operator), task);
    }

    @Override
    public boolean coalesces() {
      return false;
    }
  }
}
