package io.koala.samples.borg;

/**
 * What the Borg monitoring query emits per task event: statistics of the CPU requests of the last
 * events of the event's job and type.
 *
 * @param events how many requests the statistics are over, at most {@link
 *     BorgMonitoring#LAST_REQUESTS}
 */
public record JobRequestStats(
    long jobId, BorgEventType type, int events, double medianCpu, double meanCpu, double maxCpu) {}
