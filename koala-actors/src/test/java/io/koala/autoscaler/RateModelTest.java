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

  private static LoadSample at(long millis, long read) {
    return new LoadSample(millis, false, List.of(vertex("a", List.of(), read, 0, read, 0)));
  }

  @Test
  void aRiseThatHoldsIsProjectedAheadAndAFallingOneIsNot() {
    java.util.Map<String, RateModel.Arrival> arrivals = new java.util.HashMap<>();
    assertThat(RateModel.between(at(0, 0), at(10_000, 50_000), 10, 5, arrivals).get("a"))
        .as("no earlier interval: no trend")
        .extracting(RateModel.Rates::targetRate)
        .isEqualTo(5_000.0);
    assertThat(
            RateModel.between(at(10_000, 50_000), at(20_000, 120_000), 10, 5, arrivals)
                .get("a")
                .targetRate())
        .as("7,000/s after 5,000/s: one interval's rise is no trend yet")
        .isCloseTo(7_000, within(1e-6));
    // 9,000/s after 7,000/s after 5,000/s, 10 s apart: rising by 200/s each second, 5 s ahead
    assertThat(
            RateModel.between(at(20_000, 120_000), at(30_000, 210_000), 10, 5, arrivals)
                .get("a")
                .targetRate())
        .isCloseTo(9_000 + 200 * 5, within(1e-6));
    assertThat(
            RateModel.between(at(30_000, 210_000), at(40_000, 250_000), 10, 5, arrivals)
                .get("a")
                .targetRate())
        .as("falling")
        .isCloseTo(4_000, within(1e-6));
  }

  /** Issue 48: a step to 3,000/s was projected ahead as a rise to 25,827/s. */
  @Test
  void aLoadStepIsNotProjectedAhead() {
    java.util.Map<String, RateModel.Arrival> arrivals = new java.util.HashMap<>();
    RateModel.between(at(0, 0), at(2_000, 1_000), 10, 4, arrivals); // 500/s
    for (long t = 2_000, read = 1_000; t < 10_000; t += 2_000, read += 6_000) {
      RateModel.Rates r =
          RateModel.between(at(t, read), at(t + 2_000, read + 6_000), 10, 4, arrivals).get("a");
      assertThat(r.targetRate()).as("at %d ms", t + 2_000).isCloseTo(3_000, within(1e-6));
    }
  }

  @Test
  void slopesHoldWhenTwoInARowGoTheSameWay() {
    assertThat(RateModel.held(300, 200)).isEqualTo(200);
    assertThat(RateModel.held(-300, -200)).isEqualTo(-200);
    assertThat(RateModel.held(300, -200)).as("a turn").isZero();
    assertThat(RateModel.held(300, 0)).as("a step").isZero();
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
        new LoadSample(30_000, false, List.of(source(210_000, 0), half(210_000), after(210_000)));
    LoadSample s4 =
        new LoadSample(40_000, false, List.of(source(280_000, 0), half(280_000), after(280_000)));
    LoadSample s5 =
        new LoadSample(
            50_000, false, List.of(source(310_000, 20_000), half(310_000), after(310_000)));
    LoadSample s6 =
        new LoadSample(60_000, false, List.of(source(345_000, 0), half(345_000), after(345_000)));
    RateModel.between(s0, s1, 10, 5, arrivals);
    RateModel.between(s1, s2, 10, 5, arrivals);
    Map<String, RateModel.Rates> rising = RateModel.between(s2, s3, 10, 5, arrivals);
    assertThat(rising.get("a").projectedRate())
        .as("rising: as the target")
        .isCloseTo(rising.get("a").targetRate(), within(1e-6));
    Map<String, RateModel.Rates> turned = RateModel.between(s3, s4, 10, 5, arrivals);
    assertThat(turned.get("a").projectedRate())
        .as("7,000/s after 9,000/s after 7,000/s: a turn, no trend")
        .isCloseTo(7_000, within(1e-6));
    // 5,000/s arrive (3,000 read, the backlog up 20,000) after 7,000/s: falling by 200/s a second
    Map<String, RateModel.Rates> falling = RateModel.between(s4, s5, 10, 5, arrivals);
    assertThat(falling.get("a").targetRate()).isCloseTo(5_000 + 20_000 / 10.0, within(1e-6));
    assertThat(falling.get("a").projectedRate())
        .isCloseTo(5_000 - 200 * 5 + 20_000 / 10.0, within(1e-6));
    assertThat(falling.get("half").projectedRate()).isCloseTo(4_000 + 2_000, within(1e-6));
    assertThat(falling.get("after").projectedRate())
        .as("carried through the selectivity")
        .isCloseTo((4_000 + 2_000) / 2.0, within(1e-6));
    // 1,500/s after 5,000/s: projected along the gentler fall (200/s a second), the backlog gone
    Map<String, RateModel.Rates> steep = RateModel.between(s5, s6, 10, 5, arrivals);
    assertThat(steep.get("a").arrivalRate()).isCloseTo(1_500, within(1e-6));
    assertThat(steep.get("a").projectedRate()).isCloseTo(1_500 - 200 * 5, within(1e-6));
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
