package io.koala.job;

/**
 * The reconfiguration a job is running now (one at a time), as of a metrics snapshot.
 *
 * @param change what was asked, e.g. {@code Rescale[operator=count, parallelism=4, ...]}
 * @param operator the operator whose tasks it reconfigures
 * @param epoch its epoch
 * @param phase the protocol step it is in: {@code PAUSING}, {@code DEPLOYING}, {@code PREPARING},
 *     {@code CATCHING_UP}, {@code HANDING_OVER}, {@code SWITCHING}, {@code DRAINING} (the new
 *     owners have switched and pull the remaining state from the retiring holders) or {@code DONE}
 * @param startedMillis when it started (epoch milliseconds)
 * @param queued reconfigurations waiting behind it
 * @param holderBytes state bytes the operator's retiring holders still hold: what is left to move
 * @param etaSeconds the time left at the rate the holders' state shrank between this snapshot and
 *     the previous one; {@code NaN} when unknown (before draining, or no shrinking seen yet)
 */
public record ReconfigurationProgress(
    String change,
    String operator,
    long epoch,
    String phase,
    long startedMillis,
    int queued,
    long holderBytes,
    double etaSeconds) {}
