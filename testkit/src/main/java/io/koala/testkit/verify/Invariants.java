package io.koala.testkit.verify;

import io.koala.job.TaskMetricsSnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** What must hold at the end of every run, whatever was reconfigured, from the tasks' metrics. */
public final class Invariants {
  private Invariants() {}

  /** The invariants that do not hold, described. */
  public static List<String> check(Collection<TaskMetricsSnapshot> tasks) {
    List<String> out = new ArrayList<>();
    long handedOver = sum(tasks, t -> t.reconfiguration().bucketsHandedOver());
    long takenOver = sum(tasks, t -> t.reconfiguration().bucketsTakenOver());
    if (handedOver != takenOver) {
      out.add(handedOver + " buckets handed over but " + takenOver + " taken over");
    }
    long late = sum(tasks, TaskMetricsSnapshot::lateRecords);
    if (late != 0) {
      out.add(late + " records dropped as late (a reconfiguration must not make records late)");
    }
    long parked = sum(tasks, t -> t.reconfiguration().parkedRecords());
    if (parked != 0) {
      out.add(parked + " records still parked at the end");
    }
    return out;
  }

  private static long sum(
      Collection<TaskMetricsSnapshot> tasks,
      java.util.function.ToLongFunction<TaskMetricsSnapshot> f) {
    long s = 0;
    for (TaskMetricsSnapshot t : tasks) {
      s += f.applyAsLong(t);
    }
    return s;
  }
}
