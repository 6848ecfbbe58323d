package io.koala.coordinator;

import io.koala.job.ReconfigurationProgress;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.OperatorId;
import java.util.List;
import java.util.Set;

/**
 * Estimates the running reconfiguration's remaining work and time from successive metrics
 * snapshots: the work left is the state its operator's retiring holders still hold, and during
 * {@link EpochDriver.Phase#DRAINING} the time left is that state over the rate at which it shrank
 * since the previous snapshot of the same epoch. Deterministic (the caller gives the time), not
 * thread-safe: the coordinator owns one.
 */
final class ProgressEstimator {
  private long sampledEpoch = -1;
  private long sampledMillis;
  private long sampledBytes;

  /**
   * The progress of epoch {@code epoch} of {@code operator} at {@code nowMillis}, whose metrics are
   * {@code tasks} and whose retiring holders are the tasks of {@code operator} with an index in
   * {@code retiring}.
   */
  ReconfigurationProgress estimate(
      String change,
      OperatorId operator,
      long epoch,
      EpochDriver.Phase phase,
      long startedMillis,
      int queued,
      Set<Integer> retiring,
      List<TaskMetricsSnapshot> tasks,
      long nowMillis) {
    long holderBytes = 0;
    for (TaskMetricsSnapshot t : tasks) {
      if (t.task().operator().equals(operator) && retiring.contains(t.task().index())) {
        holderBytes += t.stateBytes();
      }
    }
    double eta = Double.NaN;
    if (phase == EpochDriver.Phase.DRAINING) {
      if (holderBytes == 0) {
        eta = 0;
      } else if (sampledEpoch == epoch && nowMillis > sampledMillis && sampledBytes > holderBytes) {
        double bytesPerMilli = (sampledBytes - holderBytes) / (double) (nowMillis - sampledMillis);
        eta = holderBytes / bytesPerMilli / 1000.0;
      }
    }
    sampledEpoch = epoch;
    sampledMillis = nowMillis;
    sampledBytes = holderBytes;
    return new ReconfigurationProgress(
        change, operator.name(), epoch, phase.name(), startedMillis, queued, holderBytes, eta);
  }
}
