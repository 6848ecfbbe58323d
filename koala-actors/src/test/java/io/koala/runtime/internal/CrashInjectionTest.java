package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.core.reconfig.EpochDriver;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.runtime.testing.TaskCrashes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a planned crash is due, and that crashes strike one at a time. */
class CrashInjectionTest {
  private static final List<TaskId> TASKS =
      List.of(new TaskId(new OperatorId("count"), 0), new TaskId(new OperatorId("count"), 1));

  @Test
  void eachKindIsDueAtItsPointAndStrikesOnce() {
    CrashInjection c = new CrashInjection();
    TaskCrashes.Crash at = new TaskCrashes.At(100);
    TaskCrashes.Crash phase = new TaskCrashes.InPhase(EpochDriver.Phase.SWITCHING);
    TaskCrashes.Crash checkpoint = new TaskCrashes.InCheckpoint(2);
    c.plan(7, List.of(at, phase, checkpoint));
    assertThat(c.timed()).isTrue();
    assertThat(c.due(99, EpochDriver.Phase.PREPARING, 1)).isNull();
    assertThat(c.due(100, null, -1)).isEqualTo(at);
    assertThat(c.due(0, EpochDriver.Phase.SWITCHING, -1)).isEqualTo(phase);
    assertThat(c.due(0, null, 2)).isEqualTo(checkpoint);
    TaskId victim = c.strike(at, TASKS, 100, "processing");
    assertThat(TASKS).contains(victim);
    assertThat(c.timed()).isFalse();
    assertThat(c.due(0, EpochDriver.Phase.SWITCHING, 2))
        .as("nothing until the job rolled back")
        .isNull();
    c.rolledBack();
    assertThat(c.due(0, EpochDriver.Phase.SWITCHING, -1)).isEqualTo(phase);
    assertThat(c.injected())
        .containsExactly(new TaskCrashes.Injected(victim, 100, "processing", at));
    assertThatThrownBy(() -> c.strike(at, TASKS, 200, "processing"))
        .hasMessageContaining("not due");
  }

  @Test
  void plansAreChecked() {
    assertThatThrownBy(() -> new TaskCrashes.At(-1)).hasMessageContaining("negative");
    assertThatThrownBy(() -> new TaskCrashes.InPhase(EpochDriver.Phase.DONE))
        .hasMessageContaining("DONE");
    assertThatThrownBy(() -> new TaskCrashes.InCheckpoint(-1)).hasMessageContaining("negative");
  }
}
