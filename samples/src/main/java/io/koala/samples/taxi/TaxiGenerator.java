package io.koala.samples.taxi;

import io.koala.connector.GeneratorFunction;
import io.koala.samples.GeneratorArgs;
import io.koala.samples.RecordRandom;
import io.koala.samples.WeightedKeys;
import java.util.SplittableRandom;

/**
 * A stream of NYC-taxi-shaped trips (WORKLOADS.md, Taxi trends), record {@code i} a pure function
 * of {@code (i, seed)}, over the (route, vendor) key ids {@code 0 .. keys-1} of {@link TaxiGrid}
 * (small ids are routes near the Midtown hot spot, so the hot keys are a few hot cells):
 *
 * <ul>
 *   <li><b>warm-up</b>, records {@code 0 .. keys-1}: record {@code i} is a trip of key {@code i},
 *       so once they are processed every key has state;
 *   <li><b>afterwards</b>: the key is Zipf-distributed over the active keys {@code 0 ..
 *       activeKeys-1} (key {@code r} the {@code r+1}-th most frequent; exponent {@value
 *       #DEFAULT_ZIPF_EXPONENT} unless chosen), a strong skew: a few hot routes take much of the
 *       traffic.
 * </ul>
 *
 * <p>The pickup and drop-off points lie inside the route's cells (away from their edges). The trip
 * time is log-normal around 2 minutes plus 3 minutes per km of straight-line distance (σ = {@value
 * #SIGMA}), {@value #RUSH_FACTOR}× longer when the drop-off falls in the rush hours (7–10 h and
 * 16–19 h of the day), in whole seconds within [{@value #MIN_TRIP_SECONDS}, {@value
 * #MAX_TRIP_SECONDS}]. The drop-off time advances by {@code 1 / eventsPerSecond} s per record from
 * {@code baseTimeMillis}; the pickup is the trip time earlier. Immutable and thread-safe (the Zipf
 * table is computed once, {@code 8 × activeKeys} bytes).
 *
 * <pre>{@code
 * TaxiGenerator trips = new TaxiGenerator(100_000, 10_000, 0, 5_000, 1.2);
 * long key = trips.keyOf(index, seed); // TaxiGrid.keyOf(trips.generate(index, seed))
 * }</pre>
 */
public final class TaxiGenerator implements GeneratorFunction<TaxiTrip> {
  /** Skew of the routes' popularity unless chosen. */
  public static final double DEFAULT_ZIPF_EXPONENT = 1.1;

  /** Log-normal spread of the trip time. */
  public static final double SIGMA = 0.4;

  /** How much longer trips take in the rush hours. */
  public static final double RUSH_FACTOR = 1.4;

  /** Shortest trip time. */
  public static final int MIN_TRIP_SECONDS = 60;

  /** Longest trip time. */
  public static final int MAX_TRIP_SECONDS = 3 * 3600;

  private final long keys;
  private final long baseTimeMillis;
  private final double eventsPerMilli;
  private final WeightedKeys active;

  /** Trips with the default skew ({@value #DEFAULT_ZIPF_EXPONENT}). */
  public TaxiGenerator(long keys, long activeKeys, long baseTimeMillis, double eventsPerSecond) {
    this(keys, activeKeys, baseTimeMillis, eventsPerSecond, DEFAULT_ZIPF_EXPONENT);
  }

  /**
   * @param keys (route, vendor) key ids in total, at most {@link TaxiGrid#MAX_KEYS}; the warm-up
   *     has one record per key
   * @param activeKeys the keys travelled after the warm-up, in {@code [1, keys]}
   * @param eventsPerSecond event-time rate of the records, positive
   * @param zipfExponent skew over the active keys, non-negative (0 is uniform)
   */
  public TaxiGenerator(
      long keys,
      long activeKeys,
      long baseTimeMillis,
      double eventsPerSecond,
      double zipfExponent) {
    if (keys < 1 || keys > TaxiGrid.MAX_KEYS) {
      throw new IllegalArgumentException(
          "keys must be in [1, " + TaxiGrid.MAX_KEYS + "], got " + keys);
    }
    GeneratorArgs.check(keys, activeKeys, GeneratorArgs.MAX_TABLED_KEYS, eventsPerSecond);
    this.keys = keys;
    this.baseTimeMillis = baseTimeMillis;
    this.eventsPerMilli = eventsPerSecond / 1000.0;
    this.active = WeightedKeys.zipf((int) activeKeys, zipfExponent);
  }

  /** The (route, vendor) key id of record {@code index}: {@link TaxiGrid#keyOf} of its trip. */
  public long keyOf(long index, long seed) {
    if (index < keys) {
      return index;
    }
    return active.sample(RecordRandom.of(index, seed).nextDouble());
  }

  /** The probability that a record after the warm-up has key {@code key}. */
  public double probability(long key) {
    return key < active.size() ? active.probability((int) key) : 0;
  }

  @Override
  public TaxiTrip generate(long index, long seed) {
    SplittableRandom r = RecordRandom.of(index, seed);
    long key = index < keys ? index : active.sample(r.nextDouble());
    int start = TaxiGrid.startCellOf(key);
    int end = TaxiGrid.endCellOf(key);
    double pickupLon = TaxiGrid.lonIn(start, inside(r));
    double pickupLat = TaxiGrid.latIn(start, inside(r));
    double dropoffLon = TaxiGrid.lonIn(end, inside(r));
    double dropoffLat = TaxiGrid.latIn(end, inside(r));
    double km = Math.hypot((dropoffLon - pickupLon) * 84.3, (dropoffLat - pickupLat) * 111.2);
    long dropoff = baseTimeMillis + (long) (index / eventsPerMilli);
    long hour = Math.floorMod(dropoff / 3_600_000L, 24L);
    boolean rush = (hour >= 7 && hour < 10) || (hour >= 16 && hour < 19);
    double seconds = (120 + 180 * km) * (rush ? RUSH_FACTOR : 1.0) * Math.exp(SIGMA * gaussian(r));
    long tripSeconds = Math.max(MIN_TRIP_SECONDS, Math.min(MAX_TRIP_SECONDS, Math.round(seconds)));
    return new TaxiTrip(
        TaxiGrid.vendorOf(key),
        dropoff - 1000 * tripSeconds,
        dropoff,
        pickupLon,
        pickupLat,
        dropoffLon,
        dropoffLat);
  }

  /** A fraction across a cell away from its edges, so rounding cannot move a point out. */
  private static double inside(SplittableRandom r) {
    return 0.1 + 0.8 * r.nextDouble();
  }

  /** A standard normal draw (Box–Muller; SplittableRandom has no nextGaussian on Java 17). */
  private static double gaussian(SplittableRandom r) {
    double u = 1.0 - r.nextDouble(); // (0, 1]
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble());
  }
}
