package io.koala.bench.experiment;

import io.koala.connector.Json;
import java.util.List;

/**
 * The summary of one rescale experiment, printed as one JSON object (components in this order).
 * State sizes count what a transfer moves: a key's store key plus its encoded value ({@code
 * stateBytesPerKey}); every key has exactly one such entry of that size. Durations are from the
 * rescale request on. Fields that have no value in a run are {@code null}.
 *
 * @param workload the workload
 * @param protocol the reconfiguration protocol
 * @param keys keys in total
 * @param activeKeys keys touched after the warm-up
 * @param stateBytes encoded value bytes per key ({@code --state-bytes})
 * @param stateBytesPerKey stored bytes per key: store key and value
 * @param taskCapacity emulated capacity per task of the target operator, records/s
 * @param inputRate the input rate before the doubling ({@code --rate}), records/s
 * @param inputRateAtReconfig the input rate at and after the rescale (twice {@code inputRate})
 * @param workers workers, each in its own ActorSystem over loopback TCP
 * @param from tasks of the target operator before
 * @param to tasks after
 * @param capacityBefore {@code from × taskCapacity}
 * @param capacityAfter {@code to × taskCapacity}
 * @param warmupRate input rate of the warm-up
 * @param warmupSeconds length of the warm-up
 * @param stateBytesTotal state of all keys: {@code keys × stateBytesPerKey}
 * @param storeBytesAtReconfig bytes of the target's stores (LMDB pages) when the rescale started
 * @param movedBuckets the buckets whose owner changed
 * @param movedBucketsKeys keys (of all {@code keys}) in the moved buckets
 * @param movedBucketsStateBytes their state: what an eager protocol moves
 * @param accessedMovedKeys keys of the moved buckets that records consumed by the target after the
 *     rescale touched (from the generator: record indices from the target's consumed count at the
 *     rescale to the sources' read count at the end)
 * @param accessedMovedKeysStateBytes their state: the least any protocol must move
 * @param stateBytesTransferred state bytes fetched between tasks over the run
 * @param keysTransferred keys fetched between tasks over the run
 * @param fetchRequests fetch requests over the run
 * @param handoverMs the report's hand-over time
 * @param reconfigDurationMs the report's duration (until every task drained the change)
 * @param lagBeforeDoubling the pre-doubling lag level: the highest source lag sampled in the last 5
 *     s before the doubling
 * @param recoveryLagThreshold the same level at the doubled rate, {@code lagBeforeDoubling ×
 *     inputRateAtReconfig / inputRate}: in a steady state the source lag is the input of a roughly
 *     constant time, so the number of records doubles with the rate; "back to the pre-doubling
 *     level" means back under this
 * @param lagAtReconfig source lag when the rescale was requested
 * @param maxLagRecords the highest source lag sampled from the doubling to the end
 * @param idealRecoveryMs {@code lagAtReconfig / (capacityAfter − inputRateAtReconfig)} in ms; null
 *     if the capacity after does not exceed the input rate
 * @param backlogRecoveryMs from the rescale request until the source lag was back under {@code
 *     recoveryLagThreshold} (linearly interpolated between the two samples around the crossing);
 *     null if it never was within the timeout
 * @param endToEndRecoveryThreshold like {@code recoveryLagThreshold}, for the end-to-end backlog:
 *     records available at the source but not yet processed by the target (the source lag plus the
 *     records in flight in the channels' credit windows, which the source lag does not see)
 * @param endToEndBacklogAtReconfig the end-to-end backlog when the rescale was requested
 * @param endToEndIdealRecoveryMs {@code endToEndBacklogAtReconfig / (capacityAfter −
 *     inputRateAtReconfig)} in ms; null if the capacity after does not exceed the input rate
 * @param endToEndRecoveryMs from the rescale request until the end-to-end backlog was back under
 *     {@code endToEndRecoveryThreshold} (interpolated likewise); null if it never was
 * @param throughputBeforeReconfig records per second the target processed in the last 10 s before
 *     the rescale (from the doubling on, if that is shorter): its measured capacity
 * @param minThroughputDuringReconfig lowest 1-second throughput (records processed) of the target
 *     over the seconds that ended between the rescale and the recovery of the source lag (the first
 *     second always counts; until the end when not recovered); sampling windows shorter than half a
 *     second (a late sample followed by an early one) do not count
 * @param p99BatchLatencyMsBefore p99 per-batch processing time of the target in the window of
 *     {@code throughputBeforeReconfig}
 * @param p99BatchLatencyMsDuring the same over the seconds of {@code minThroughputDuringReconfig}
 * @param kltBytes bytes of the key lookup tables' membership filters over all tasks at the end
 * @param statePlane the target's stalls by reason before and during the recovery, its fetch round
 *     trips and releases
 * @param steps every reconfiguration of the run, the first being the rescale the other fields
 *     describe
 * @param taskReleasedMs when each task of the target that a reconfiguration retired was released
 *     (drained, stopped, its store deleted), ms after the first reconfiguration, at the resolution
 *     of the one-second samples
 * @param recovered whether the lag came back under {@code recoveryLagThreshold} within the timeout
 *     (and the rescale completed)
 * @param cores available processors
 * @param error why the run is not valid (a failed rescale), or null
 */
public record RescaleResult(
    String workload,
    String protocol,
    long keys,
    long activeKeys,
    int stateBytes,
    int stateBytesPerKey,
    double taskCapacity,
    double inputRate,
    double inputRateAtReconfig,
    int workers,
    int from,
    int to,
    double capacityBefore,
    double capacityAfter,
    double warmupRate,
    int warmupSeconds,
    long stateBytesTotal,
    long storeBytesAtReconfig,
    List<Integer> movedBuckets,
    long movedBucketsKeys,
    long movedBucketsStateBytes,
    long accessedMovedKeys,
    long accessedMovedKeysStateBytes,
    long stateBytesTransferred,
    long keysTransferred,
    long fetchRequests,
    Long handoverMs,
    Long reconfigDurationMs,
    long lagBeforeDoubling,
    long recoveryLagThreshold,
    long lagAtReconfig,
    long maxLagRecords,
    Double idealRecoveryMs,
    Double backlogRecoveryMs,
    long endToEndRecoveryThreshold,
    long endToEndBacklogAtReconfig,
    Double endToEndIdealRecoveryMs,
    Double endToEndRecoveryMs,
    double throughputBeforeReconfig,
    Double minThroughputDuringReconfig,
    double p99BatchLatencyMsBefore,
    Double p99BatchLatencyMsDuring,
    long kltBytes,
    StatePlaneSummary statePlane,
    List<StepResult> steps,
    List<Double> taskReleasedMs,
    boolean recovered,
    int cores,
    String error) {

  public RescaleResult {
    movedBuckets = List.copyOf(movedBuckets);
    steps = List.copyOf(steps);
    taskReleasedMs = List.copyOf(taskReleasedMs);
  }

  /** This result as one line of JSON. */
  public String toJson() {
    return Json.encode(this);
  }
}
