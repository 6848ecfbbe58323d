package io.koala.job;

import java.util.Map;

/**
 * Where one task's time went while it waited (its processing loop stopped with work queued) and
 * what its side of the state plane cost, cumulative since the task started.
 *
 * @param stallNanos time stalled, by {@link Stall} (indexed by ordinal)
 * @param holdNanos time during which records were held for a sender's peer marker; it overlaps the
 *     stalls, since other records flow meanwhile
 * @param fetchRoundTrips per holder (the task index of the operator, or a state service's number),
 *     the nanoseconds from sending a fetch to running its reply
 * @param releasesSent keys this task released at their former holders (one entry per key)
 * @param releaseMessagesSent release messages those keys went out in
 * @param releasesApplied keys whose copy this task, as a former holder, deleted on release
 * @param releaseApplyNanos time this task spent applying releases
 */
public record StatePlaneStats(
    long[] stallNanos,
    long holdNanos,
    Map<Integer, LatencyHistogram> fetchRoundTrips,
    long releasesSent,
    long releaseMessagesSent,
    long releasesApplied,
    long releaseApplyNanos) {

  /** Why a task's loop stopped while it had work queued. */
  public enum Stall {
    /** An item waits for records parked before it (their state is being fetched). */
    PARKED_GATE,
    /**
     * Records from upstream wait: the records the task keeps waiting fill its budget, most of them
     * parked for their state.
     */
    PARKED_LIMIT,
    /**
     * Records from upstream wait: the records the task keeps waiting fill its budget, most of them
     * held during a reconfiguration for a sender's peer marker.
     */
    HELD_LIMIT,
    /** The task's emulated capacity allows no batch now (experiments only). */
    THROTTLE,
    /** An output channel has no credit: downstream is slower. */
    BLOCKED_OUTPUT,
    /** The channels past a checkpoint barrier wait for the others' barriers. */
    ALIGNMENT,
    /** The task's sink takes no records: its consumer is behind (a queue sink that is full). */
    SINK_BUSY;

    /** The name used in metrics: lower case. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Nothing measured yet. */
  public static final StatePlaneStats NONE =
      new StatePlaneStats(new long[Stall.values().length], 0, Map.of(), 0, 0, 0, 0);

  public StatePlaneStats {
    if (stallNanos.length != Stall.values().length) {
      throw new IllegalArgumentException(
          "one stall time per reason expected, got " + stallNanos.length);
    }
    stallNanos = stallNanos.clone();
    fetchRoundTrips = Map.copyOf(fetchRoundTrips);
  }

  @Override
  public long[] stallNanos() {
    return stallNanos.clone();
  }

  /** Time stalled for {@code reason}, in nanoseconds. */
  public long stallNanos(Stall reason) {
    return stallNanos[reason.ordinal()];
  }

  /** The fetch round trips to {@code holder} (nanoseconds); empty when none was measured. */
  public LatencyHistogram fetchRoundTrips(int holder) {
    return fetchRoundTrips.getOrDefault(holder, LatencyHistogram.EMPTY);
  }
}
