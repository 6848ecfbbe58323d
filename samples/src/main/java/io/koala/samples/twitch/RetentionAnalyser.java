package io.koala.samples.twitch;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;

/**
 * The retention analyser of the Twitch workload (WORKLOADS.md), its first stage: keyed by streamer
 * ({@code long}), it counts viewers entering and leaving and the minutes leavers watched into
 * padded state ({@link Retention}) and emits, for every event, the event with the streamer's viewer
 * count, events, running average ratio and retention score ({@link StreamerRetention}).
 */
public final class RetentionAnalyser {
  private RetentionAnalyser() {}

  /** Registers the records that travel between the tasks of the stage. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(ViewerEvent.class, StreamerRetention.class);
  }

  /**
   * Adds the analyser: {@code events} keyed by streamer into the operator {@code name}.
   *
   * @param stateBytes bytes of state per streamer, at least {@link Retention#MIN_BYTES}
   * @throws IllegalArgumentException if {@code stateBytes} is too small
   */
  public static Stage<StreamerRetention> analyser(
      Stage<ViewerEvent> events, String name, int stateBytes) {
    Retention.codec(stateBytes); // fails here, at definition, on a size that is too small
    return events.keyBy(ViewerEvent::streamerId).process(name, () -> new Analyser(stateBytes));
  }

  /** The keyed function: updates the streamer's retention and emits it with the event. */
  static final class Analyser extends KeyedProcessFunction<Long, ViewerEvent, StreamerRetention> {
    private final int stateBytes;
    private ValueState<Retention> retention;

    Analyser(int stateBytes) {
      this.stateBytes = stateBytes;
    }

    @Override
    public void open(KeyedStateContext ctx) {
      retention = ctx.valueState("retention", Retention.codec(stateBytes));
    }

    @Override
    public void process(ViewerEvent e, Context<Long> ctx, Collector<StreamerRetention> out) {
      Retention before = retention.value();
      Retention after = (before == null ? Retention.empty(stateBytes) : before).plus(e);
      retention.update(after);
      out.collect(
          new StreamerRetention(
              e, after.viewers(), after.events(), after.averageRatio(), after.score()));
    }
  }
}
