package io.koala.samples.borg;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.samples.BoundedSeries;
import io.koala.samples.SeriesStats;

/**
 * The Borg resource-monitoring query (WORKLOADS.md): task events keyed by (job, event type) ({@link
 * TaskEvent#key()}, a {@code long} key id), keeping each key's last {@value #LAST_REQUESTS} CPU
 * requests and emitting their running median, mean and maximum for every event. Each key's state
 * ({@link BoundedSeries}) is padded to {@code stateBytes} bytes. Its keyed operator, named by the
 * caller ({@value #OPERATOR} in the experiments), is the reconfiguration target.
 *
 * <pre>{@code
 * DataflowBuilder b = Dataflow.builder("borg");
 * BorgMonitoring.registerTypes(b);
 * Stage<TaskEvent> events = b.source(SourceSpec.generator("task-events", new BorgGenerator(...)));
 * BorgMonitoring.requestStats(events, BorgMonitoring.OPERATOR, 512)
 *     .sink(SinkSpec.discarding("out"));
 * }</pre>
 */
public final class BorgMonitoring {
  /** How many of a key's last requests the statistics are over. */
  public static final int LAST_REQUESTS = 32;

  /** The smallest state per key: {@link BoundedSeries#minBytes} of {@value #LAST_REQUESTS}. */
  public static final int MIN_STATE_BYTES = 4 + 8 * LAST_REQUESTS;

  /** The name the experiments give the keyed operator. */
  public static final String OPERATOR = "borg-request-stats";

  /** Appends the CPU request to the key's series and emits its statistics. */
  private static final SeriesStats<TaskEvent, JobRequestStats> REQUEST_STATS =
      new SeriesStats<>(
          "last-cpu-requests",
          LAST_REQUESTS,
          TaskEvent::key,
          TaskEvent::cpuRequest,
          (e, key, s) ->
              new JobRequestStats(e.jobId(), e.type(), s.size(), s.median(), s.mean(), s.max()));

  private BorgMonitoring() {}

  /** Registers the records that travel between the tasks of the query. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(TaskEvent.class, BorgEventType.class, JobRequestStats.class);
  }

  /**
   * Adds the query: {@code events} keyed by (job, event type) into the operator {@code name}.
   *
   * @param stateBytes bytes of state per key, at least {@link #MIN_STATE_BYTES}
   * @throws IllegalArgumentException if {@code stateBytes} is too small
   */
  public static Stage<JobRequestStats> requestStats(
      Stage<TaskEvent> events, String name, int stateBytes) {
    return REQUEST_STATS.add(events, name, stateBytes);
  }
}
