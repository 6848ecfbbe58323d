package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.time.Duration;

/**
 * Nexmark Q11, user sessions: how many bids each bidder placed in each session, a session being a
 * burst of the bidder's bids with gaps of at most {@link #GAP} (a bid {@code GAP} after the
 * previous one still belongs to the session: windows that touch merge). A session window per bidder
 * with an incremental count.
 */
public final class Q11 {
  /** The inactivity that ends a session. */
  public static final Duration GAP = Duration.ofSeconds(10);

  private Q11() {}

  /**
   * What Q11 emits: {@code bids} bids of {@code bidder} in the session {@code [start, end)}, from
   * its first bid to its last plus {@link #GAP}.
   */
  public record BidderSession(long bidder, long start, long end, long bids) {}

  /** Registers the records Q11 emits. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(BidderSession.class);
  }

  /**
   * Adds the query: operators {@code name + "-bids"}, the session count {@code name} keyed by
   * bidder, and {@code name + "-result"}.
   */
  public static Stage<BidderSession> sessions(Stage<NexmarkEvent> events, String name) {
    return Nexmark.bids(events, name + "-bids")
        .keyBy(Bid::bidder)
        .window(WindowAssigner.session(GAP))
        .count(name)
        .map(
            name + "-result",
            (WindowResult<Long, Long> r) ->
                new BidderSession(r.key(), r.start(), r.end(), r.value()));
  }
}
