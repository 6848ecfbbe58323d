package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.window.ProcessWindowFunction;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;
import java.util.List;

/**
 * Nexmark Q5, hot items: the auctions with the most bids in each sliding window of {@link #SIZE}
 * every {@link #SLIDE}. Two steps: bids keyed by auction are counted per sliding window, then the
 * counts are keyed by their window's end and, once the watermark passes it, the auctions with the
 * highest count are emitted (all of them on a tie, as Nexmark does).
 */
public final class Q5 {
  /** The window size. */
  public static final Duration SIZE = Duration.ofSeconds(10);

  /** How often a window starts. */
  public static final Duration SLIDE = Duration.ofSeconds(2);

  private Q5() {}

  /** What Q5 emits: an auction with the most bids ({@code bids}) in window {@code [start, end)}. */
  public record HotItem(long auction, long start, long end, long bids) {}

  /** Registers the records Q5 emits. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(HotItem.class);
  }

  /**
   * Adds the query: operators {@code name + "-bids"}, the count per auction and window {@code name
   * + "-counts"}, and the maximum per window {@code name}.
   */
  public static Stage<HotItem> hotItems(Stage<NexmarkEvent> events, String name) {
    return Nexmark.bids(events, name + "-bids")
        .keyBy(Bid::auction)
        .window(WindowAssigner.sliding(SIZE, SLIDE))
        .count(name + "-counts")
        .keyBy((WindowResult<Long, Long> r) -> r.end())
        // a count carries its window's max timestamp, end - 1: one slide-long window holds exactly
        // the counts of one sliding window
        .window(WindowAssigner.tumbling(SLIDE))
        .process(name, MaxPerWindow::new);
  }

  /** Keyed by a sliding window's end: the auctions with the highest count in it. */
  static final class MaxPerWindow
      extends ProcessWindowFunction<Long, WindowResult<Long, Long>, HotItem> {
    @Override
    public void process(
        Long end,
        TimeWindow window,
        List<WindowResult<Long, Long>> counts,
        Collector<HotItem> out) {
      long max = 0;
      for (WindowResult<Long, Long> c : counts) {
        max = Math.max(max, c.value());
      }
      for (WindowResult<Long, Long> c : counts) {
        if (c.value() == max) {
          out.collect(new HotItem(c.key(), c.start(), c.end(), max));
        }
      }
    }
  }
}
