package io.koala.samples.nexmark;

import io.koala.samples.RecordRandom;
import java.util.SplittableRandom;

/**
 * The Nexmark event stream as a pure function of (event index, seed) (WORKLOADS.md): persons,
 * auctions and bids in proportions 1 : 3 : 46 per 50 events, with hot sellers, hot auctions and hot
 * bidders, and event time advancing by {@code 1e6 / rate} µs per event. Only bids are generated so
 * far; persons and auctions come with the Nexmark queries.
 */
public final class NexmarkGenerator {
  /** Events per period: 1 person, 3 auctions, 46 bids. */
  static final int PERIOD = 50;

  static final int AUCTIONS_PER_PERIOD = 3;
  static final int BIDS_PER_PERIOD = PERIOD - 1 - AUCTIONS_PER_PERIOD;
  static final long FIRST_ID = 1000;
  static final int HOT_RATIO = 100;

  private final long seed;
  private final long baseTimeMillis;
  private final double eventsPerMilli;
  private final int activePeople;
  private final int inFlightAuctions;

  /**
   * @param eventsPerSecond the event-time rate: event {@code e} happens at {@code baseTimeMillis +
   *     e / eventsPerSecond} seconds
   */
  public NexmarkGenerator(long seed, long baseTimeMillis, double eventsPerSecond) {
    this(seed, baseTimeMillis, eventsPerSecond, 1000, 100);
  }

  public NexmarkGenerator(
      long seed,
      long baseTimeMillis,
      double eventsPerSecond,
      int activePeople,
      int inFlightAuctions) {
    if (!(eventsPerSecond > 0)) {
      throw new IllegalArgumentException("event rate must be positive: " + eventsPerSecond);
    }
    this.seed = seed;
    this.baseTimeMillis = baseTimeMillis;
    this.eventsPerMilli = eventsPerSecond / 1000.0;
    this.activePeople = activePeople;
    this.inFlightAuctions = inFlightAuctions;
  }

  /** The event index of the {@code i}-th bid. */
  public static long bidEventIndex(long i) {
    return (i / BIDS_PER_PERIOD) * PERIOD + 1 + AUCTIONS_PER_PERIOD + (i % BIDS_PER_PERIOD);
  }

  /** The {@code i}-th bid of the stream. */
  public Bid bid(long i) {
    long e = bidEventIndex(i);
    SplittableRandom r = random(e);
    long lastAuction = lastAuctionId(e);
    long auction =
        r.nextInt(2) == 0
            ? Math.max(FIRST_ID, (lastAuction / HOT_RATIO) * HOT_RATIO)
            : Math.max(FIRST_ID, lastAuction - r.nextInt(inFlightAuctions));
    long lastPerson = lastPersonId(e);
    long bidder =
        r.nextInt(4) != 0
            ? (lastPerson / HOT_RATIO) * HOT_RATIO + 1
            : Math.max(FIRST_ID, lastPerson - r.nextInt(activePeople));
    long price = Math.round(Math.pow(10.0, 6.0 * r.nextDouble()) * 100.0);
    String channel =
        r.nextInt(2) == 0
            ? HOT_CHANNELS[r.nextInt(HOT_CHANNELS.length)]
            : "channel-" + r.nextInt(10_000);
    return new Bid(auction, bidder, price, channel, timeOf(e));
  }

  /** The event time of event {@code e}. */
  public long timeOf(long e) {
    return baseTimeMillis + (long) (e / eventsPerMilli);
  }

  /** The id of the last auction created at or before event {@code e}. */
  static long lastAuctionId(long e) {
    long periods = e / PERIOD;
    long inPeriod = Math.min(e % PERIOD, AUCTIONS_PER_PERIOD);
    return FIRST_ID + periods * AUCTIONS_PER_PERIOD + inPeriod - 1;
  }

  /** The number of auctions created before event {@code e}. */
  public static long auctionsBefore(long e) {
    return lastAuctionId(e) - FIRST_ID + 1;
  }

  /** The id of the last person created at or before event {@code e}. */
  static long lastPersonId(long e) {
    return FIRST_ID + e / PERIOD;
  }

  private SplittableRandom random(long e) {
    return RecordRandom.of(e, seed);
  }

  private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
}
