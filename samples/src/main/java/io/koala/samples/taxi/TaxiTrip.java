package io.koala.samples.taxi;

/**
 * A taxi trip, shaped like a record of the NYC taxi data (as in the DEBS 2015 challenge).
 *
 * @param vendorId the taxi company, 1 or 2
 * @param pickupTime pickup time, milliseconds
 * @param dropoffTime drop-off time, milliseconds; the record's event time
 */
public record TaxiTrip(
    int vendorId,
    long pickupTime,
    long dropoffTime,
    double pickupLon,
    double pickupLat,
    double dropoffLon,
    double dropoffLat) {

  /** The trip time in seconds. */
  public double tripSeconds() {
    return (dropoffTime - pickupTime) / 1000.0;
  }
}
