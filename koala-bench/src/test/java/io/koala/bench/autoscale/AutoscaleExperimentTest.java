package io.koala.bench.autoscale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.koala.job.AutoscalerDecision;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The experiment's input, its ideal, and how it judges a run. */
class AutoscaleExperimentTest {
  private static final AutoscaleSettings S =
      new AutoscaleSettings(2, 20, 5, 1_000, 1_000, 1_000, 1.0, 64, 2, 1.1, 0.1, 10, 4, 7);

  @Test
  void theRateCyclesFromOnceToFourTimesTheBase() {
    DiurnalInput in = new DiurnalInput(S);
    assertThat(in.seconds()).isEqualTo(5 + 2 * 20);
    for (int t = 0; t < 5; t++) {
      assertThat(in.rate(t)).isEqualTo(1_000);
    }
    double min = Double.MAX_VALUE;
    double max = 0;
    for (int t = 5; t < in.seconds(); t++) {
      min = Math.min(min, in.rate(t));
      max = Math.max(max, in.rate(t));
    }
    assertThat(min).isCloseTo(1_000, within(50.0));
    assertThat(max).isCloseTo(4_000, within(50.0));
    assertThat(in.rate(5 + 10)).as("the peak, half a cycle in").isCloseTo(4_000, within(50.0));
    double total = 0;
    for (int t = 0; t < in.seconds(); t++) {
      total += in.rate(t);
    }
    assertThat((double) in.records()).isCloseTo(total, within(2.0));
  }

  @Test
  void theIdealSumsEachSecondsRateOverTheCapacityRoundedUp() {
    DiurnalInput in = new DiurnalInput(S);
    long ideal = 0;
    for (int t = 5; t < in.seconds(); t++) {
      ideal += (long) Math.ceil(in.rate(t) / 1_000 - 1e-9);
    }
    assertThat(in.idealTaskSeconds()).isEqualTo(ideal);
    // a 1x-4x sinusoid needs about 2.5/4 of the peak's task-seconds, a little more for the ceiling
    double peak = 4.0 * (in.seconds() - 5);
    assertThat(in.idealTaskSeconds() / peak).isBetween(0.6, 0.8);
  }

  @Test
  void theHotKeysMoveAtEachPeak() {
    DiurnalInput in = new DiurnalInput(S);
    long peak = in.schedule().available((5 + 10) * 1000L);
    int[] before = new int[S.keys()];
    int[] after = new int[S.keys()];
    for (long i = peak - 5_000; i < peak; i++) {
      before[(int) in.keyOf(i, S.seed())]++;
    }
    for (long i = peak; i < peak + 5_000; i++) {
      after[(int) in.keyOf(i, S.seed())]++;
    }
    int hotBefore = argmax(before);
    int hotAfter = argmax(after);
    assertThat(hotAfter).isNotEqualTo(hotBefore);
    assertThat(after[hotBefore]).isLessThan(before[hotBefore] / 5);
    long[] expected = in.expectedCounts();
    assertThat(java.util.Arrays.stream(expected).sum()).isEqualTo(in.records());
  }

  private static int argmax(int[] a) {
    int best = 0;
    for (int i = 1; i < a.length; i++) {
      if (a[i] > a[best]) {
        best = i;
      }
    }
    return best;
  }

  @Test
  void twoReversalsWithinTheCooldownAreFlapping() {
    Duration cooldown = Duration.ofSeconds(10);
    List<AutoscalerDecision> steady =
        List.of(decision(0, 2, 4), decision(4_000, 4, 6), decision(12_000, 6, 3));
    assertThat(AutoscaleRun.flapped(steady, cooldown)).isFalse();
    List<AutoscalerDecision> flapping =
        List.of(decision(0, 2, 4), decision(4_000, 4, 3), decision(8_000, 3, 5));
    assertThat(AutoscaleRun.flapped(flapping, cooldown)).isTrue();
    List<AutoscalerDecision> slow =
        List.of(decision(0, 2, 4), decision(6_000, 4, 3), decision(11_000, 3, 5));
    assertThat(AutoscaleRun.flapped(slow, cooldown)).isFalse();
  }

  private static AutoscalerDecision decision(long at, int from, int to) {
    return new AutoscalerDecision(
        at,
        AutoscaleJob.TARGET,
        to > from ? AutoscalerDecision.Kind.SCALE_OUT : AutoscalerDecision.Kind.SCALE_IN,
        from,
        to,
        "test",
        "completed in 1 ms");
  }

