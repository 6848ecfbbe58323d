package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.autoscaler.AutoscalerSettings;
import io.koala.job.JobStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The autoscaler's driver on its own: its timer, and one gathering at a time while the job runs.
 */
class AutoscalingTest {
  private final List<String> told = new ArrayList<>();
  private JobStatus status = JobStatus.RUNNING;
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(AutoscalingTest.class), new TaskRoster(), 0);

  private Autoscaling autoscaling(AutoscalerSettings settings) {
    JobSetup setup = JobSetups.setup(null, null, JobSetups.plan(2), List.of(), false, settings);
    return new Autoscaling(
        setup,
        out,
        JobState.initial(setup),
        new Attempts(),
        () -> status,
        new Autoscaling.Parts() {
          @Override
          public void gatherMetrics() {
            told.add("gatherMetrics");
          }

          @Override
          public boolean reconfiguring() {
            return false;
          }

          @Override
          public void reconfigure(JobInput.Reconfigure request) {
            told.add("reconfigure " + request.change());
          }
        });
  }

  private static AutoscalerSettings on() {
    AutoscalerSettings off = AutoscalerSettings.OFF;
    return new AutoscalerSettings(
        true,
        Duration.ofSeconds(2),
        off.headroom(),
        off.scaleInHysteresis(),
        off.cooldown(),
        off.maxStep(),
        off.minParallelism(),
        off.maxParallelism(),
        off.catchUp(),
        off.lead(),
        List.of());
  }

  @Test
  void offItStartsNoTimerAndGathersNothing() {
    Autoscaling autoscaling = autoscaling(AutoscalerSettings.OFF);
    autoscaling.start();
    autoscaling.onTick();
    assertThat(out.drain()).isEmpty();
    assertThat(told).isEmpty();
    assertThat(autoscaling.status().enabled()).isFalse();
  }

  @Test
  void onItGathersOnceAnIntervalOnlyWhileTheJobRunsAndNeverTwiceAtOnce() {
    Autoscaling autoscaling = autoscaling(on());
    autoscaling.start();
    assertThat(of(JobEffect.StartTimer.class, out.drain()))
        .singleElement()
        .satisfies(t -> assertThat(t.delay()).isEqualTo(Duration.ofSeconds(2)));
    status = JobStatus.DEPLOYING;
    autoscaling.onTick();
    assertThat(told).isEmpty();
    status = JobStatus.RUNNING;
    autoscaling.onTick();
    autoscaling.onTick(); // the first gathering is still out
    assertThat(told).containsExactly("gatherMetrics");
  }
}
