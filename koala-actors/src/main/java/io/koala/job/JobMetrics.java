package io.koala.job;

import io.koala.job.StatePlaneStats.Stall;
import io.koala.job.TaskMetricsSnapshot.OperatorCounts;
import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A snapshot of a job's metrics: one entry per task (tasks retired by a reconfiguration included,
 * {@link TaskMetricsSnapshot#RETIRED} while they hold state, then {@link
 * TaskMetricsSnapshot#RELEASED}: the newest 64 released, whose counts the operators' totals
 * include), a report for each of the newest completed reconfigurations (the last 64; {@code
 * reconfigurationsCompleted} counts them all), the worker each task runs on ({@code placement}: the
 * current tasks and the retired ones still holding state; {@link #parallelism} counts the current
 * ones), how many times the job has rolled back to a checkpoint (or to its start) since its
 * coordinator started ({@code rollbacks}; a coordinator that took over from another on a cluster
 * counts its takeover as one), its {@code checkpoints}, and the reconfiguration running now ({@code
 * reconfiguring}, null when none), and what the autoscaler found and did ({@code autoscaler};
 * {@link AutoscalerStatus#OFF} when the job is not autoscaled).
 *
 * <p>Tasks are named by the first operator of the chain they run ({@link
 * io.koala.plan.TaskId#operator()}): the helpers about tasks ({@link #tasksOf}, {@link
 * #batchLatency}, {@link #stalls}, ...) take that name. The record counts ({@link #recordsIn},
 * {@link #recordsOut}, {@link #recordsInPerSecond}, {@link #lateRecords}) are kept per operator,
 * and so answer for any operator of a chain, a chained sink included.
 */
public record JobMetrics(
    String jobId,
    JobStatus status,
    long atMillis,
    List<TaskMetricsSnapshot> tasks,
    List<ReconfigurationReport> reconfigurations,
    Map<TaskId, Integer> placement,
    int rollbacks,
    CheckpointStats checkpoints,
    ReconfigurationProgress reconfiguring,
    AutoscalerStatus autoscaler,
    int reconfigurationsCompleted) {

  public JobMetrics {
    java.util.Objects.requireNonNull(checkpoints, "checkpoints");
    java.util.Objects.requireNonNull(autoscaler, "autoscaler");
    tasks = List.copyOf(tasks);
    reconfigurations = List.copyOf(reconfigurations);
    placement = new LinkedHashMap<>(placement);
    if (reconfigurationsCompleted < reconfigurations.size()) {
      throw new IllegalArgumentException(
          reconfigurationsCompleted
              + " reconfigurations completed, fewer than the "
              + reconfigurations.size()
              + " reports");
    }
  }

  /** A snapshot whose reports are every reconfiguration completed. */
  public JobMetrics(
      String jobId,
      JobStatus status,
      long atMillis,
      List<TaskMetricsSnapshot> tasks,
      List<ReconfigurationReport> reconfigurations,
      Map<TaskId, Integer> placement,
      int rollbacks,
      CheckpointStats checkpoints,
      ReconfigurationProgress reconfiguring,
      AutoscalerStatus autoscaler) {
    this(
        jobId,
        status,
        atMillis,
        tasks,
        reconfigurations,
        placement,
        rollbacks,
        checkpoints,
        reconfiguring,
        autoscaler,
        reconfigurations.size());
  }

  /** A snapshot of a job that is not autoscaled ({@link AutoscalerStatus#OFF}). */
  public JobMetrics(
      String jobId,
      JobStatus status,
      long atMillis,
      List<TaskMetricsSnapshot> tasks,
      List<ReconfigurationReport> reconfigurations,
      Map<TaskId, Integer> placement,
      int rollbacks,
      CheckpointStats checkpoints,
      ReconfigurationProgress reconfiguring) {
    this(
        jobId,
        status,
        atMillis,
        tasks,
        reconfigurations,
        placement,
        rollbacks,
        checkpoints,
        reconfiguring,
        AutoscalerStatus.OFF);
  }

  /** The tasks of the current deployment that run on worker {@code worker}. */
  public List<TaskId> tasksOnWorker(int worker) {
    return placement.entrySet().stream()
        .filter(e -> e.getValue() == worker)
        .map(Map.Entry::getKey)
        .toList();
  }

  /**
   * Keys whose state tasks installed from other tasks, over the whole job: fetched on first access,
   * or drained from a retired task.
   */
  public long keysTransferred() {
    return tasks.stream()
        .mapToLong(t -> t.reconfiguration().keysFetched() + t.reconfiguration().keysDrained())
        .sum();
  }

  /** Keys drained from tasks a scale-in or migration retired, over the whole job. */
  public long keysDrained() {
    return tasks.stream().mapToLong(t -> t.reconfiguration().keysDrained()).sum();
  }

  /**
   * Retired tasks of {@code operator} that held state until every owner had drained it, and then
   * stopped (their last metrics stay here, with status {@link TaskMetricsSnapshot#RELEASED}).
   */
  public List<TaskId> releasedTasks(String operator) {
    return tasksOf(operator).stream()
        .filter(t -> t.status().equals(TaskMetricsSnapshot.RELEASED))
        .map(TaskMetricsSnapshot::task)
        .toList();
  }

  /** Bytes of state tasks installed from other tasks (fetched or drained), over the whole job. */
  public long stateBytesTransferred() {
    return tasks.stream().mapToLong(t -> t.reconfiguration().stateBytesFetched()).sum();
  }

  /** Fetch requests tasks sent, over the whole job. */
  public long fetchRequests() {
    return tasks.stream().mapToLong(t -> t.reconfiguration().fetchRequests()).sum();
  }

  /**
   * The tasks whose chain starts with {@code operator}, which their ids name; none for an operator
   * chained after another (its counts are in its head's tasks: {@link #recordsIn}).
   */
  public List<TaskMetricsSnapshot> tasksOf(String operator) {
    return tasks.stream().filter(t -> t.task().operator().name().equals(operator)).toList();
  }

  /**
   * How many tasks run {@code operator} now (the head of their chain, as {@link #tasksOf}): those
   * of the current deployment, not the retired ones still holding state; 0 for an operator chained
   * after another or not in the job.
   */
  public int parallelism(String operator) {
    return (int) tasksOf(operator).stream().filter(TaskMetricsSnapshot::current).count();
  }

  /**
   * The load of {@code operator}'s live tasks, from the decayed rates each keeps ({@link
   * OperatorLoad}): in total, per task and, for a keyed operator, per bucket. The live tasks are
   * those of the current deployment ({@link #placement}) not {@link TaskMetricsSnapshot#RELEASED};
   * of a keyed operator, only those that own buckets (a retired holder owns none). Empty (no tasks,
   * no buckets) for an operator chained after another or not in the job.
   */
  public OperatorLoad load(String operator) {
    List<TaskMetricsSnapshot> live =
        tasksOf(operator).stream()
            .filter(t -> placement.containsKey(t.task()))
            .filter(t -> !t.status().equals(TaskMetricsSnapshot.RELEASED))
            .filter(t -> t.bucketLoads().bucketCount() == 0 || t.bucketLoads().size() > 0)
            .sorted(Comparator.comparingInt(t -> t.task().index()))
            .toList();
    int buckets = live.stream().mapToInt(t -> t.bucketLoads().bucketCount()).max().orElse(0);
    double[] records = new double[buckets];
    double[] busy = new double[buckets];
    int[] owners = new int[buckets];
    Arrays.fill(owners, -1);
    double[] ownerRate = new double[buckets];
    List<OperatorLoad.TaskLoad> tasks = new ArrayList<>();
    double recordsPerSecond = 0;
    double busyFraction = 0;
    for (TaskMetricsSnapshot t : live) {
      tasks.add(
          new OperatorLoad.TaskLoad(
              t.task(), t.decayedRecordsInPerSecond(), t.busyFraction(), t.busyNanos()));
      recordsPerSecond += t.decayedRecordsInPerSecond();
      busyFraction += t.busyFraction();
      BucketLoads l = t.bucketLoads();
      for (int i = 0; i < l.size(); i++) {
        int b = l.bucket(i);
        records[b] += l.recordsPerSecond(i);
        busy[b] += l.busyFraction(i);
        if (owners[b] == -1 || l.recordsPerSecond(i) > ownerRate[b]) {
          owners[b] = t.task().index();
          ownerRate[b] = l.recordsPerSecond(i);
        }
      }
    }
    return new OperatorLoad(operator, recordsPerSecond, busyFraction, tasks, records, busy, owners);
  }

  /**
   * The names of the operators counted here, chained ones included, in the order tasks run them.
   */
  public List<String> operators() {
    return tasks.stream()
        .flatMap(t -> t.operators().stream())
        .map(o -> o.operator().name())
        .distinct()
        .toList();
  }

  /** The counts of {@code operator} in every task that runs it, at the head of its chain or not. */
  private Stream<OperatorCounts> countsOf(String operator) {
    return tasks.stream()
        .flatMap(t -> t.operators().stream())
        .filter(o -> o.operator().name().equals(operator));
  }

  /** Records {@code operator} was given (read, for a source), over its tasks. */
  public long recordsIn(String operator) {
    return countsOf(operator).mapToLong(OperatorCounts::recordsIn).sum();
  }

  /** Records per second {@code operator} was given over the last second, over its tasks. */
  public double recordsInPerSecond(String operator) {
    return countsOf(operator).mapToDouble(OperatorCounts::recordsInPerSecond).sum();
  }

  /** Records {@code operator} emitted on its main output, over its tasks. */
  public long recordsOut(String operator) {
    return countsOf(operator).mapToLong(OperatorCounts::recordsOut).sum();
  }

  /**
   * Records {@code operator} could not process and skipped, by the job's {@link
   * io.koala.function.RecordErrorPolicy}, over its tasks (see {@link
   * TaskMetricsSnapshot.OperatorCounts#recordsSkipped}).
   */
  public long recordsSkipped(String operator) {
    return countsOf(operator).mapToLong(OperatorCounts::recordsSkipped).sum();
  }

  /** Records {@code operator} dropped as too late, over its tasks. */
  public long lateRecords(String operator) {
    return countsOf(operator).mapToLong(OperatorCounts::lateRecords).sum();
  }

  /** Per-batch processing time of the tasks of {@code operator}, in nanoseconds. */
  public LatencyHistogram batchLatency(String operator) {
    return LatencyHistogram.sum(
        tasksOf(operator).stream().map(TaskMetricsSnapshot::batchLatency).toList());
  }

  /**
   * Time the tasks of {@code operator} were stalled with work queued, by reason, in nanoseconds,
   * summed over the tasks.
   */
  public Map<Stall, Long> stalls(String operator) {
    Map<Stall, Long> out = new EnumMap<>(Stall.class);
    for (Stall reason : Stall.values()) {
      out.put(
          reason,
          tasksOf(operator).stream().mapToLong(t -> t.statePlane().stallNanos(reason)).sum());
    }
    return out;
  }

  /**
   * Round trips of the fetches the tasks of {@code operator} sent, from sending a request to
   * running its reply, in nanoseconds, over every holder.
   */
  public LatencyHistogram fetchRoundTrips(String operator) {
    return LatencyHistogram.sum(
        tasksOf(operator).stream()
            .flatMap(t -> t.statePlane().fetchRoundTrips().values().stream())
            .toList());
  }

  /** Records available at the sources but not yet read. */
  public long sourceLagRecords() {
    return tasks.stream().mapToLong(TaskMetricsSnapshot::lagRecords).sum();
  }

  /** Age of the oldest unread record at any source, in seconds. */
  public double sourceLagSeconds() {
    return tasks.stream().mapToDouble(TaskMetricsSnapshot::lagSeconds).max().orElse(0);
  }

  /** Bytes of state in every task's store. */
  public long stateBytes() {
    return tasks.stream().mapToLong(TaskMetricsSnapshot::stateBytes).sum();
  }

  /** State entries in every task's store. */
  public long stateEntries() {
    return tasks.stream().mapToLong(TaskMetricsSnapshot::stateEntries).sum();
  }
}
