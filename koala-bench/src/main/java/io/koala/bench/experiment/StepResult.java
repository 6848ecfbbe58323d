package io.koala.bench.experiment;

/**
 * One reconfiguration of an experiment's run. Fields without a value (the step failed or was not
 * requested) are {@code null}.
 *
 * @param description what the step did
 * @param atSeconds when it was requested, seconds since the job started
 * @param bucketsMoved buckets whose owner changed
 * @param handoverMs the report's hand-over time
 * @param durationMs the report's duration
 * @param stateBytesTransferred state bytes fetched between tasks from this request to the next
 *     step's (or to the end of the run)
 * @param movedBucketsStateBytes the state of every key in the moved buckets: what a full migration
 *     (stop-and-restart, eager) moves in this step
 * @param error why the step has no report, or null
 */
public record StepResult(
    String description,
    Double atSeconds,
    Integer bucketsMoved,
    Long handoverMs,
    Long durationMs,
    long stateBytesTransferred,
    long movedBucketsStateBytes,
    String error) {}
