package io.koala.samples.nexmark;

import io.koala.connector.GeneratorFunction;
import io.koala.samples.GeneratorArgs;
import io.koala.samples.RecordRandom;
import java.util.SplittableRandom;

/**
 * The closed-auction stream of Nexmark Q6* (WORKLOADS.md), record {@code i} a pure function of
 * {@code (i, seed)}, over sellers numbered from 0:
 *
 * <ul>
 *   <li><b>warm-up</b>, records {@code 0 .. keys-1}: record {@code i} is an auction of seller
 *       {@code i}, so once they are processed every one of the {@code keys} sellers has state;
 *   <li><b>afterwards</b>, by the generator's seller model:
 *       <ul>
 *         <li>{@link #ClosedAuctionGenerator uniform hot range}: the seller is drawn
 *             <em>uniformly</em> from {@code 0 .. activeKeys-1}. Every hot key is equally likely to
 *             be touched after a reconfiguration, so the state a lazy protocol must move is simply
 *             the hot keys of the moved buckets, and no task is hotter than another: the worst case
 *             for lazy transfer.
 *         <li>{@link #recentSellers recent sellers}, Nexmark's model: a new person registers every
 *             {@value #AUCTIONS_PER_PERSON} auctions (Nexmark's 1 person to 3 auctions), numbered
 *             on from {@code keys}, and an auction's seller is the hot seller {@code (lastPerson /
 *             100) * 100} with probability 3/4, else uniform over the last {@code activeKeys}
 *             persons. The sellers touched drift to new keys, which have no state anywhere yet.
 *       </ul>
 * </ul>
 *
 * <p>Prices are log-uniform like Nexmark bid prices ({@code round(10^(6·U[0,1)) · 100)} cents);
 * event time advances by {@code 1 / eventsPerSecond} s per record from {@code baseTimeMillis}.
 * Immutable and thread-safe.
 */
public final class ClosedAuctionGenerator implements GeneratorFunction<ClosedAuction> {
  /** With recent sellers: closed auctions per newly registered person. */
  public static final int AUCTIONS_PER_PERSON = NexmarkGenerator.AUCTIONS_PER_PERIOD;

  private final long keys;
  private final long activeKeys;
  private final long baseTimeMillis;
  private final double eventsPerMilli;
  private final boolean recentSellers;

  /**
   * Sellers uniform over the hot range after the warm-up.
   *
   * @param keys sellers in total; the warm-up has one record per seller
   * @param activeKeys the hot range: sellers {@code 0 .. activeKeys-1}, in {@code [1, keys]}
   * @param eventsPerSecond event-time rate of the records, positive
   */
  public ClosedAuctionGenerator(
      long keys, long activeKeys, long baseTimeMillis, double eventsPerSecond) {
    this(keys, activeKeys, baseTimeMillis, eventsPerSecond, false);
  }

  private ClosedAuctionGenerator(
      long keys,
      long activeKeys,
      long baseTimeMillis,
      double eventsPerSecond,
      boolean recentSellers) {
    GeneratorArgs.check(keys, activeKeys, Long.MAX_VALUE, eventsPerSecond);
    if (recentSellers && activeKeys > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "active keys " + activeKeys + " above " + Integer.MAX_VALUE + " with recent sellers");
    }
    this.keys = keys;
    this.activeKeys = activeKeys;
    this.baseTimeMillis = baseTimeMillis;
    this.eventsPerMilli = eventsPerSecond / 1000.0;
    this.recentSellers = recentSellers;
  }

  /**
   * Nexmark's seller model after the warm-up: sellers drift to newly registered persons.
   *
   * @param keys sellers of the warm-up, one record each; later persons are numbered from here
   * @param activeKeys the non-hot sellers are drawn from the last {@code activeKeys} persons, in
   *     {@code [1, keys]}
   * @param eventsPerSecond event-time rate of the records, positive
   */
  public static ClosedAuctionGenerator recentSellers(
      long keys, long activeKeys, long baseTimeMillis, double eventsPerSecond) {
    return new ClosedAuctionGenerator(keys, activeKeys, baseTimeMillis, eventsPerSecond, true);
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
    return seller(index, random(index, seed));
  }

  @Override
  public ClosedAuction generate(long index, long seed) {
    SplittableRandom r = random(index, seed);
    long seller = seller(index, r);
    long price = Math.round(Math.pow(10.0, 6.0 * r.nextDouble()) * 100.0);
    return new ClosedAuction(seller, price, baseTimeMillis + (long) (index / eventsPerMilli));
  }

  /** The seller of record {@code index}, drawing from {@code r} what the model needs. */
  private long seller(long index, SplittableRandom r) {
    if (index < keys) {
      return index;
    }
    if (!recentSellers) {
      return r.nextLong(activeKeys);
    }
    long lastPerson = keys + (index - keys) / AUCTIONS_PER_PERSON;
    return NexmarkGenerator.seller(lastPerson, 0, (int) activeKeys, r);
  }

  private static SplittableRandom random(long index, long seed) {
    return RecordRandom.of(index, seed);
  }
}
