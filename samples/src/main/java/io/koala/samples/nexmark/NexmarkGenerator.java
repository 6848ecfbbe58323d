package io.koala.samples.nexmark;

import io.koala.connector.GeneratorFunction;
import io.koala.samples.GeneratorArgs;
import io.koala.samples.RecordRandom;
import java.util.SplittableRandom;

/**
 * The Nexmark event stream as a pure function of (event index, seed) (WORKLOADS.md): persons,
 * auctions and bids in proportions 1 : 3 : 46 per 50 events (event {@code e} is a person when
 * {@code e mod 50 == 0}, an auction when it is {@code 1..3}, else a bid), with hot sellers, hot
 * auctions and hot bidders, and event time advancing by {@code 1e6 / rate} µs per event.
 *
 * <ul>
 *   <li>Ids count their kind: the person of event {@code e} has id {@code 1000 + e / 50}, auctions
 *       are numbered {@code 1000, 1001, ...} in event order. A seller is always a person already
 *       registered, a bid's auction one already opened; a bidder too, except that the hot bidder
 *       {@code (lastPersonId / 100) * 100 + 1} bids while {@code lastPersonId} ends in 00 (as in
 *       Nexmark).
 *   <li>An auction's seller is the hot seller {@code (lastPersonId / 100) * 100} with probability
 *       3/4, else uniform over the last {@code activePeople} persons; its category is {@code 10 +
 *       uniform(0..4)}; it expires at {@code dateTime + 1 + uniform(0 .. 2 × horizon)} ms, the
 *       horizon ({@link #auctionHorizonMillis()}) being the time {@code inFlightAuctions} more
 *       auctions take to appear; its reserve is its initial bid plus a price.
 *   <li>Prices are log-uniform cents, {@code round(10^(6·U[0,1)) · 100)}.
 *   <li>With an out-of-orderness bound {@code d} ({@link #withOutOfOrderness}), an event's time is
 *       its in-order time minus {@code uniform(0 .. d)} ms, drawn per event: a watermark that
 *       trails the largest time seen by {@code d} never makes an event late.
 * </ul>
 *
 * <p>As a {@link GeneratorFunction} it serves the seed the source gives it ({@code
 * SourceSpec.generator(name, gen).seed(s)}); {@link #event(long)} and {@link #bid(long)} use the
 * seed given to the constructor, so a test computing a reference should give both the same seed.
 * Immutable and thread-safe.
 *
 * <pre>{@code
 * NexmarkGenerator gen = new NexmarkGenerator(seed, 0, 1_000);
 * Stage<NexmarkEvent> events = b.source(
 *     SourceSpec.generator("events", gen).seed(seed).count(100_000)
 *         .eventTime(NexmarkEvent::dateTime),
 *     WatermarkStrategy.monotonousTimestamps());
 * }</pre>
 */
public final class NexmarkGenerator implements GeneratorFunction<NexmarkEvent> {
  /** Events per period: 1 person, 3 auctions, 46 bids. */
  static final int PERIOD = 50;

  static final int AUCTIONS_PER_PERIOD = 3;
  static final int BIDS_PER_PERIOD = PERIOD - 1 - AUCTIONS_PER_PERIOD;
  static final long FIRST_ID = 1000;
  static final int HOT_RATIO = 100;

  /** Categories are {@code FIRST_CATEGORY .. FIRST_CATEGORY + CATEGORIES - 1}. */
  static final int FIRST_CATEGORY = 10;

  static final int CATEGORIES = 5;

  /** Mixed into the seed for the out-of-order delays, so they do not disturb the other draws. */
  private static final long DELAY_SALT = 0x6A09E667F3BCC909L;

  private final long seed;
  private final long baseTimeMillis;
  private final double eventsPerMilli;
  private final int activePeople;
  private final int inFlightAuctions;
  private final long maxDelayMillis;

  /**
   * @param eventsPerSecond the event-time rate: event {@code e} happens at {@code baseTimeMillis +
   *     e / eventsPerSecond} seconds
   */
  public NexmarkGenerator(long seed, long baseTimeMillis, double eventsPerSecond) {
    this(seed, baseTimeMillis, eventsPerSecond, 1000, 100);
  }

  /**
   * @param activePeople how many of the last persons non-hot sellers and bidders are drawn from
   * @param inFlightAuctions how many of the last auctions non-hot bids go to; also sets the auction
   *     horizon
   */
  public NexmarkGenerator(
      long seed,
      long baseTimeMillis,
      double eventsPerSecond,
      int activePeople,
      int inFlightAuctions) {
    this(seed, baseTimeMillis, eventsPerSecond, activePeople, inFlightAuctions, 0);
  }

  private NexmarkGenerator(
      long seed,
      long baseTimeMillis,
      double eventsPerSecond,
      int activePeople,
      int inFlightAuctions,
      long maxDelayMillis) {
    GeneratorArgs.checkEventRate(eventsPerSecond);
    if (activePeople < 1 || inFlightAuctions < 1) {
      throw new IllegalArgumentException(
          "active people and in-flight auctions must be at least 1, got "
              + activePeople
              + " and "
              + inFlightAuctions);
    }
    if (maxDelayMillis < 0) {
      throw new IllegalArgumentException(
          "out-of-orderness must not be negative, got " + maxDelayMillis);
    }
    this.seed = seed;
    this.baseTimeMillis = baseTimeMillis;
    this.eventsPerMilli = eventsPerSecond / 1000.0;
    this.activePeople = activePeople;
    this.inFlightAuctions = inFlightAuctions;
    this.maxDelayMillis = maxDelayMillis;
  }

