package io.koala.bench.experiment;

import io.koala.job.JobMetrics;
import io.koala.job.LatencyHistogram;
import io.koala.job.StatePlaneStats;
import io.koala.job.StatePlaneStats.Stall;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the target operator's tasks spent their time while they waited, and what the state plane
 * cost them, in two windows: the seconds before the rescale over which the throughput before is
 * taken, and from the rescale until the recovery (the window of the lowest throughput). Times are
 * summed over the tasks, so four tasks stalled for a whole second count 4,000 ms.
 *
 * @param stallMsBefore per stall reason ({@link Stall#label()}), ms stalled before the rescale
 * @param stallMsDuring the same from the rescale until the recovery
 * @param holdMsDuring ms during which a task held records until a sender's peer marker (§6.6); it
 *     overlaps the stalls
 * @param fetchRoundTripMsP50 the median time from sending a fetch to running its reply, during
 * @param fetchRoundTripMsP99 its 99th percentile
 * @param fetches fetch requests answered during the window
 * @param releasesSent keys released at their former holders over the whole run
 * @param releaseMessagesSent the messages those keys went out in
 * @param releasesApplied copies deleted at former holders over the whole run
 * @param releaseApplyMs time former holders spent deleting them
 */
public record StatePlaneSummary(
    Map<String, Double> stallMsBefore,
    Map<String, Double> stallMsDuring,
    double holdMsDuring,
    double fetchRoundTripMsP50,
    double fetchRoundTripMsP99,
    long fetches,
    long releasesSent,
    long releaseMessagesSent,
    long releasesApplied,
    double releaseApplyMs) {

  public StatePlaneSummary {
    stallMsBefore = new LinkedHashMap<>(stallMsBefore);
    stallMsDuring = new LinkedHashMap<>(stallMsDuring);
  }

  /**
   * The summary of {@code target}'s tasks: stalls between {@code before} and {@code rescale}, the
   * rest between {@code rescale} and {@code recovered}, releases until {@code end}.
   */
  static StatePlaneSummary of(
      String target, JobMetrics before, JobMetrics rescale, JobMetrics recovered, JobMetrics end) {
    Map<TaskId, StatePlaneStats> atBefore = byTask(target, before);
    Map<TaskId, StatePlaneStats> atRescale = byTask(target, rescale);
    Map<TaskId, StatePlaneStats> atRecovery = byTask(target, recovered);
    List<LatencyHistogram> windows = new ArrayList<>();
    long holdNanos = 0;
    for (Map.Entry<TaskId, StatePlaneStats> t : atRecovery.entrySet()) {
      StatePlaneStats from = atRescale.getOrDefault(t.getKey(), StatePlaneStats.NONE);
      holdNanos += t.getValue().holdNanos() - from.holdNanos();
      for (int holder : t.getValue().fetchRoundTrips().keySet()) {
        windows.add(t.getValue().fetchRoundTrips(holder).minus(from.fetchRoundTrips(holder)));
      }
    }
    LatencyHistogram trips = LatencyHistogram.sum(windows);
    long sent = 0;
    long messages = 0;
    long applied = 0;
    long applyNanos = 0;
    for (StatePlaneStats sp : byTask(target, end).values()) {
      sent += sp.releasesSent();
      messages += sp.releaseMessagesSent();
      applied += sp.releasesApplied();
      applyNanos += sp.releaseApplyNanos();
    }
    return new StatePlaneSummary(
        stalls(atBefore, atRescale),
        stalls(atRescale, atRecovery),
        millis(holdNanos),
        millis(trips.percentile(50)),
        millis(trips.percentile(99)),
        trips.count(),
        sent,
        messages,
        applied,
        millis(applyNanos));
  }

  /** Per reason, the stall time the tasks in {@code to} added since {@code from}, in ms. */
  private static Map<String, Double> stalls(
      Map<TaskId, StatePlaneStats> from, Map<TaskId, StatePlaneStats> to) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (Stall reason : Stall.values()) {
      long nanos = 0;
      for (Map.Entry<TaskId, StatePlaneStats> t : to.entrySet()) {
        StatePlaneStats earlier = from.getOrDefault(t.getKey(), StatePlaneStats.NONE);
        nanos += t.getValue().stallNanos(reason) - earlier.stallNanos(reason);
      }
      out.put(reason.label(), millis(nanos));
    }
    return out;
  }

  private static Map<TaskId, StatePlaneStats> byTask(String target, JobMetrics m) {
    Map<TaskId, StatePlaneStats> out = new HashMap<>();
    for (TaskMetricsSnapshot t : m.tasksOf(target)) {
      out.put(t.task(), t.statePlane());
    }
    return out;
  }

  private static double millis(double nanos) {
    return Math.round(nanos / 1e3) / 1000.0;
  }
}