  @Test
  void aRunIsJudgedAgainstEveryKeysRecords() {
    AutoscaleJob.Observed o = new AutoscaleJob.Observed(3);
    o.counts().set(0, 5);
    o.counts().set(1, 2);
    o.counts().set(2, 0);
    assertThat(AutoscaleRun.compare(o, new long[] {5, 2, 0})).isNull();
    assertThat(AutoscaleRun.compare(o, new long[] {5, 3, 0}))
        .contains("1 records short", "0 extra", "key 1: final count 2, records 3");
    o.counts().set(2, 1);
    assertThat(AutoscaleRun.compare(o, new long[] {5, 2, 0})).contains("1 extra");
  }

  @Test
  void theSummaryJudgesTheTargetsOnTheKoalaRun() {
    DiurnalInput in = new DiurnalInput(S);
    long ideal = in.idealTaskSeconds();
    AutoscaleRun.Result koala = result("koala", 0.995, (long) (1.1 * ideal), false);
    AutoscaleRun.Result restart = result("restart", 0.95, (long) (1.1 * ideal), false);
    Map<String, Object> summary =
        AutoscaleExperiment.summary(S, in, new java.util.LinkedHashMap<>(Map.of("koala", koala)));
    assertThat(summary).containsEntry("idealTaskSeconds", ideal);
    assertThat(AutoscaleExperiment.json(koala))
        .as("the mean and the longest reconfiguration")
        .containsEntry("reconfigurationMillis", List.of(210.0, 300L));
    summary =
        AutoscaleExperiment.summary(
            S,
            in,
            new java.util.LinkedHashMap<>(
                java.util.Map.ofEntries(Map.entry("koala", koala), Map.entry("restart", restart))));
    @SuppressWarnings("unchecked")
    Map<String, Object> targets = (Map<String, Object>) summary.get("targets");
    assertThat(targets)
        .containsEntry("lagUnder1sIn99PercentOfSeconds", true)
        .containsEntry("taskSecondsAtMost1.2xIdeal", true)
        .containsEntry("betterLagThanRestart", true)
        .containsEntry("noFlapping", true);
    AutoscaleRun.Result slow = result("koala", 0.9, (long) (1.3 * ideal), true);
    @SuppressWarnings("unchecked")
    Map<String, Object> missed =
        (Map<String, Object>)
            AutoscaleExperiment.summary(
                    S,
                    in,
                    new java.util.LinkedHashMap<>(
                        java.util.Map.ofEntries(
                            Map.entry("koala", slow), Map.entry("restart", restart))))
                .get("targets");
    assertThat(missed).doesNotContainValue(true);
  }

  private static AutoscaleRun.Result result(
      String way, double under, long taskSeconds, boolean flapped) {
    return new AutoscaleRun.Result(
        AutoscaleExperiment.way(way, S),
        List.of(),
        under,
        0.5,
        taskSeconds,
        0,
        3,
        List.of(120L, 300L),
        List.of(),
        List.of(),
        flapped,
        true,
        null,
        0,
        0);
  }

  /** Issue 48, N5: which stalls filled a second, from two of the job's metrics a second apart. */
  @Test
  void aSecondsStallsAreTheLongOnesThatGrewInIt() {
    Map<String, Long> before =
        Map.of("counts throttle", 5_000_000_000L, "events blocked_output", 0L);
    Map<String, Long> after =
        Map.of(
            "counts throttle", 5_020_000_000L,
            "events blocked_output", 1_870_000_000L,
            "counts parked_gate", 640_000_000L);
    assertThat(AutoscaleRun.stallsBetween(before, after))
        .isEqualTo("events blocked_output 1,870 ms; counts parked_gate 640 ms");
    assertThat(AutoscaleRun.stallsBetween(after, after)).isEmpty();
  }

  @Test
  void refusesAnUnknownWayAndBadSettings() {
    assertThatThrownBy(() -> AutoscaleExperiment.way("fast", S)).hasMessageContaining("no way");
    assertThatThrownBy(
            () ->
                new AutoscaleSettings(
                    0, 20, 5, 1_000, 1_000, 1_000, 1.0, 64, 2, 1.1, 0.1, 10, 4, 7))
        .hasMessageContaining("--cycles");
  }
}
