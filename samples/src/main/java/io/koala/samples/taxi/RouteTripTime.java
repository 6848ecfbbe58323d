package io.koala.samples.taxi;

/**
 * What the Taxi-trends query emits per trip: the median time of the last trips of the trip's route
 * and vendor.
 *
 * @param key the (route, vendor) key id ({@link TaxiGrid#keyOf(TaxiTrip)})
 * @param trips how many trip times the median is over, at most {@link TaxiTrends#LAST_TRIPS}
 * @param medianSeconds their median, seconds
 */
public record RouteTripTime(long key, int trips, double medianSeconds) {}
