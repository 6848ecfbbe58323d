package io.koala.samples.borg;

/**
 * A task event of the Borg workload, shaped like a row of the {@code task_events} table of Google's
 * cluster trace. Requests are normalized to the largest machine, in {@code (0, 1]}.
 *
 * @param timestamp event time, milliseconds
 * @param jobId the job, {@code 0 .. jobs-1}
 * @param taskIndex the task within its job
 * @param priority 0 (lowest) to 11
 */
public record TaskEvent(
    long timestamp,
    long jobId,
    int taskIndex,
    long machineId,
    BorgEventType type,
    int priority,
    double cpuRequest,
    double ramRequest,
    double diskRequest) {

  /** The key id of (job, event type): {@code jobId · 9 + type ordinal}. */
  public long key() {
    return BorgGenerator.keyOf(jobId, type);
  }
}
