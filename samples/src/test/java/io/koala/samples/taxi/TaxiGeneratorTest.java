package io.koala.samples.taxi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TaxiGeneratorTest {
  static final long KEYS = 20_000;
  static final long ACTIVE = 1_000;
  final TaxiGenerator g = new TaxiGenerator(KEYS, ACTIVE, 0, 1000);

  @Test
  void tripsArePureFunctionsOfIndexAndSeedAndAgreeWithTheirKey() {
    for (long i = 0; i < 3 * KEYS; i += 7) {
      TaxiTrip t = g.generate(i, 42);
      assertThat(g.generate(i, 42)).isEqualTo(t);
      assertThat(TaxiGrid.keyOf(t)).isEqualTo(g.keyOf(i, 42));
      assertThat(t.vendorId()).isIn(1, 2);
      assertThat(t.dropoffTime()).isEqualTo(i); // 1,000 trips per second from 0
      assertThat(t.tripSeconds())
          .isBetween(
              (double) TaxiGenerator.MIN_TRIP_SECONDS, (double) TaxiGenerator.MAX_TRIP_SECONDS)
          .matches(s -> s == Math.rint(s));
      for (double lat : new double[] {t.pickupLat(), t.dropoffLat()}) {
        assertThat(lat).isBetween(40.1, 41.5); // New York and around
      }
      for (double lon : new double[] {t.pickupLon(), t.dropoffLon()}) {
        assertThat(lon).isBetween(-74.92, -73.1);
      }
    }
  }

  @Test
  void theWarmUpTravelsEveryKeyOnceThenOnlyActiveOnesStronglySkewed() {
    for (long i = 0; i < KEYS; i++) {
      assertThat(g.keyOf(i, 1)).isEqualTo(i);
      assertThat(TaxiGrid.keyOf(g.generate(i, 1))).isEqualTo(i);
    }
    int n = 200_000;
    long[] hits = new long[(int) ACTIVE];
    for (long i = KEYS; i < KEYS + n; i++) {
      long k = g.keyOf(i, 1);
      assertThat(k).isBetween(0L, ACTIVE - 1);
      hits[(int) k]++;
    }
    double h = 0;
    for (int r = 1; r <= ACTIVE; r++) {
      h += Math.pow(r, -TaxiGenerator.DEFAULT_ZIPF_EXPONENT);
    }
    assertThat((double) hits[0] / n).isBetween(0.95 / h, 1.05 / h);
    long top10 = Arrays.stream(hits, 0, 10).sum();
    assertThat((double) top10 / n).isGreaterThan(0.4); // 1% of the routes take over 40% of trips
  }

  @Test
  void theSkewIsConfigurable() {
    TaxiGenerator uniform = new TaxiGenerator(KEYS, ACTIVE, 0, 1000, 0.0);
    int n = 100_000;
    long[] hits = new long[(int) ACTIVE];
    for (long i = KEYS; i < KEYS + n; i++) {
      hits[(int) uniform.keyOf(i, 5)]++;
    }
    long max = Arrays.stream(hits).max().orElseThrow();
    long min = Arrays.stream(hits).min().orElseThrow();
    assertThat(max).isLessThan(2 * n / ACTIVE); // mean 100, sd 10
    assertThat(min).isGreaterThan(n / ACTIVE / 2);
  }

  @Test
  void hotKeysAreAFewCellsAroundTheHotSpot() {
    Set<Integer> cells = new HashSet<>();
    for (long k = 0; k < ACTIVE; k++) {
      cells.add(TaxiGrid.startCellOf(k));
      cells.add(TaxiGrid.endCellOf(k));
    }
    assertThat(cells).hasSizeLessThanOrEqualTo(23); // 500 routes: both cells among the first 23
    int hot = TaxiGrid.HOT_Y * TaxiGrid.SIDE + TaxiGrid.HOT_X;
    assertThat(TaxiGrid.startCellOf(0)).isEqualTo(hot);
    assertThat(TaxiGrid.endCellOf(1)).isEqualTo(hot);
    assertThat(TaxiGrid.vendorOf(0)).isEqualTo(1);
    assertThat(TaxiGrid.vendorOf(1)).isEqualTo(2);
  }

  @Test
  void tripTimesAreLogNormalAndLongerInTheRushHours() {
    TaxiGenerator oneRoute = new TaxiGenerator(1, 1, 0, 1000); // route hot spot -> hot spot
    long rushBase = 8 * 3_600_000L;
    TaxiGenerator rush = new TaxiGenerator(1, 1, rushBase, 1000);
    int n = 20_000;
    double sum = 0;
    double sumSq = 0;
    int longer = 0;
    for (long i = 1; i <= n; i++) {
      double s = oneRoute.generate(i, 9).tripSeconds();
      double l = Math.log(s);
      sum += l;
      sumSq += l * l;
      double ratio = rush.generate(i, 9).tripSeconds() / s;
      if (s > TaxiGenerator.MIN_TRIP_SECONDS && s * 1.4 < TaxiGenerator.MAX_TRIP_SECONDS) {
        assertThat(Math.abs(ratio - 1.4)).isLessThanOrEqualTo(1.2 / s); // whole seconds
        longer++;
      }
    }
    double mean = sum / n;
    double sd = Math.sqrt(sumSq / n - mean * mean);
    // 2 minutes plus 3 per km over 0 to 0.6 km: a median around 150 s, sigma 0.4 plus a little
    assertThat(Math.exp(mean)).isBetween(130.0, 220.0);
    assertThat(sd).isBetween(0.35, 0.5);
    assertThat(longer).isGreaterThan(n / 2);
  }

  @Test
  void keyIdsAndCellsAreABijection() {
    Set<Integer> cells = new HashSet<>();
    for (long i = 0; i < TaxiGrid.SPIRAL_CELLS; i++) {
      int cell = TaxiGrid.cellAt(i);
      assertThat(TaxiGrid.spiralOf(cell)).isEqualTo(i);
      cells.add(cell);
    }
    assertThat(cells).hasSize((int) TaxiGrid.SPIRAL_CELLS);
    for (long k = 0; k < 200_000; k += 3) {
      assertThat(
              TaxiGrid.keyOf(TaxiGrid.startCellOf(k), TaxiGrid.endCellOf(k), TaxiGrid.vendorOf(k)))
          .isEqualTo(k);
    }
    long last = TaxiGrid.MAX_KEYS - 1;
    assertThat(TaxiGrid.keyOf(TaxiGrid.startCellOf(last), TaxiGrid.endCellOf(last), 2))
        .isEqualTo(last);
    int cell = TaxiGrid.cellOf(TaxiGrid.lonIn(12_345, 0.5), TaxiGrid.latIn(12_345, 0.5));
    assertThat(cell).isEqualTo(12_345);
    assertThat(TaxiGrid.cellOf(-73.0, 40.75)).isEqualTo(-1);
    assertThatThrownBy(() -> TaxiGrid.keyOf(0, 0, 1)) // the north-west corner is off the spiral
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("beyond");
  }

  @Test
  void refusesAnActiveRangeOutsideTheKeys() {
    assertThatThrownBy(() -> new TaxiGenerator(10, 11, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("active keys");
  }
}
