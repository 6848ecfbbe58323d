package io.koala.samples.nexmark;

import io.koala.connector.GeneratorFunction;
import io.koala.samples.GeneratorArgs;
import io.koala.samples.RecordRandom;
import java.util.SplittableRandom;

/**
 * The closed-auction stream of Nexmark Q6* (WORKLOADS.md), record {@code i} a pure function of
 * {@code (i, seed)}, over sellers {@code 0 .. keys-1}:
 *
 * <ul>
 *   <li><b>warm-up</b>, records {@code 0 .. keys-1}: record {@code i} is an auction of seller
 *       {@code i}, so once they are processed every seller has state;
 *   <li><b>afterwards</b>: the seller is drawn <em>uniformly</em> from the hot range {@code 0 ..
 *       activeKeys-1}. Uniform (rather than Zipf) access keeps every hot key equally likely to be
 *       touched after a reconfiguration, so the state a lazy protocol must move is simply the hot
 *       keys of the moved buckets, and no task is hotter than another.
 * </ul>
 *
 * <p>Prices are log-uniform like Nexmark bid prices ({@code round(10^(6·U[0,1)) · 100)} cents);
 * event time advances by {@code 1 / eventsPerSecond} s per record from {@code baseTimeMillis}.
 * Immutable and thread-safe.
 */
public final class ClosedAuctionGenerator implements GeneratorFunction<ClosedAuction> {
  private final long keys;
  private final long activeKeys;
  private final long baseTimeMillis;
  private final double eventsPerMilli;

  /**
   * @param keys sellers in total; the warm-up has one record per seller
   * @param activeKeys the hot range: sellers {@code 0 .. activeKeys-1}, in {@code [1, keys]}
   * @param eventsPerSecond event-time rate of the records, positive
   */
  public ClosedAuctionGenerator(
      long keys, long activeKeys, long baseTimeMillis, double eventsPerSecond) {
    GeneratorArgs.check(keys, activeKeys, Long.MAX_VALUE, eventsPerSecond);
    this.keys = keys;
    this.activeKeys = activeKeys;
    this.baseTimeMillis = baseTimeMillis;
    this.eventsPerMilli = eventsPerSecond / 1000.0;
  }

  public long keys() {
    return keys;
  }

  public long activeKeys() {
    return activeKeys;
  }

  /** Records of the warm-up, which touch every seller once: {@code 0 .. keys-1}. */
  public long warmupRecords() {
    return keys;
  }

  /** The seller of record {@code index}. */
  public long sellerOf(long index, long seed) {
    if (index < keys) {
      return index;
    }
    return random(index, seed).nextLong(activeKeys);
  }

  @Override
  public ClosedAuction generate(long index, long seed) {
    SplittableRandom r = random(index, seed);
    long seller = index < keys ? index : r.nextLong(activeKeys);
    long price = Math.round(Math.pow(10.0, 6.0 * r.nextDouble()) * 100.0);
    return new ClosedAuction(seller, price, baseTimeMillis + (long) (index / eventsPerMilli));
  }

  private static SplittableRandom random(long index, long seed) {
    return RecordRandom.of(index, seed);
  }
}
