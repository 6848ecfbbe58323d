package io.koala.samples.taxi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.samples.SeriesStatsCheck;
import io.koala.samples.SeriesStatsCheck.LastValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TaxiTrendsTest {

  @Test
  void emitsTheMedianOfTheLast150TripTimesOfEachRouteAndVendorLikeAPlainLoop() {
    int records = 3_000;
    TaxiGenerator gen = new TaxiGenerator(200, 20, 0, 1_000);
    long seed = 11;
    DataflowBuilder b = Dataflow.builder("taxi-test").parallelism(2);
    TaxiTrends.registerTypes(b);
    // one partition: each key's trips arrive in index order, so its medians are determined
    TaxiTrends.medianTripTime(
            b.source(SourceSpec.generator("trips", gen).partitions(1).count(records).seed(seed)),
            TaxiTrends.OPERATOR,
            2048)
        .sink(SinkSpec.collecting("medians"));

    Map<Long, List<String>> actual = new TreeMap<>();
    for (RouteTripTime m : SeriesStatsCheck.<RouteTripTime>collected(b, "medians")) {
      actual
          .computeIfAbsent(m.key(), k -> new ArrayList<>())
          .add(m.trips() + ":" + m.medianSeconds());
    }

    LastValues last = new LastValues(150);
    Map<Long, List<String>> expected = new TreeMap<>();
    for (long i = 0; i < records; i++) {
      TaxiTrip t = gen.generate(i, seed);
      int start = TaxiGrid.cellOf(t.pickupLon(), t.pickupLat());
      int end = TaxiGrid.cellOf(t.dropoffLon(), t.dropoffLat());
      long key = TaxiGrid.keyOf(start, end, t.vendorId());
      double[] times = last.add(key, (t.dropoffTime() - t.pickupTime()) / 1000.0);
      String median = times.length + ":" + SeriesStatsCheck.median(times);
      expected.computeIfAbsent(key, k -> new ArrayList<>()).add(median);
    }
    assertThat(expected).hasSize(200);
    assertThat(expected.get(0L)).hasSizeGreaterThan(300); // the hot route goes past 150 trips
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void refusesAStateTooSmallForTheLastTrips() {
    DataflowBuilder b = Dataflow.builder("taxi-small");
    var trips = b.source(SourceSpec.generator("trips", new TaxiGenerator(10, 10, 0, 1)));
    assertThatThrownBy(() -> TaxiTrends.medianTripTime(trips, "q", TaxiTrends.MIN_STATE_BYTES - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least " + TaxiTrends.MIN_STATE_BYTES);
  }
}
