package io.koala.samples.borg;

import io.koala.dataflow.Collector;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedProcessFunction;
import io.koala.dataflow.Stage;
import io.koala.samples.BoundedSeries;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;

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
    BoundedSeries.codec(LAST_REQUESTS, stateBytes); // fails here, at definition, when too small
    return events.keyBy(TaskEvent::key).process(name, () -> new RequestStats(stateBytes));
  }

  /** The keyed function: appends the CPU request to the key's series and emits its statistics. */
  static final class RequestStats extends KeyedProcessFunction<Long, TaskEvent, JobRequestStats> {
    private final int stateBytes;
    private ValueState<BoundedSeries> last;

    RequestStats(int stateBytes) {
      this.stateBytes = stateBytes;
    }

    @Override
    public void open(KeyedStateContext ctx) {
      last = ctx.valueState("last-cpu-requests", BoundedSeries.codec(LAST_REQUESTS, stateBytes));
    }

    @Override
    public void process(TaskEvent e, Context<Long> ctx, Collector<JobRequestStats> out) {
      BoundedSeries before = last.value();
      BoundedSeries after =
          (before == null ? BoundedSeries.empty(LAST_REQUESTS, stateBytes) : before)
              .plus(e.cpuRequest());
      last.update(after);
      out.collect(
          new JobRequestStats(
              e.jobId(), e.type(), after.size(), after.median(), after.mean(), after.max()));
    }
  }
}
