package io.koala.bench.soak;

import static io.koala.bench.soak.SoakSchedule.Fault.CHECKPOINT_TIMEOUT;
import static io.koala.bench.soak.SoakSchedule.Fault.CRASH;
import static io.koala.bench.soak.SoakSchedule.Fault.MIGRATION;
import static io.koala.bench.soak.SoakSchedule.Fault.NODE_KILL;
import static io.koala.bench.soak.SoakSchedule.Fault.RESCALE;
import static io.koala.bench.soak.SoakSchedule.Fault.UNREADABLE_SNAPSHOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SoakScheduleTest {
  @Test
  void faultsComeInTurnTheFirstCrashUnreadableTheSecondATimeout() {
    assertThat(SoakSchedule.of(14))
        .containsExactly(
            RESCALE,
            MIGRATION,
            UNREADABLE_SNAPSHOT,
            NODE_KILL,
            RESCALE,
            MIGRATION,
            CHECKPOINT_TIMEOUT,
            NODE_KILL,
            RESCALE,
            MIGRATION,
            CRASH,
            NODE_KILL,
            RESCALE,
            MIGRATION);
  }

  @Test
  void aFaultEveryStepBeforeTheEnd() {
    SoakExperiment.Settings thirty = SoakExperiment.Settings.defaults(30);
    assertThat(thirty.faults()).as("at 2, 4, ..., 28 minutes").hasSize(14);
    assertThat(SoakExperiment.Settings.defaults(4.5).faults()).hasSize(2);
    assertThatThrownBy(() -> SoakExperiment.Settings.defaults(1))
        .hasMessageContaining("--minutes must be at least 2");
  }

  @Test
  void restartsMustResetWithinAStep() {
    assertThatThrownBy(
            () ->
                new SoakExperiment.Settings(
                    30,
                    Duration.ofSeconds(30),
                    2_000,
                    10_000,
                    512,
                    4,
                    2,
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(20),
                    Duration.ofSeconds(30)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be shorter than a step");
  }
}
