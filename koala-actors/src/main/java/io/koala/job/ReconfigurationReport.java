package io.koala.job;

import java.util.List;

/**
 * What one completed reconfiguration (one epoch) did.
 *
 * @param epoch the job-wide epoch number, from 1
 * @param operator the reconfigured operator (the first of its task's chain)
 * @param kind {@code rescale}, {@code rebalance} or {@code migrate}
 * @param tasksBefore the operator's live task indices before
 * @param tasksAfter the operator's live task indices after (indices are never reused)
 * @param movedBuckets the buckets whose owner changed, ascending
 * @param handoverMillis from the first hand-over command until every receiver had installed every
 *     hand-over (ownership moved; no state is copied in this step)
 * @param durationMillis from the start of the epoch until every task of the operator had drained
 *     its markers and peer channels
 * @param keysTransferred keys whose state the operator's tasks fetched during the epoch (lazy
 *     transfer continues afterwards, on first access; see {@link JobMetrics#tasks()})
 * @param stateBytesTransferred bytes of those keys' state
 * @param fetchRequests fetch requests sent during the epoch (per batch, as many to a holder as its
 *     replies need, up to 16)
 * @param keysDrained of {@code keysTransferred}, keys drained from retired tasks during the epoch
 *     (forced full transfer goes on after it; the retired tasks stop once drained)
 * @param piggybackedKeys of those, the keys that came with the reply to a fetch
 * @param recordsParked records (and timer callbacks) that waited for their key's state during the
 *     epoch
 * @param lookupTableBytes the operator's key lookup table (membership filters) at the epoch's end
 */
public record ReconfigurationReport(
    long epoch,
    String operator,
    String kind,
    List<Integer> tasksBefore,
    List<Integer> tasksAfter,
    List<Integer> movedBuckets,
    long handoverMillis,
    long durationMillis,
    long keysTransferred,
    long stateBytesTransferred,
    long fetchRequests,
    long keysDrained,
    long piggybackedKeys,
    long recordsParked,
    long lookupTableBytes) {

  public ReconfigurationReport {
    tasksBefore = List.copyOf(tasksBefore);
    tasksAfter = List.copyOf(tasksAfter);
    movedBuckets = List.copyOf(movedBuckets);
  }

  /** How many buckets changed owner. */
  public int bucketsMoved() {
    return movedBuckets.size();
  }
}
