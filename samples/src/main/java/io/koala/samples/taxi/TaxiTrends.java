package io.koala.samples.taxi;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.samples.BoundedSeries;
import io.koala.samples.SeriesStats;

/**
 * The Taxi-trends query (WORKLOADS.md): trips keyed by (route, vendor) ({@link
 * TaxiGrid#keyOf(TaxiTrip)}, a {@code long} key id), keeping each key's last {@value #LAST_TRIPS}
 * trip times and emitting their running median for every trip. Each key's state ({@link
 * BoundedSeries}) is padded to {@code stateBytes} bytes. Its keyed operator, named by the caller
 * ({@value #OPERATOR} in the experiments), is the reconfiguration target; its key skew is what the
 * skew experiment rebalances.
 *
 * <pre>{@code
 * DataflowBuilder b = Dataflow.builder("taxi");
 * TaxiTrends.registerTypes(b);
 * Stage<TaxiTrip> trips = b.source(SourceSpec.generator("trips", new TaxiGenerator(...)));
 * TaxiTrends.medianTripTime(trips, TaxiTrends.OPERATOR, 2048).sink(SinkSpec.discarding("out"));
 * }</pre>
 */
public final class TaxiTrends {
  /** How many of a key's last trip times the median is over. */
  public static final int LAST_TRIPS = 150;

  /** The smallest state per key: {@link BoundedSeries#minBytes} of {@value #LAST_TRIPS}. */
  public static final int MIN_STATE_BYTES = 4 + 8 * LAST_TRIPS;

  /** The name the experiments give the keyed operator. */
  public static final String OPERATOR = "taxi-route-median";

  /** Appends the trip time to the key's series and emits its median. */
  private static final SeriesStats<TaxiTrip, RouteTripTime> MEDIAN_TRIP_TIME =
      new SeriesStats<>(
          "last-trip-times",
          LAST_TRIPS,
          TaxiGrid::keyOf,
          TaxiTrip::tripSeconds,
          (trip, key, series) -> new RouteTripTime(key, series.size(), series.median()));

  private TaxiTrends() {}

  /** Registers the records that travel between the tasks of the query. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(TaxiTrip.class, RouteTripTime.class);
  }

  /**
   * Adds the query: {@code trips} keyed by (route, vendor) into the operator {@code name}.
   *
   * @param stateBytes bytes of state per key, at least {@link #MIN_STATE_BYTES}
   * @throws IllegalArgumentException if {@code stateBytes} is too small
   */
  public static Stage<RouteTripTime> medianTripTime(
      Stage<TaxiTrip> trips, String name, int stateBytes) {
    return MEDIAN_TRIP_TIME.add(trips, name, stateBytes);
  }
}