  /**
   * This generator with events up to {@code maxDelayMillis} ms earlier than their in-order time
   * (zero: in order, the default).
   */
  public NexmarkGenerator withOutOfOrderness(long maxDelayMillis) {
    return new NexmarkGenerator(
        seed,
        baseTimeMillis,
        eventsPerMilli * 1000.0,
        activePeople,
        inFlightAuctions,
        maxDelayMillis);
  }

  /** The bound on how much earlier than its in-order time an event may be, in ms. */
  public long maxDelayMillis() {
    return maxDelayMillis;
  }

  /** Event {@code e} for {@code seed}. */
  @Override
  public NexmarkEvent generate(long e, long seed) {
    int inPeriod = (int) (e % PERIOD);
    if (inPeriod == 0) {
      return person(e, seed);
    }
    if (inPeriod <= AUCTIONS_PER_PERIOD) {
      return auction(e, seed);
    }
    return bidAt(e, seed);
  }

  /** Event {@code e} for the constructor's seed. */
  public NexmarkEvent event(long e) {
    return generate(e, seed);
  }

  /** The event index of the {@code i}-th bid. */
  public static long bidEventIndex(long i) {
    return (i / BIDS_PER_PERIOD) * PERIOD + 1 + AUCTIONS_PER_PERIOD + (i % BIDS_PER_PERIOD);
  }

  /** The {@code i}-th bid of the stream, for the constructor's seed. */
  public Bid bid(long i) {
    return bidAt(bidEventIndex(i), seed);
  }

  private Bid bidAt(long e, long seed) {
    SplittableRandom r = RecordRandom.of(e, seed);
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
    long price = nextPrice(r);
    String channel =
        r.nextInt(2) == 0
            ? HOT_CHANNELS[r.nextInt(HOT_CHANNELS.length)]
            : "channel-" + r.nextInt(10_000);
    return new Bid(auction, bidder, price, channel, dateTimeOf(e, seed));
  }

  private Person person(long e, long seed) {
    SplittableRandom r = RecordRandom.of(e, seed);
    String name =
        FIRST_NAMES[r.nextInt(FIRST_NAMES.length)] + " " + LAST_NAMES[r.nextInt(LAST_NAMES.length)];
    String email = letters(r, 7) + "@" + letters(r, 5) + ".com";
    String card =
        String.format(
            "%04d %04d %04d %04d",
            r.nextInt(10_000), r.nextInt(10_000), r.nextInt(10_000), r.nextInt(10_000));
    String city = CITIES[r.nextInt(CITIES.length)];
    String state = STATES[r.nextInt(STATES.length)];
    return new Person(lastPersonId(e), name, email, card, city, state, dateTimeOf(e, seed));
  }

  private Auction auction(long e, long seed) {
    SplittableRandom r = RecordRandom.of(e, seed);
    long seller = seller(lastPersonId(e), FIRST_ID, activePeople, r);
    long category = FIRST_CATEGORY + r.nextInt(CATEGORIES);
    long initialBid = nextPrice(r);
    long reserve = initialBid + nextPrice(r);
    String item = letters(r, 20);
    String description = letters(r, 100);
    long now = dateTimeOf(e, seed);
    long expires = now + 1 + r.nextLong(2 * auctionHorizonMillis() + 1);
    return new Auction(
        lastAuctionId(e), item, description, initialBid, reserve, now, expires, seller, category);
  }

  /**
   * The time {@code inFlightAuctions} more auctions take to appear, in ms: an auction expires at
   * most twice that, plus 1 ms, after it opens.
   */
  public long auctionHorizonMillis() {
    return (long) (inFlightAuctions * ((double) PERIOD / AUCTIONS_PER_PERIOD) / eventsPerMilli);
  }

  /** The in-order event time of event {@code e}. */
  public long timeOf(long e) {
    return baseTimeMillis + (long) (e / eventsPerMilli);
  }

  private long dateTimeOf(long e, long seed) {
    if (maxDelayMillis == 0) {
      return timeOf(e);
    }
    return timeOf(e) - RecordRandom.of(e, seed ^ DELAY_SALT).nextLong(maxDelayMillis + 1);
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

  /**
   * Nexmark's seller model: the hot seller {@code (lastPerson / 100) * 100} with probability 3/4,
   * else uniform over the last {@code activePeople} persons, never below {@code firstPerson}.
   */
  static long seller(long lastPerson, long firstPerson, int activePeople, SplittableRandom r) {
    return r.nextInt(4) != 0
        ? (lastPerson / HOT_RATIO) * HOT_RATIO
        : Math.max(firstPerson, lastPerson - r.nextInt(activePeople));
  }

  /** The id of the last person created at or before event {@code e}. */
  static long lastPersonId(long e) {
    return FIRST_ID + e / PERIOD;
  }

  private static long nextPrice(SplittableRandom r) {
    return Math.round(Math.pow(10.0, 6.0 * r.nextDouble()) * 100.0);
  }

  private static String letters(SplittableRandom r, int n) {
    char[] c = new char[n];
    for (int i = 0; i < n; i++) {
      c[i] = (char) ('a' + r.nextInt(26));
    }
    return new String(c);
  }

  private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
  static final String[] FIRST_NAMES = {
    "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"
  };
  static final String[] LAST_NAMES = {
    "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
  };
  static final String[] CITIES = {
    "Phoenix",
    "Los Angeles",
    "San Francisco",
    "Boise",
    "Portland",
    "Bend",
    "Redmond",
    "Seattle",
    "Kent",
    "Cheyenne"
  };
  static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
}
