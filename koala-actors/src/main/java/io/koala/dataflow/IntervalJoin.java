package io.koala.dataflow;

import io.koala.function.DataflowDefinitionException;
import io.koala.time.DurationText;
import java.time.Duration;
import java.util.Objects;

/**
 * Two keyed stages of one dataflow to be joined by time interval ({@link KeyedStage#intervalJoin}):
 * give the interval with {@link #between}. The keys of both stages must be of the same type (they
 * meet when their serialized bytes are equal).
 *
 * <pre>{@code
 * // Each auction with the bids it received in its first minute.
 * Stage<String> early = auctions.keyBy(Auction::id)
 *     .intervalJoin(bids.keyBy(Bid::auction))
 *     .between(Duration.ZERO, Duration.ofMinutes(1))
 *     .apply("early-bids", (a, b) -> a.id() + ":" + b.price());
 * }</pre>
 */
public final class IntervalJoin<K, A, B> {
  private final KeyedStage<K, A> first;
  private final KeyedStage<K, B> second;

  IntervalJoin(KeyedStage<K, A> first, KeyedStage<K, B> second) {
    this.first = first;
    this.second = ConnectedKeyedStages.checkSameDataflow(first, second, "interval-join");
  }

  /**
   * Joins a record {@code a} of the first stage with every record {@code b} of the second stage and
   * the same key such that {@code a.ts + lower <= b.ts <= a.ts + upper} (both bounds inclusive;
   * either may be negative).
   *
   * @throws DataflowDefinitionException when {@code lower > upper}
   */
  public IntervalJoined<K, A, B> between(Duration lower, Duration upper) {
    Objects.requireNonNull(lower, "lower bound");
    Objects.requireNonNull(upper, "upper bound");
    if (lower.compareTo(upper) > 0) {
      throw new DataflowDefinitionException(
          "interval join: lower bound "
              + DurationText.of(lower)
              + " must not exceed upper bound "
              + DurationText.of(upper));
    }
    return new IntervalJoined<>(first, second, lower.toMillis(), upper.toMillis());
  }
}
