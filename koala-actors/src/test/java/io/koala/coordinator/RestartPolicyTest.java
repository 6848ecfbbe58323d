package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The waits before a redeployment: doubling, capped, jittered by the job and the attempt alone. */
class RestartPolicyTest {
  static final RestartPolicy POLICY =
      new RestartPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofMinutes(10));

  @Test
  void theWaitDoublesUpToTheLongestWithinTenPercent() {
    long[] base = {1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000};
    for (int restart = 1; restart <= base.length; restart++) {
      long wait = POLICY.delay("orders", 7, restart).toMillis();
      assertThat(wait)
          .as("restart %d", restart)
          .isBetween(base[restart - 1] * 9 / 10, base[restart - 1] * 11 / 10);
    }
  }

  @Test
  void theDrawDependsOnTheJobAndTheAttemptOnly() {
    assertThat(POLICY.delay("orders", 3, 1)).isEqualTo(POLICY.delay("orders", 3, 1));
    Set<Duration> acrossJobs = new HashSet<>();
    for (int j = 0; j < 20; j++) {
      acrossJobs.add(POLICY.delay("job-" + j, 1, 1));
    }
    assertThat(acrossJobs).as("jobs that failed together come back apart").hasSizeGreaterThan(10);
  }

  @Test
  void byFailureRateEveryWaitIsTheBackoff() {
    RestartPolicy byRate =
        new RestartPolicy(
            5,
            Duration.ofSeconds(1),
            Duration.ofSeconds(60),
            Duration.ofMinutes(10),
            Duration.ofMinutes(5));
    assertThat(byRate.failureRate()).isTrue();
    assertThat(POLICY.failureRate()).isFalse();
    for (int restart = 1; restart <= 8; restart++) {
      assertThat(byRate.delay("orders", 7, restart).toMillis()).isBetween(900L, 1_100L);
    }
    assertThatThrownBy(
            () ->
                new RestartPolicy(
                    5, Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("failure-rate interval");
  }

  @Test
  void noWaitStaysNoWait() {
    RestartPolicy none = new RestartPolicy(1, Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1));
    assertThat(none.delay("orders", 1, 4)).isZero();
  }

  @Test
  void settingsAreChecked() {
    assertThatThrownBy(
            () ->
                new RestartPolicy(
                    1, Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backoff");
    assertThatThrownBy(
            () -> new RestartPolicy(-1, Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RestartPolicy(1, Duration.ZERO, Duration.ZERO, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
