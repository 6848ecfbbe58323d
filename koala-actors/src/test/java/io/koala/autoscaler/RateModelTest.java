package io.koala.autoscaler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The rates the autoscaler works from: a source's arrival rate from its reads and its backlog, the
 * target carried downstream through each vertex's selectivity, and a true rate from busy time.
 */
class RateModelTest {

  private static LoadSample.Vertex vertex(
      String name, List<String> inputs, long in, long out, long busyNanos, long lag) {
    return new LoadSample.Vertex(
        name,
        inputs,
        inputs.isEmpty(),
        false,
        new int[] {0},
        List.of(new LoadSample.Task(0, in, out, busyNanos, lag)),
        null,
        null,
        null,
        Integer.MAX_VALUE);
  }

  @Test
  void targetsFollowTheSourcesThroughSelectivities() {
    // over 10 s: source a read 50,000 and its backlog grew by 30,000 (8,000/s arrive); source b
    // read 20,000 (2,000/s); filter keeps half of a; join reads filter and b
    LoadSample before =
        new LoadSample(
            0,
            false,
            List.of(
                vertex("a", List.of(), 0, 0, 0, 10_000),
                vertex("b", List.of(), 0, 0, 0, 0),
                vertex("filter", List.of("a"), 0, 0, 0, 0),
                vertex("join", List.of("filter", "b"), 0, 0, 0, 0)));
    LoadSample after =
        new LoadSample(
            10_000,
            false,
            List.of(
                vertex("a", List.of(), 50_000, 50_000, 1_000_000_000, 40_000),
                vertex("b", List.of(), 20_000, 20_000, 1_000_000_000, 0),
                vertex("filter", List.of("a"), 50_000, 25_000, 2_000_000_000, 0),
                vertex("join", List.of("filter", "b"), 45_000, 45_000, 9_000_000_000L, 0)));
    Map<String, RateModel.Rates> r =
        RateModel.between(before, after, 20, 0, new java.util.HashMap<>());
    double aTarget = 8_000 + 40_000 / 20.0; // arrivals, and the backlog over the catch-up time
    assertThat(r.get("a").arrivalRate()).isCloseTo(8_000, within(1e-6));
    assertThat(r.get("a").targetRate()).isCloseTo(aTarget, within(1e-6));
    assertThat(r.get("filter").targetRate()).isCloseTo(aTarget, within(1e-6));
    assertThat(r.get("join").targetRate()).isCloseTo(aTarget / 2 + 2_000, within(1e-6));
    assertThat(r.get("join").inputRate()).isCloseTo(4_500, within(1e-6));
    assertThat(r.get("join").trueRatePerTask()).isCloseTo(5_000, within(1e-6)); // 45,000 in 9 s
    assertThat(r.get("join").need()).isCloseTo((aTarget / 2 + 2_000) / 5_000, within(1e-9));
  }

  @Test
  void aRisingArrivalRateIsProjectedAheadAndAFallingOneIsNot() {
    java.util.Map<String, RateModel.Arrival> arrivals = new java.util.HashMap<>();
    LoadSample s0 = new LoadSample(0, false, List.of(vertex("a", List.of(), 0, 0, 0, 0)));
    LoadSample s1 =
        new LoadSample(10_000, false, List.of(vertex("a", List.of(), 50_000, 0, 1_000, 0)));
    LoadSample s2 =
        new LoadSample(20_000, false, List.of(vertex("a", List.of(), 120_000, 0, 2_000, 0)));
    LoadSample s3 =
        new LoadSample(30_000, false, List.of(vertex("a", List.of(), 150_000, 0, 3_000, 0)));
    assertThat(RateModel.between(s0, s1, 10, 5, arrivals).get("a").targetRate())
        .as("no earlier interval: no trend")
        .isCloseTo(5_000, within(1e-6));
    // 7,000/s after 5,000/s, 10 s apart: rising by 200/s each second, 5 s ahead
    assertThat(RateModel.between(s1, s2, 10, 5, arrivals).get("a").targetRate())
        .isCloseTo(7_000 + 200 * 5, within(1e-6));
    assertThat(RateModel.between(s2, s3, 10, 5, arrivals).get("a").targetRate())
        .as("falling")
        .isCloseTo(3_000, within(1e-6));
  }

