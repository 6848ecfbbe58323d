package io.koala.samples.twitch;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import java.util.function.Function;

/**
 * The viewer-loyalty calculator of the Twitch workload (WORKLOADS.md), the stage a reconfiguration
 * targets: keyed by streamer, it counts engagement, minutes watched and events into padded state
 * ({@link Loyalty}) and emits the streamer's loyalty score for every event.
 */
public final class ViewerLoyalty {
  private ViewerLoyalty() {}

  /** Registers the records that travel between the tasks of the workload. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(ViewerEvent.class, StreamerLoyalty.class);
  }

  /**
   * Adds the calculator: {@code events} keyed by streamer into the operator {@code name}.
   *
   * @param stateBytes bytes of state per streamer, at least {@link Loyalty#MIN_BYTES}
   */
  public static Stage<StreamerLoyalty> calculator(
      Stage<ViewerEvent> events, String name, int stateBytes) {
    Loyalty.codec(stateBytes); // fails here, at definition, on a size that is too small
    return events
        .keyBy(ViewerEvent::streamerId)
        .process(name, () -> new Calculator<>(stateBytes, e -> e));
  }

  /**
   * Adds the calculator after the retention analyser ({@link TwitchPipeline}): the events {@code
   * retained} carries, keyed by streamer into the operator {@code name}.
   *
   * @param stateBytes bytes of state per streamer, at least {@link Loyalty#MIN_BYTES}
   */
  public static Stage<StreamerLoyalty> calculatorAfterRetention(
      Stage<StreamerRetention> retained, String name, int stateBytes) {
    Loyalty.codec(stateBytes); // fails here, at definition, on a size that is too small
    return retained
        .keyBy(StreamerRetention::streamerId)
        .process(name, () -> new Calculator<>(stateBytes, StreamerRetention::event));
  }

  /** The keyed function over records {@code T} that each carry a viewer event. */
  static final class Calculator<T> extends KeyedProcessFunction<Long, T, StreamerLoyalty> {
    private final int stateBytes;
    private final Function<T, ViewerEvent> eventOf;
    private ValueState<Loyalty> loyalty;

    Calculator(int stateBytes, Function<T, ViewerEvent> eventOf) {
      this.stateBytes = stateBytes;
      this.eventOf = eventOf;
    }

    @Override
    public void open(KeyedStateContext ctx) {
      loyalty = ctx.valueState("loyalty", Loyalty.codec(stateBytes));
    }

    @Override
    public void process(T record, Context<Long> ctx, Collector<StreamerLoyalty> out) {
      ViewerEvent e = eventOf.apply(record);
      Loyalty before = loyalty.value();
      Loyalty after = (before == null ? Loyalty.empty(stateBytes) : before).plus(e);
      loyalty.update(after);
      out.collect(new StreamerLoyalty(e.streamerId(), after.score()));
    }
  }
}
