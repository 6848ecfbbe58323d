package io.koala.bench.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The checks that keep a run's recovery figures from being reported when they mean nothing. */
class RunValidityTest {
  static final RescaleSettings S = RescaleSettings.defaults("koala"); // rate 60,000/s

  static RunValidity.Facts facts(
      long lagLevel, long levelStart, long levelEnd, long backlogAtRescale) {
    return new RunValidity.Facts(lagLevel, levelStart, levelEnd, backlogAtRescale, 2 * levelEnd);
  }

  @Test
  void aSteadyRunWithABacklogAtTheRescaleIsValid() {
    assertThat(RunValidity.check(S, facts(1_500, 20_000, 19_000, 600_000), true)).isNull();
  }

  @Test
  void aLagLevelOverASecondOfInputIsInvalid() {
    assertThat(RunValidity.check(S, facts(70_000, 20_000, 19_000, 600_000), true))
        .contains("had not caught up");
  }

  @Test
  void aBacklogStillFallingFromTheWarmUpIsInvalid() {
    assertThat(RunValidity.check(S, facts(1_500, 90_000, 20_000, 600_000), true))
        .contains("still working off its warm-up");
  }

  @Test
  void noBacklogAtTheRescaleIsInvalid() {
    // the demo's "recovered after 0.0 s": the backlog was under its level when the rescale came
    assertThat(RunValidity.check(S, facts(1_500, 20_000, 19_000, 30_000), true))
        .contains("nothing to recover");
  }

  @Test
  void aRunThatIsNotAScaleOutIsOnlyCheckedForItsLag() {
    assertThat(RunValidity.check(S, facts(1_500, 90_000, 20_000, 30_000), false)).isNull();
  }
}