  @Test
  void theProjectedRateFollowsAFallToo() {
    java.util.Map<String, RateModel.Arrival> arrivals = new java.util.HashMap<>();
    LoadSample s0 = new LoadSample(0, false, List.of(source(0, 0), half(0), after(0)));
    LoadSample s1 =
        new LoadSample(10_000, false, List.of(source(50_000, 0), half(50_000), after(50_000)));
    LoadSample s2 =
        new LoadSample(20_000, false, List.of(source(120_000, 0), half(120_000), after(120_000)));
    LoadSample s3 =
        new LoadSample(
            30_000, false, List.of(source(150_000, 20_000), half(150_000), after(150_000)));
    LoadSample s4 =
        new LoadSample(40_000, false, List.of(source(185_000, 0), half(185_000), after(185_000)));
    RateModel.between(s0, s1, 10, 5, arrivals);
    Map<String, RateModel.Rates> rising = RateModel.between(s1, s2, 10, 5, arrivals);
    assertThat(rising.get("a").projectedRate())
        .as("rising: as the target")
        .isCloseTo(rising.get("a").targetRate(), within(1e-6));
    // 5,000/s arrive (3,000 read, the backlog up 20,000) after 7,000/s: falling by 200/s a second
    Map<String, RateModel.Rates> falling = RateModel.between(s2, s3, 10, 5, arrivals);
    assertThat(falling.get("a").targetRate()).isCloseTo(5_000 + 20_000 / 10.0, within(1e-6));
    assertThat(falling.get("a").projectedRate())
        .isCloseTo(5_000 - 200 * 5 + 20_000 / 10.0, within(1e-6));
    assertThat(falling.get("half").projectedRate()).isCloseTo(4_000 + 2_000, within(1e-6));
    assertThat(falling.get("after").projectedRate())
        .as("carried through the selectivity")
        .isCloseTo((4_000 + 2_000) / 2.0, within(1e-6));
    // 1,500/s after 5,000/s: a projection below zero counts as none, the backlog still counts
    Map<String, RateModel.Rates> steep = RateModel.between(s3, s4, 10, 5, arrivals);
    assertThat(steep.get("a").arrivalRate()).isCloseTo(1_500, within(1e-6));
    assertThat(steep.get("a").projectedRate()).isCloseTo(0, within(1e-6));
  }

  private static LoadSample.Vertex source(long read, long lag) {
    return vertex("a", List.of(), read, read, read * 1_000, lag);
  }

  /** Keeps half of what it reads from the source. */
  private static LoadSample.Vertex half(long in) {
    return vertex("half", List.of("a"), in, in / 2, in * 1_000, 0);
  }

  /** Reads what {@code half} keeps of {@code in}. */
  private static LoadSample.Vertex after(long in) {
    return vertex("after", List.of("half"), in / 2, in / 2, in * 1_000, 0);
  }

  @Test
  void tooFewRecordsGiveNoTrueRate() {
    LoadSample before = new LoadSample(0, false, List.of(vertex("a", List.of(), 0, 0, 0, 0)));
    LoadSample after =
        new LoadSample(
            5_000,
            false,
            List.of(vertex("a", List.of(), RateModel.MIN_RECORDS - 1, 0, 1_000_000, 0)));
    assertThat(
            RateModel.between(before, after, 10, 0, new java.util.HashMap<>())
                .get("a")
                .trueRatePerTask())
        .isNaN();
  }

  @Test
  void refusesSamplesOutOfOrderAndAVertexBeforeItsInput() {
    LoadSample a = new LoadSample(5, false, List.of(vertex("a", List.of(), 0, 0, 0, 0)));
    assertThatThrownBy(() -> RateModel.between(a, a, 10, 0, new java.util.HashMap<>()))
        .hasMessageContaining("time order");
    LoadSample bad = new LoadSample(9, false, List.of(vertex("x", List.of("a"), 0, 0, 0, 0)));
    assertThatThrownBy(() -> RateModel.between(a, bad, 10, 0, new java.util.HashMap<>()))
        .hasMessageContaining("'x' reads from 'a', which is not before it");
  }
}
